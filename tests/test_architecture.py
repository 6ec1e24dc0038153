"""The package's layering, read from the source with ast (nothing here imports shapecheck).

Imports point down the floors: calc/ and lint/ -> analysis/ -> runtime/. No module
imports another that imports it back, not even from inside a function, because a
cycle that works today breaks on the next reordering of imports.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "shapecheck"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(module: str, level: int, importer: str) -> str:
    if not level:
        return module
    base = importer.split(".")
    if not _is_package(importer):
        base.pop()
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _targets(name: str, extra_names: list[str]) -> list[str]:
    """The shapecheck modules an import statement loads: a submodule when ``from pkg import sub``
    names one, else the nearest module that exists."""
    found = []
    for extra in extra_names:
        if f"{name}.{extra}" in MODULES:
            found.append(f"{name}.{extra}")
    if len(found) < len(extra_names) or not extra_names:
        probe = name
        while probe and probe not in MODULES:
            probe = probe.rpartition(".")[0]
        if probe:
            found.append(probe)
    return found


def imports_of(name: str) -> set[str]:
    """Every shapecheck module ``name`` imports, at the top or inside a function."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "shapecheck":
                    out.update(_targets(alias.name, []))
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node.module or "", node.level, name)
            if target.split(".")[0] == "shapecheck":
                out.update(_targets(target, [a.name for a in node.names]))
        elif isinstance(node, ast.Call) and _is_import_module(node):
            # importlib.import_module(".rules.indexing", __package__)
            text = node.args[0].value
            level = len(text) - len(text.lstrip("."))
            package = name if _is_package(name) else name.rpartition(".")[0]
            if level:
                base = package.split(".")[:len(package.split(".")) - (level - 1)]
                target = ".".join(base + [text.lstrip(".")])
            else:
                target = text
            if target.split(".")[0] == "shapecheck":
                out.update(_targets(target, []))
    # A submodule always loads after its parent packages (Python imports them first), so an
    # import of an ancestor package adds no ordering and is no edge of a cycle.
    return {m for m in out if m != name and not name.startswith(m + ".")}


def _is_import_module(node: ast.Call) -> bool:
    func = node.func
    named = (isinstance(func, ast.Attribute) and func.attr == "import_module") or \
        (isinstance(func, ast.Name) and func.id == "import_module")
    return named and bool(node.args) and isinstance(node.args[0], ast.Constant) and \
        isinstance(node.args[0].value, str)


GRAPH = {name: imports_of(name) for name in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
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


def test_the_reader_sees_the_imports_it_must():
    # The resolution itself, on imports this package is known to make; if these fail the
    # other tests here would pass vacuously.
    assert "shapecheck.runtime.rules.indexing" in GRAPH["shapecheck.runtime.ops"]  # import_module
    assert "shapecheck.runtime.rules.axes" in GRAPH["shapecheck.runtime.rules.indexing"]
    assert "shapecheck.runtime.dims" in GRAPH["shapecheck.runtime.layout"]
    assert "shapecheck.analysis.interpret" in GRAPH["shapecheck.calc.evaluation"]


def test_a_lazy_import_inside_a_function_is_an_edge():
    # lint/runner imports analysis/api only inside a function, so that libcst loads on need.
    assert "shapecheck.analysis.api" in GRAPH["shapecheck.lint.runner"]


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    assert _cycles(GRAPH) == []


def _third_party_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
    return out


FLOORS = [
    ("shapecheck.runtime", ("shapecheck.analysis", "shapecheck.lint", "shapecheck.calc",
                            "shapecheck.server", "shapecheck.cli", "shapecheck.entry")),
    ("shapecheck.analysis", ("shapecheck.lint", "shapecheck.calc", "shapecheck.server", "shapecheck.cli",
                             "shapecheck.entry")),
    ("shapecheck.lint", ("shapecheck.server", "shapecheck.calc", "shapecheck.cli", "shapecheck.entry")),
]


@pytest.mark.parametrize("floor,forbidden", FLOORS, ids=[f for f, _ in FLOORS])
def test_imports_point_down(floor, forbidden):
    wrong = sorted(f"{name} -> {target}" for name, targets in GRAPH.items()
                   if name == floor or name.startswith(floor + ".")
                   for target in targets if target.startswith(forbidden))
    assert wrong == []


def test_runtime_does_not_read_source_code():
    wrong = sorted(name for name, path in MODULES.items()
                   if name.startswith("shapecheck.runtime") and "libcst" in _third_party_imports(path))
    assert wrong == []
