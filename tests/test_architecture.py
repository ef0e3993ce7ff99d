"""The house rules of shared/kpass (issue 19): no import cycles (module level or inside
functions), the numpy/scipy core never reaches up into the reading, report or evaluate
layers, and files stay readable. The import graph is built from the source with ast."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "shared" / "kpass"

MAX_LINES = 700
#: The habit: a file over this many lines is split when it next grows.
HABIT = 500


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def resolve(current: str, is_package: bool, level: int, target: str | None) -> str:
    base = current.split(".") if is_package else current.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every kpass module ``name`` imports, at any depth of its code."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = (resolve(name, is_package, node.level, node.module) if node.level
                    else node.module or "")
            # `from . import x` / `from kpass import stats` imports the submodule x;
            # `from kpass import pass_at_k` uses the package itself
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            if target in known and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    names = set(known)
    # importing kpass.a.b runs kpass/__init__ first, but that is Python's doing: only the
    # import statements written in a module are its edges (an explicit `import kpass` or
    # `from kpass import f` in a kpass module is one, and counts)
    return {name: imports(name, path, names) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return out


def test_the_cycle_finder_finds_a_planted_cycle_and_nothing_else():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_function_level_and_relative_imports():
    edges = graph()
    assert "kpass.report.compare" in edges["kpass.report.cli"]  # inside _run_compare
    assert "kpass._core.counting.checks" in edges["kpass.stats.ranking"]  # from .._core.checks
    assert "kpass.io.frames" in edges["kpass"]  # from .io import frames


KNOWN_CYCLES: list[list[str]] = []  # none left; none may come back


def test_no_new_import_cycles():
    found = cycles(graph())
    unexpected = [c for c in found if c not in KNOWN_CYCLES]
    assert not unexpected, f"import cycles: {unexpected}"


def test_report_commands_do_not_import_each_other():
    edges = graph()
    for command in ("kpass.report.compare", "kpass.report.leaderboard"):
        assert "kpass.report.cli" not in edges[command], command


def test_the_core_never_imports_the_upper_layers():
    edges = graph()
    upper = ("kpass.report", "kpass.hf")
    for name, targets in edges.items():
        if name.startswith("kpass._core") or name.startswith("kpass.io"):
            bad = [t for t in targets if t.startswith(upper)]
            assert not bad, (name, bad)


@pytest.mark.parametrize("path", sorted(
    [p for p in PACKAGE.rglob("*.py")] + [p for p in (ROOT / "spaces").glob("*.py")]),
    ids=lambda p: str(p.relative_to(ROOT)))
def test_files_stay_readable(path):
    lines = len(path.read_text().splitlines())
    key = str(path.relative_to(ROOT))
    assert lines <= OVER_HABIT.get(key, HABIT), (key, lines)


#: Files between HABIT and MAX_LINES today, with their size: each may shrink, none may grow,
#: and no other file may pass HABIT.
OVER_HABIT: dict[str, int] = {}


#: The groups of ``_core``, bottom first: a group imports only itself and the groups before
#: it, so a number's path through the core goes down, never back and forth.
CORE_GROUPS = ("counting", "moments", "dirichlet", "vote", "tailpass")


def test_the_layers_import_only_downwards():
    """_core imports only _core, each of its groups only itself and the groups below; the
    families (kpass.families.*) import only _core and each other; the registry (data) imports
    nothing of kpass; the top level holds only the public API, the registry, the Inspect plugin
    and the layers' folders."""
    edges = graph()
    families = {name for name in edges if name.startswith("kpass.families.")}
    assert {"kpass.families.pass_at_k", "kpass.families.tailpass.metric"} <= families
    core = {name for name in edges if name.startswith("kpass._core.")}
    for name in core:
        group = name.split(".")[2]
        below = {"small_sample"} | (set(CORE_GROUPS[:CORE_GROUPS.index(group) + 1])
                                    if group in CORE_GROUPS else set())
        for target in edges[name]:
            assert target.startswith("kpass._core."), (name, target)
            assert target.split(".")[2] in below, (name, target)
    for name in families:
        assert all(t.startswith(("kpass._core", "kpass.families")) for t in edges[name]), name
    assert edges["kpass.registry"] == set()
    assert edges["kpass.families"] == families - {"kpass.families.tailpass.draws",
                                                  "kpass.families.tailpass.weights",
                                                  "kpass.families.tailpass"}
    top = {path.name for path in PACKAGE.iterdir() if path.name != "__pycache__"}
    assert top <= {"__init__.py", "registry.py", "inspect.py", "py.typed", "_core", "families",
                   "stats", "io", "report", "hf", "data"}, top
    assert {p.name for p in PACKAGE.glob("*.py")} == {"__init__.py", "registry.py", "inspect.py"}


def test_no_file_is_over_the_hard_limit():
    assert all(size <= MAX_LINES for size in OVER_HABIT.values())


def test_the_map_names_every_source_file():
    """docs/development.md's file index names every module (the map for the next engineer)."""
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    missing = []
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "spaces").glob("*.py")]:
        if path.name == "__init__.py":
            continue
        named = (str(path.relative_to(PACKAGE)) if path.is_relative_to(PACKAGE)
                 else str(path.relative_to(ROOT)))
        if f"`{named}`" not in text:
            missing.append(named)
    assert not missing, f"add to the file index of docs/development.md: {missing}"
