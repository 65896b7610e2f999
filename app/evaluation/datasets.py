"""Reading the evaluation datasets: a file or folder that is missing, empty, not JSON/CSV or not in the shape
an evaluation expects is one `MediaError` line naming the file (and the field), never a traceback."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from app.errors import MediaError

# what a different file shape raises while its fields are read (a missing key, a list where a dict should be)
SHAPE_ERRORS = (KeyError, TypeError, AttributeError, IndexError, ValueError)


def _text(path: Path, expected: str) -> str:
    if path.is_dir():
        raise MediaError(f"{path} is a folder: expected {expected}")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MediaError(f"{path} not found: expected {expected}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise MediaError(f"{path} cannot be read ({e}): expected {expected}") from None
    if not text.strip():
        raise MediaError(f"{path} is empty: expected {expected}")
    return text


def read_json(path: Path, expected: str) -> Any:
    """The JSON document in `path`; `expected` says what it should be, for the error."""
    try:
        return json.loads(_text(path, expected))
    except ValueError as e:
        raise MediaError(f"{path} is not valid JSON ({e}): expected {expected}") from None


def read_json_lines(path: Path, expected: str) -> list[Any]:
    """One JSON document per non-empty line of `path`."""
    out = []
    for n, line in enumerate(_text(path, expected).splitlines(), 1):
        try:
            out += [json.loads(line)] if line.strip() else []
        except ValueError as e:
            raise MediaError(f"{path} line {n} is not valid JSON ({e}): expected {expected}") from None
    return out


def read_table(path: Path, expected: str, *columns: tuple[str, ...]) -> list[dict[str, str]]:
    """The rows of the CSV file `path`, whose header must hold one of the `columns` sets."""
    rows = list(csv.DictReader(_text(path, expected).splitlines()))
    header = set(rows[0]) if rows else set()
    if not rows:
        raise MediaError(f"{path} has no rows: expected {expected}")
    if columns and not any(header >= set(c) for c in columns):
        wanted = " or ".join("(" + ", ".join(c) + ")" for c in columns)
        raise MediaError(f"{path} has columns ({', '.join(rows[0])}): expected {wanted}")
    return rows


def listed_files(folder: Path, table: Path, names: list[str]) -> list[Path]:
    """`names` as paths under `folder`; any missing is an error naming the `table` that lists them."""
    paths = [folder / name for name in names]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise MediaError(f"{table} lists {len(missing)} file(s) not found under {folder}, e.g. {missing[0].name}")
    return paths


def shape_error(where: str, e: Exception, expected: str) -> MediaError:
    """The one line for a file whose fields are not what `expected` says; `where` names the file and item."""
    detail = f"no field {e.args[0]!r}" if isinstance(e, KeyError) else str(e)
    return MediaError(f"{where}: {detail}: expected {expected}")
