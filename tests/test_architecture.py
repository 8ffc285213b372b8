"""The layering rules of STYLE.md, enforced by import-linter (.importlinter at the repo root)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_operator_folder_is_not_importable_as_operator():
    import operator

    assert Path(operator.__file__).parent != ROOT / "operator"


# --- the import graph of helm_core, read with ``ast`` -------------------------------------------
# import-linter sees module-level imports as Python runs them; a cycle can also hide in an import
# inside a function (deferred for start-up time), so this graph counts those too.

import ast

PACKAGE = ROOT / "helm_core"

LAYERS = (
    # lowest first; a part may import only parts of lower layers (docs/architecture.md)
    ("helm_core.errors",),
    ("helm_core.support",),
    ("helm_core.golib",),
    ("helm_core.gotemplate",),
    ("helm_core.chart",),
    ("helm_core.engine",),
    ("helm_core.isolation",),
    ("helm_core.lua",),
    ("helm_core.kube",),
    ("helm_core.storage",),
    ("helm_core.sources",),
    ("helm_core.action",),
    ("helm_core.api",),
    ("helm_core.cli",),
    ("helm_core.__main__",),
)
"""The top-level parts of helm_core; ``helm_core`` itself (its lazy public API) is above all."""


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        found[".".join(parts)] = (path, is_package)
    return found


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom,
             modules: dict[str, tuple[Path, bool]]) -> set[str]:
    """The helm_core modules one import statement loads (``from pkg import sub`` is ``pkg.sub``)."""
    if isinstance(node, ast.Import):
        names = {alias.name for alias in node.names}
    else:
        if node.level:
            base = module.split(".")[: None if is_package else -1]
            base = base[: len(base) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        names = {f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names}
    out = set()
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            out.add(name)
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> helm_core modules it imports anywhere (module level, functions, TYPE_CHECKING)."""
    modules = _modules()
    graph = {}
    for module, (path, is_package) in modules.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                deps |= _targets(module, is_package, node, modules)
        graph[module] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def part_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_cycle_finder_finds_a_ring_and_ignores_a_chain():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_graph_counts_imports_inside_functions(tmp_path):
    graph = import_graph()
    # goyaml loads its reader lazily (PyYAML costs start-up time): still an edge
    assert "helm_core.golib.goyaml_read" in graph["helm_core.golib.goyaml"]
    assert "helm_core.cli.release" in graph["helm_core.cli"]


def test_no_import_cycle_between_modules():
    assert cycles(import_graph()) == []


def test_no_import_cycle_between_parts():
    parts: dict[str, set[str]] = {}
    for module, deps in import_graph().items():
        parts.setdefault(part_of(module), set()).update(part_of(d) for d in deps if part_of(d) != part_of(module))
    assert cycles(parts) == []


def test_parts_import_only_lower_layers():
    rank = {part: level for level, layer in enumerate(LAYERS) for part in layer}
    graph = import_graph()
    unknown = sorted({part_of(m) for m in graph} - set(rank) - {"helm_core"})
    assert unknown == [], f"parts missing from LAYERS (add them where they belong): {unknown}"
    upward = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps
                    if part_of(m) in rank and part_of(d) in rank and rank[part_of(d)] > rank[part_of(m)])
    assert upward == [], "imports pointing up the layers:\n" + "\n".join(upward)


# --- documents the code points to ---------------------------------------------------------------

import re

_DOC_REF = re.compile(r"\bdocs/[\w.-]+\.md\b")
_SCANNED = ("helm_core", "operator", "tests", "e2e", "docs", "bench", "README.md")


def _scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in _SCANNED:
        path = ROOT / name
        files += [path] if path.is_file() else [p for p in path.rglob("*") if p.suffix in (".py", ".md")]
    return files


def test_no_reference_to_a_design_document_outside_the_repository():
    outside = "DESIGN" + ".md"  # spelled apart so this file does not match itself
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in _scanned_files()
            for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if outside in line]
    assert hits == [], "point to docs/ files of the repository instead:\n" + "\n".join(hits)


def test_every_docs_file_the_code_points_to_exists():
    tests = ROOT / "tests"  # test data names made-up files (docs/a.md in a chart)
    missing = sorted({f"{p.relative_to(ROOT)} -> {ref}" for p in _scanned_files() if tests not in p.parents
                      for ref in _DOC_REF.findall(p.read_text(encoding="utf-8", errors="replace"))
                      if not (ROOT / ref).is_file()})
    assert missing == [], "\n".join(missing)
