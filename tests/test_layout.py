"""The house's layout: no package of app/ imports one that imports it back, and no module either (every
`from app… import` counts, inside functions too), so the recorder, the question and memory writing can each
be read from the words and the store up."""

from __future__ import annotations

import ast
from collections import defaultdict

from tests.conftest import ROOT

APP = ROOT / "app"


def _imports() -> dict[str, set[str]]:
    """module -> the app modules it imports (`from app.x import y` counts app.x.y when that is a module)."""
    modules = {".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for f in APP.rglob("*.py")}
    out: dict[str, set[str]] = defaultdict(set)
    for f in APP.rglob("*.py"):
        me = ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "app":
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    out[me].add(target if target in modules else node.module)
            elif isinstance(node, ast.Import):
                out[me] |= {a.name for a in node.names if a.name.split(".")[0] == "app"}
        out[me].discard(me)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while (w := stack.pop()) != v:
                on.discard(w)
                group.append(w)
            on.discard(v)
            if group:
                found.append(sorted([v, *group]))

    for v in list(graph):
        if v not in index:
            visit(v)
    return found


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_package_imports_one_that_imports_it_back():
    packages: dict[str, set[str]] = defaultdict(set)
    for me, targets in _imports().items():
        packages[_package(me)] |= {_package(t) for t in targets} - {_package(me)}
    assert _cycles(packages) == []


def test_no_module_imports_one_that_imports_it_back():
    assert _cycles(_imports()) == []


def test_the_two_flows_have_their_folders():
    for module in ("recorder/pipeline", "recorder/writer", "recorder/sources", "recorder/perception"):
        assert (APP / f"{module}.py").is_file()
    for module in ("ask/recall", "ask/context", "ask/answer", "ask/grounding", "text/words", "text/timeexpr"):
        assert (APP / f"{module}.py").is_file()
    recorder_or_ask = {m for m in _imports()["app.consolidation.extract"] if m.startswith(("app.ask", "app.recorder"))}
    assert recorder_or_ask == set()  # memory writing reads the words and the store, not the question's code
