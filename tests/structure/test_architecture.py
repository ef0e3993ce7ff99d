"""The house rules of shared/kpass (issue 19): no import cycles (module level or inside
functions), the numpy/scipy core never reaches up into the reading, report or evaluate
layers, and one idea per file, named by its docstring. The import graph is built from the
source with ast."""

import ast
import importlib
import re
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "shared" / "kpass"

#: A backstop, not the rule: past this many lines a file almost surely holds two ideas.
MAX_LINES = 1000
#: The one line of a module docstring that names the file's idea fits the line length.
IDEA_LINE = 100


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
    """_core, the families, stats and io never import report/ or hf/ (the CLI and evaluate)."""
    edges = graph()
    upper = ("kpass.report", "kpass.hf")
    for name, targets in edges.items():
        if name.startswith(("kpass._core", "kpass.families", "kpass.stats", "kpass.io")):
            bad = [t for t in targets if t.startswith(upper)]
            assert not bad, (name, bad)


@pytest.mark.parametrize("path", sorted(
    [p for p in PACKAGE.rglob("*.py")] + [p for p in (ROOT / "spaces").glob("*.py")]),
    ids=lambda p: str(p.relative_to(ROOT)))
def test_each_file_names_its_one_idea(path):
    """One idea per file (docs/development.md, "One idea per file"): the first line of the
    module docstring names it, and the reviewer holds every definition of the file to that
    line. What the test can check is that the line is there, one line, and that no file
    has grown past the backstop; whether the definitions serve it is the review's."""
    source = path.read_text(encoding="utf-8")
    key = str(path.relative_to(ROOT))
    docstring = ast.get_docstring(ast.parse(source))
    assert docstring, f"{key}: no module docstring naming the file's one idea"
    idea = docstring.strip().splitlines()[0]
    assert idea and len(idea) <= IDEA_LINE, f"{key}: the idea's line is empty or too long"
    lines = len(source.splitlines())
    assert lines <= MAX_LINES, f"{key}: {lines} lines, past the backstop of {MAX_LINES}"


#: The groups of ``_core``, bottom first: a group imports only itself and the groups before
#: it, so a number's path through the core goes down, never back and forth.
CORE_GROUPS = ("counting", "moments", "dirichlet", "vote", "tailpass")


def test_the_layers_import_only_downwards():
    """_core imports only _core, each of its groups only itself and the groups below; the
    families (kpass.families.*) import only _core and each other; the registry (data) imports
    nothing of kpass; the top level holds only the public API, the registry, the Inspect and
    lighteval plugins and the layers' folders."""
    edges = graph()
    families = {name for name in edges if name.startswith("kpass.families.")}
    assert {"kpass.families.pass_at_k", "kpass.families.tailpass.metric"} <= families
    core = {name for name in edges if name.startswith("kpass._core.")}
    for name in core:
        group = name.split(".")[2]
        below = (set(CORE_GROUPS[:CORE_GROUPS.index(group) + 1])
                 if group in CORE_GROUPS else set())
        for target in edges[name]:
            assert target.startswith("kpass._core."), (name, target)
            assert target.split(".")[2] in below, (name, target)
    for name in families:
        assert all(t.startswith(("kpass._core", "kpass.families")) for t in edges[name]), name
    assert edges["kpass.registry"] == set()
    assert edges["kpass.families"] == families - {"kpass.families.tailpass.draws",
                                                  "kpass.families.tailpass.weights",
                                                  "kpass.families.tailpass",
                                                  "kpass.families.ci_doc"}  # docstrings only
    top = {path.name for path in PACKAGE.iterdir() if path.name != "__pycache__"}
    assert top <= {"__init__.py", "registry.py", "inspect.py", "lighteval.py", "py.typed",
                   "_core", "families", "stats", "io", "report", "hf", "data"}, top
    assert {p.name for p in PACKAGE.glob("*.py")} == {"__init__.py", "registry.py", "inspect.py",
                                                      "lighteval.py"}


#: The folders of tests/, one per layer as the package has them, and the house rules'.
TEST_FOLDERS = {"core", "families", "io", "stats", "report", "hf", "harness", "spaces",
                "structure"}


def test_the_tests_are_grouped_by_layer():
    """Every test module lives in the folder of the layer it tests (docs/development.md):
    none loose in tests/, none in a folder outside TEST_FOLDERS, and no folder left empty."""
    tests = ROOT / "tests"
    assert not sorted(p.name for p in tests.glob("test_*.py")), "a test module loose in tests/"
    folders = {p.relative_to(tests).parts[0] for p in tests.rglob("test_*.py")
               if p.relative_to(tests).parts[0] != "fixtures"}
    assert folders == TEST_FOLDERS, folders ^ TEST_FOLDERS


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


# One home per name (issue 31): every name has one module that defines it, and callers
# import it from there. A module other than a package's __init__.py that imports a kpass name
# only to offer it to others (unused by its own code, or listed in its __all__) is a
# re-export: a second home a reader cannot tell from the first, and a trap for a test that
# monkeypatches the copy. Two modules are re-exports by design: kpass/__init__.py (the public
# API) and kpass/families/__init__.py (the family functions by name).

#: A noqa for F401 (unused import) or F403 (star import): the re-export's marks.
NOQA_REEXPORT = re.compile(r"#\s*no" r"qa\b[^#\n]*\bF40[13]\b")  # split: not a directive here


def module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run when a module is imported: its body and its top-level if/try blocks."""
    for node in body:
        yield node
        if isinstance(node, ast.If):
            yield from module_level(node.body)
            yield from module_level(node.orelse)
        elif isinstance(node, ast.Try):
            yield from module_level(node.body)
            for handler in node.handlers:
                yield from module_level(handler.body)
            yield from module_level(node.orelse)
            yield from module_level(node.finalbody)


def is_all(node: ast.stmt) -> bool:
    return isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
        isinstance(t, ast.Name) and t.id == "__all__"
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))


def defined_names(tree: ast.Module) -> set[str]:
    """The names a module defines itself (def, class, assignment) when it is imported."""
    found: set[str] = set()
    for node in module_level(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return found


def used_names(tree: ast.Module) -> set[str]:
    """The names a module's own code reads (its imports and __all__ left out), string
    annotations included."""
    found: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)) or is_all(statement):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:  # an annotation written as a string: "BinaryCounts | None"
                    found |= {n.id for n in ast.walk(ast.parse(node.value, mode="eval"))
                              if isinstance(n, ast.Name)}
                except (SyntaxError, ValueError):
                    pass
    return found


def all_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if is_all(node) and isinstance(getattr(node, "value", None), (ast.List, ast.Tuple)):
            names |= {e.value for e in node.value.elts  # type: ignore[union-attr]
                      if isinstance(e, ast.Constant)}
    return names


def re_exports(name: str, source: str, is_package: bool, known: set[str]) -> list[str]:
    """What module ``name`` (its ``source``) offers that another kpass module defines."""
    tree = ast.parse(source)
    used, listed = used_names(tree), all_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            found.append(f"line {node.lineno}: a star import")
    for node in module_level(tree.body):
        if not isinstance(node, ast.ImportFrom):
            continue
        target = (resolve(name, is_package, node.level, node.module) if node.level
                  else node.module or "")
        if target != "kpass" and not target.startswith("kpass."):
            continue
        for alias in node.names:
            local = alias.asname or alias.name
            if alias.name == "*" or f"{target}.{alias.name}" in known:
                continue  # a star import (above), or a submodule imported as a module
            if local in listed:
                found.append(f"line {node.lineno}: {local} (from {target}) in __all__")
            elif local not in used:
                found.append(f"line {node.lineno}: {local} (from {target}) unused here")
    for number, line in enumerate(source.splitlines(), 1):
        if NOQA_REEXPORT.search(line):
            found.append(f"line {number}: {NOQA_REEXPORT.search(line).group(0)}")  # type: ignore[union-attr]
    return found


def test_the_re_export_finder_finds_planted_re_exports_and_nothing_else():
    known = {"kpass", "kpass.a", "kpass.a.b", "kpass.a.c", "kpass.a.sub"}
    planted = (
        "from __future__ import annotations\n"
        "from typing import Any\n"                      # not kpass: never a re-export
        "from .b import used, unused, listed\n"
        "from kpass.a.c import Hinted, Quoted\n"
        "from . import sub\n"                           # a submodule, imported as a module
        "from .c import *\n"
        "from .b import kept  # no" "qa: F401 - offered as before\n"
        "__all__ = ['listed', 'f']\n"
        "def f(x: Hinted) -> 'Quoted | None':\n"
        "    return used(sub, x)\n")
    found = re_exports("kpass.a.m", planted, False, known)
    assert found == ["line 6: a star import",
                     "line 3: unused (from kpass.a.b) unused here",
                     "line 3: listed (from kpass.a.b) in __all__",
                     "line 7: kept (from kpass.a.b) unused here",
                     "line 7: # no" "qa: F401"]
    clean = "from .b import used\n__all__ = ['f']\ndef f():\n    return used()\n"
    assert re_exports("kpass.a.m", clean, False, known) == []


def test_no_module_re_exports_a_name_it_does_not_define():
    """No kpass module offers a name it imports: no star import, no imported name its own code
    does not use or that its __all__ lists, and no `# noqa: F401`/`F403` keeping such an
    import alive. The public API (kpass/__init__.py) and the by-name lookup of the family
    functions (kpass/families/__init__.py) are the two modules made of re-exports; every
    other package __init__.py is held to the rule."""
    known = modules()
    found = {}
    for name, path in sorted(known.items()):
        if name in ("kpass", "kpass.families"):
            continue
        problems = re_exports(name, path.read_text(encoding="utf-8"), path.name == "__init__.py",
                              set(known))
        if problems:
            found[str(path.relative_to(ROOT))] = problems
    assert not found, f"re-exports (import from the defining module instead): {found}"


def test_the_package_imports_each_name_from_its_home():
    """Inside shared/kpass, `from kpass.x import y` (or its relative form) takes y from the
    module that defines it, or a submodule: never through a module that merely uses it."""
    known = modules()
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in known.items()}
    defined = {name: defined_names(tree) for name, tree in trees.items()}
    found = []
    for name, tree in sorted(trees.items()):
        is_package = known[name].name == "__init__.py"
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = (resolve(name, is_package, node.level, node.module) if node.level
                      else node.module or "")
            if target not in known:
                continue
            for alias in node.names:
                if alias.name == "*" or f"{target}.{alias.name}" in known:
                    continue
                if alias.name not in defined[target]:
                    found.append(f"{name} line {node.lineno}: {alias.name} from {target}")
    assert not found, f"imported through a module that does not define it: {found}"


def kpass_imports_outside() -> list[tuple[str, str, str]]:
    """Every `from kpass.x import y` (x not empty) in tests/, benchmarks/, spaces/, metrics/,
    comparisons/, README.md and docs/**/*.md, as (where, module, name)."""
    found = []
    for folder in ("tests", "benchmarks", "spaces", "metrics", "comparisons"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (isinstance(node, ast.ImportFrom) and not node.level and node.module
                        and node.module.startswith("kpass.")):
                    found += [(f"{path.relative_to(ROOT)}:{node.lineno}", node.module, a.name)
                              for a in node.names]
    pattern = re.compile(r"from (kpass\.[\w.]+) import \(?([\w, ]+)")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in pattern.finditer(line):
                found += [(f"{path.relative_to(ROOT)}:{number}", match.group(1),
                           name.split(" as ")[0].strip())
                          for name in match.group(2).split(",") if name.strip()]
    return found


@pytest.mark.slow
def test_callers_import_each_name_from_its_home():
    """Tests, benchmarks, the Space, the evaluate modules and the docs import a kpass name from
    the module that defines it (a function's or class's __module__; another value assigned
    in that module's source), or a submodule; `from kpass import y` is the public API."""
    found = kpass_imports_outside()
    assert len(found) > 100  # the scan sees the suite's imports (a broken scan finds none)
    known = modules()
    sources: dict[str, set[str]] = {}

    def defines(module_name: str, name: str) -> bool:
        """``name`` is assigned, def'd or a class in the source of kpass module ``module_name``."""
        if module_name not in sources:
            text = known[module_name].read_text(encoding="utf-8")
            sources[module_name] = defined_names(ast.parse(text))
        return name in sources[module_name]

    wrong = []
    for where, module_name, name in found:
        assert module_name in known, f"{where}: no module {module_name}"
        if f"{module_name}.{name}" in known:
            continue  # a submodule, imported as a module
        home = module_name
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # an optional library missing here: the source alone decides
            if not defines(module_name, name):
                wrong.append(f"{where}: {name} from {module_name}, which does not define it")
            continue
        value = getattr(module, name)
        if isinstance(value, (type, types.FunctionType)):
            if value.__module__ != home:
                wrong.append(f"{where}: {name} from {module_name}, defined in {value.__module__}")
        elif not defines(module_name, name):
            wrong.append(f"{where}: {name} from {module_name}, which does not define it")
    assert not wrong, f"import from the defining module: {wrong}"
