"""Build one Hugging Face Space folder per metric module: ``python spaces/build.py``.

Each ``dist/spaces/<name>/`` is complete on its own:

- ``<name>.py`` (and any sibling script it imports) from ``metrics/<name>/``;
- ``README.md``: the metric card with Space front matter (``sdk: gradio``,
  ``sdk_version`` = the pinned gradio, ``app_file: app.py``, ``tags``);
- ``app.py``: the shared demo (``spaces/app.py``), which finds the script beside it, and
  the page's modules it loads beside it (``leaderboard_tab.py``: the Leaderboard tab;
  ``plan_tab.py``: the Plan tab;
  ``space_input.py``: reading pasted and uploaded input; ``space_output.py``: tables, plots
  and formulas);
- ``kpass-<version>-py3-none-any.whl``: the core, built from this checkout;
- ``requirements.txt``: the wheel plus exact pins of what the app and the
  script import, at the versions installed here.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import yaml  # type: ignore[import-untyped]  # types-PyYAML is not a dependency

REPO = Path(__file__).resolve().parent.parent
METRICS = REPO / "metrics"
COMPARISONS = REPO / "comparisons"
DIST = REPO / "dist" / "spaces"
APP = Path(__file__).resolve().parent / "app.py"
# Modules of the page shipped beside app.py, which loads them as its own (the Leaderboard and
# Plan tabs,
# the reading of pasted and uploaded input, the tables, plots and formulas, the controls,
# the child process with its deadline): app.py's TAB_MODULES, checked by the build tests.
APP_MODULES = tuple(APP.parent / name for name in (
    "leaderboard_tab.py", "plan_tab.py", "space_input.py", "space_output.py",
    "space_controls.py", "space_failures.py", "space_page.py"))
# What the app and the metric scripts import, pinned to the versions installed here
# (inspect_ai: the Leaderboard tab reads uploaded Inspect ``.eval`` logs with it).
PINNED = ("gradio", "evaluate", "datasets", "huggingface_hub", "numpy", "scipy", "matplotlib",
          "pandas", "inspect_ai")
# Files of a metric folder that the Space replaces with its own.
REPLACED = {"app.py", "requirements.txt", "README.md"}
FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
DEFAULTS = {"emoji": "🎯", "colorFrom": "blue", "colorTo": "indigo", "pinned": False}
# python_version: the pinned numpy/scipy need the Python they were installed for here.


def module_names(metrics_dir: Path = METRICS) -> list[str]:
    """Every module: a folder ``metrics/<name>/`` (or ``comparisons/<name>/`` beside it)."""
    folders = [metrics_dir] + ([COMPARISONS] if metrics_dir == METRICS else [])
    return sorted(p.name for folder in folders for p in folder.iterdir()
                  if (p / f"{p.name}.py").is_file())


def module_source(name: str, metrics_dir: Path = METRICS) -> Path:
    """The folder of module ``name``: under ``metrics/``, else under ``comparisons/``."""
    source = metrics_dir / name
    return source if source.is_dir() or metrics_dir != METRICS else COMPARISONS / name


def build_wheel(out_dir: Path, repo: Path = REPO) -> Path:
    """Build the kpass wheel from a clean copy of the sources (no stale build/ files)."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "kpass"
        source.mkdir()
        for name in ("setup.cfg", "pyproject.toml", "README.md", "LICENSE"):
            if (repo / name).is_file():
                shutil.copy2(repo / name, source / name)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(repo / "shared" / "kpass", source / "shared" / "kpass", ignore=ignore)
        # The metric and comparison scripts: package data kpass/metrics/<name>/ and
        # kpass/comparisons/<name>/ (see setup.cfg).
        for folder in ("metrics", "comparisons"):
            shutil.copytree(repo / folder, source / folder, ignore=ignore)
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out_dir),
                   str(source)]
        # Without isolation is offline and fast, but needs a wheel-capable setuptools here.
        quick = subprocess.run([*command, "--no-build-isolation"], capture_output=True)
        if quick.returncode != 0:
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wheels = sorted(out_dir.glob("kpass-*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"expected one kpass wheel in {out_dir}; found {wheels}")
    return wheels[0]


def split_card(text: str) -> tuple[dict, str]:
    """A card -> (front matter dict, body)."""
    match = FRONT_MATTER.match(text)
    if not match:
        return {}, text
    return yaml.safe_load(match[1]) or {}, text[match.end():]


def space_card(card: str, name: str, gradio_version: str) -> str:
    """The metric card with the front matter a gradio Space needs."""
    meta, body = split_card(card)
    tags = [t for t in meta.get("tags") or [] if t not in ("evaluate", "metric")]
    space = {
        "title": meta.get("title", name),
        **{key: meta.get(key, value) for key, value in DEFAULTS.items()},
        "sdk": "gradio",
        "sdk_version": gradio_version,
        "python_version": f"{sys.version_info.major}.{sys.version_info.minor}",
        "app_file": "app.py",
        "tags": ["evaluate", "metric", *tags],
    }
    meta = {**space, **{key: value for key, value in meta.items() if key not in space}}
    header = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{header}---\n{body.lstrip()}"


def requirement_name(line: str) -> str:
    """The project name a requirements line asks for ('' for options, paths and URLs)."""
    line = line.split("#", 1)[0].strip()
    if not line or line.startswith(("-", ".", "/")) or "://" in line.split("@")[0]:
        return ""
    return re.split(r"[\s\[<>=!~;@]", line, maxsplit=1)[0]


def normalized(name: str) -> str:
    """PEP 503 name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(wheel_name: str, extra: str = "") -> str:
    """The pinned requirements: the bundled wheel, then exact versions installed here."""
    names = {normalized(n): n for n in PINNED}
    for line in extra.splitlines():
        name = requirement_name(line)
        if name and normalized(name) != "kpass":
            names.setdefault(normalized(name), name)
    lines = [f"./{wheel_name}"]
    for key in sorted(names):
        try:
            lines.append(f"{names[key]}=={metadata.version(names[key])}")
        except metadata.PackageNotFoundError:
            raise RuntimeError(f"{names[key]} is required by a Space but not installed") from None
    return "\n".join(lines) + "\n"


def build_space(name: str, wheel: Path, out: Path = DIST, metrics_dir: Path = METRICS) -> Path:
    """Write ``out/<name>/``: script, card, app, wheel and requirements."""
    source = module_source(name, metrics_dir)
    target = out / name
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for path in sorted(source.glob("*.py")):
        if path.name not in REPLACED:
            shutil.copy2(path, target / path.name)
    shutil.copy2(APP, target / "app.py")
    for path in APP_MODULES:
        shutil.copy2(path, target / path.name)
    shutil.copy2(wheel, target / wheel.name)
    card_file = source / "README.md"
    card = card_file.read_text(encoding="utf-8") if card_file.is_file() else f"# {name}\n"
    gradio_version = metadata.version("gradio")
    (target / "README.md").write_text(space_card(card, name, gradio_version), encoding="utf-8")
    extra_file = source / "requirements.txt"
    extra = extra_file.read_text(encoding="utf-8") if extra_file.is_file() else ""
    (target / "requirements.txt").write_text(requirements(wheel.name, extra), encoding="utf-8")
    return target


def build(names: list[str] | None = None, out: Path = DIST,
          metrics_dir: Path = METRICS) -> list[Path]:
    """Build the Spaces for ``names`` (default: every module), sharing one wheel."""
    available = module_names(metrics_dir)
    names = names or available
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"unknown metric module(s) {unknown}; available: {available}")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        wheel = build_wheel(Path(scratch))
        return [build_space(name, wheel, out, metrics_dir) for name in names]


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python spaces/build.py [NAME ...] [--out DIR]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="metric modules (default: all)")
    parser.add_argument("--out", type=Path, default=DIST, help=f"output folder (default {DIST})")
    args = parser.parse_args(argv)
    for folder in build(args.names or None, args.out):
        print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
