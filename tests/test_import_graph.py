"""The import graph of src/stackaudit: no module imports itself back, no folder imports itself back.

Every `import` counts, read with ast: those at the top of a module, those inside functions (lazy imports,
which hide a dependency from the import-time order but not from the design), and those under
TYPE_CHECKING. A folder is a package under stackaudit/ (facts, report, ...); a module at the top is its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
# The products and the layers above the engine (docs/architecture.md): the engine imports none of them.
ABOVE_ENGINE = frozenset({"render", "report", "compare", "fleet", "bench", "ceiling", "investigate", "capture",
                          "catalogue", "cli"})


def _modules(src: Path) -> dict[str, Path]:
    out = {}
    for path in (src / "stackaudit").rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def module_graph(src: Path = SRC) -> dict[str, dict[str, int]]:
    """{module: {module it imports: first line}}; `from pkg import mod` is an edge to pkg.mod."""
    modules = _modules(src)

    def known(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, {})
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package[:len(package) - node.level + 1], *([base] if base else [])])
                subs = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules]
                targets = subs + ([base] if len(subs) < len(node.names) else [])
            for target in targets:
                if target.split(".")[0] == "stackaudit" and (hit := known(target)) and hit != name:
                    edges.setdefault(hit, node.lineno)
    return graph


def folder_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "stackaudit"


def folder_graph(graph: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, list[str]]]:
    """{folder: {folder it imports: ["module:line -> module", ...]}}."""
    out: dict[str, dict[str, list[str]]] = {}
    for module, edges in graph.items():
        for target, line in edges.items():
            a, b = folder_of(module), folder_of(target)
            if a != b:
                out.setdefault(a, {}).setdefault(b, []).append(f"{module}:{line} -> {target}")
    return out


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@cache
def _package_graph() -> dict[str, dict[str, int]]:
    """The package's graph, read once for the tests below (each reads, never changes, it)."""
    return module_graph()


def test_no_module_cycle() -> None:
    graph = _package_graph()
    assert len(graph) > 150  # the whole package was read
    assert cycles(graph) == []


def test_no_folder_cycle() -> None:
    folders = folder_graph(_package_graph())
    assert not ABOVE_ENGINE & set(folders["engine"])  # the audit command hands the engine the ceiling headline
    found = cycles(folders)
    detail = [f"{a} -> {b}: {folders[a][b][:3]}" for c in found for a in c for b in folders.get(a, ()) if b in c]
    assert found == [], "\n".join(detail)


@pytest.mark.parametrize(("sources", "expected"), [
    ({"a.py": "from stackaudit import b\n", "b.py": "def f():\n    import stackaudit.a\n"}, [["stackaudit.a", "stackaudit.b"]]),
    ({"a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from stackaudit.b import X\n",
      "b.py": "from . import a\n"}, [["stackaudit.a", "stackaudit.b"]]),
    ({"a.py": "from stackaudit import b\n", "b.py": "import os\n"}, []),
])
def test_lazy_relative_and_type_only_imports_count(tmp_path: Path, sources: dict[str, str],
                                                   expected: list[list[str]]) -> None:
    package = tmp_path / "stackaudit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in sources.items():
        (package / name).write_text(text)
    assert cycles(module_graph(tmp_path)) == expected


def test_a_folder_cycle_is_found_through_modules_that_do_not_form_one(tmp_path: Path) -> None:
    for folder, text in (("x", "from stackaudit.y.b import B\n"), ("y", "def f():\n    from stackaudit.x.c import C\n")):
        (tmp_path / "stackaudit" / folder).mkdir(parents=True)
        (tmp_path / "stackaudit" / folder / "__init__.py").write_text("")
        (tmp_path / "stackaudit" / folder / "a.py").write_text(text)
        (tmp_path / "stackaudit" / folder / "b.py").write_text("B = 1\n")
        (tmp_path / "stackaudit" / folder / "c.py").write_text("C = 1\n")
    graph = module_graph(tmp_path)
    assert cycles(graph) == []
    assert cycles(folder_graph(graph)) == [["x", "y"]]
