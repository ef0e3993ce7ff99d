"""One home per name in the Space (issue 31): every module of ``spaces/`` uses each name from
the module that defines it.

Parsed with ``ast`` (nothing is imported), so a module fails here for what it says:

- a module-level ``x = module.x`` (or ``x = module.y``): a second home for a name another
  module defines (``app.py`` once kept ~80 of them so that old ``app.X`` kept working);
- an import (or a page module loaded by ``importlib.import_module``) that the module does not
  use itself: a re-export, even behind ``# noqa: F401``;
- ``app.X`` in a page module for a name ``app.py`` does not define: a name reached through
  ``app`` instead of its own module.

The checks are first run on planted examples, so a check that could not fail is caught too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SPACES = sorted((REPO / "spaces").glob("*.py"))


def rebindings(tree: ast.Module) -> list[str]:
    """Module-level assignments whose value is only an attribute of a name: ``x = module.x``."""
    found = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else []
        value = getattr(node, "value", None)
        if not targets or not isinstance(value, ast.Attribute):
            continue
        base = value
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name):
            names = ", ".join(ast.unparse(t) for t in targets)
            found.append(f"line {node.lineno}: {names} = {ast.unparse(value)}")
    return found


def _loaded_modules(tree: ast.Module) -> dict[str, int]:
    """Names bound to a module by ``name = importlib.import_module(...)`` at module level."""
    bound = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                ast.unparse(node.value.func) in ("importlib.import_module", "import_module"):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = node.lineno
    return bound


def unused_imports(tree: ast.Module) -> list[str]:
    """Names an import binds (anywhere in the module) that the module never reads."""
    bound: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for alias in node.names:
                bound[alias.asname or alias.name] = node.lineno
    bound.update(_loaded_modules(tree))
    read = {node.id for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    return [f"line {line}: {name}" for name, line in sorted(bound.items(), key=lambda x: x[1])
            if name not in read]


def app_defines(tree: ast.Module) -> set[str]:
    """What ``app.py`` itself defines at module level (not what it imports, loads or rebinds)."""
    loaded = _loaded_modules(tree)
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and \
                not isinstance(node.value, ast.Attribute):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name) and t.id not in loaded}
    return names


def through_app(tree: ast.Module, defined: set[str]) -> list[str]:
    """``app.X`` where ``app`` is a function's parameter and app.py does not define X."""
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if "app" not in {a.arg for a in function.args.args + function.args.kwonlyargs}:
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id == "app" and node.attr not in defined:
                found.append(f"line {node.lineno}: app.{node.attr} in {function.name}")
    return found


# ----------------------------------------------------------------------------- the checks


PLANTED = '''
import importlib
import json
from os import path  # noqa: F401 - as this module always offered it
from .space_input import parse_questions, locate

space_output = importlib.import_module("x.space_output")
space_input = importlib.import_module("x.space_input")
space_page = importlib.import_module("x.space_page")
parse_token = space_input.parse_token
CSS: str = space_output.styles.CSS
LIMIT = len("abc")

def run(app, text):
    json.dumps(text)
    app.run(text)
    return app.space_controls.COMPARED, app.MAX_SECONDS, parse_questions(text)
'''


def test_the_checks_find_what_was_planted():
    tree = ast.parse(PLANTED)
    assert rebindings(tree) == ["line 10: parse_token = space_input.parse_token",
                                "line 11: CSS = space_output.styles.CSS"]
    assert unused_imports(tree) == ["line 4: path", "line 5: locate", "line 9: space_page"]
    defined = app_defines(ast.parse("space_input = importlib.import_module('x')\n"
                                    "locate = space_input.locate\n"
                                    "MAX_SECONDS = 20.0\ndef run(): pass\n"))
    assert defined == {"MAX_SECONDS", "run"}
    assert through_app(tree, defined) == ["line 17: app.space_controls in run"]


def test_the_checks_pass_what_is_clean():
    clean = ast.parse("import re\nfrom .a import b\nX = b(re.compile('x'))\n"
                      "Y = dict(b.items)\ndef f(app):\n    return app.run, X, Y\n")
    assert rebindings(clean) == [] and unused_imports(clean) == []
    assert through_app(clean, {"run"}) == []


@pytest.mark.parametrize("path", SPACES, ids=lambda p: p.name)
def test_no_module_of_the_space_rebinds_another_modules_name(path):
    assert rebindings(ast.parse(path.read_text(encoding="utf-8"))) == [], path.name


@pytest.mark.parametrize("path", SPACES, ids=lambda p: p.name)
def test_every_import_of_the_space_is_used_by_its_module(path):
    assert unused_imports(ast.parse(path.read_text(encoding="utf-8"))) == [], path.name


@pytest.mark.parametrize("path", SPACES, ids=lambda p: p.name)
def test_the_page_modules_reach_through_app_only_what_app_defines(path):
    defined = app_defines(ast.parse((REPO / "spaces" / "app.py").read_text(encoding="utf-8")))
    assert through_app(ast.parse(path.read_text(encoding="utf-8")), defined) == [], path.name


def test_the_page_modules_are_all_found():
    """The parametrised checks see every module the Space ships (a glob gone wrong passes)."""
    names = {path.name for path in SPACES}
    assert {"app.py", "space_input.py", "space_output.py", "space_controls.py",
            "space_failures.py", "space_page.py", "leaderboard_tab.py", "plan_tab.py", "build.py",
            "publish.py"} <= names
