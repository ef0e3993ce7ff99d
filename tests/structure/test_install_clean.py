"""A clean install: building kpass and installing it, with every extra, prints no warning.

As a user installs it, from a clean copy of the checkout, in a fresh venv whose pip is
upgraded first (as ``make demo`` does: pip 25 and later show every warning the build
backend emits, even with ``-q``): ``pip wheel .`` (an isolated build with the setuptools
``pyproject.toml`` asks for), the wheel with all its extras, ``pip install .`` (what
``make demo`` runs) and ``pip install -e .`` (what ``make test`` runs). Each step runs with
``-v`` so that setuptools' own output (licence classifiers, "Package would be ignored", ...)
is shown too, and fails on any line that warns. Let through are only pip's notes about this
machine's pip configuration (an extra index folder that does not exist), which say nothing
about kpass, and, for the editable install alone, setuptools' notice that it made one
("Editable installation": setuptools announces every editable install that maps package
folders through its import finder, as ``setup.cfg``'s ``package_dir`` does). The version
the metadata carries is ``kpass.__version__`` and ``kpass --version``.

One venv for the whole file (pip's cache keeps it to a few minutes).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.install]

REPO = Path(__file__).resolve().parents[2]
EXTRAS = ("evaluate", "report", "frames", "spaces", "inspect", "test")
WARNING = re.compile(r"warn|deprecat|would be ignored|is absent from", re.IGNORECASE)
# pip's notes on this machine's configuration (PIP_EXTRA_INDEX_URL naming a folder that is
# not there), printed by every pip command whatever it installs.
MACHINE = re.compile(r"^WARNING: Location '[^']*' is ignored: it is neither a file nor a "
                     r"directory\.$")


# setuptools' InformationOnly notice after an editable install (pip >= 25 shows it as a
# BuildBackendWarning); the editable step alone lets it through.
EDITABLE = re.compile(r"(BuildBackendWarning|InformationOnly): Editable installation\.$")


# pip's resolver progress notice ("INFO: This is taking longer than usual ... See
# https://pip.pypa.io/warnings/backtracking"): an INFO line about pip's own search among
# the extras' dependencies, not a warning about kpass's package; its link says "warnings".
RESOLVER = re.compile(r"^INFO: ")


def warnings_in(output: str, editable: bool = False) -> list[str]:
    """The lines of a pip run that warn, this machine's pip-configuration notes and pip's
    resolver INFO lines left out."""
    return [line for line in output.splitlines()
            if WARNING.search(line) and not MACHINE.match(line.strip())
            and not RESOLVER.match(line.strip())
            and not (editable and EDITABLE.search(line.strip()))]


def test_the_warning_filter_catches_what_setuptools_printed():
    printed = (
        "  /tmp/x/setuptools/dist.py:765: SetuptoolsDeprecationWarning: License classifiers "
        "are deprecated.\n"
        "          # Package would be ignored #\n"
        "  warning: build_py: byte-compiling is disabled, skipping.\n"
        "WARNING: Location 'file:///opt/pypi-more/simple/rich/' is ignored: it is neither a "
        "file nor a directory.\n"
        "Successfully built kpass\n")
    assert len(warnings_in(printed)) == 3
    notice = ("  /tmp/x/setuptools/command/editable_wheel.py:354: BuildBackendWarning: Editable "
              "installation.\n")
    assert len(warnings_in(notice)) == 1 and warnings_in(notice, editable=True) == []
    assert len(warnings_in(printed, editable=True)) == 3


def environment() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONDONTWRITEBYTECODE")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def run(command: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, env=environment(), capture_output=True, text=True,
                          timeout=1200, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{command} failed:\n{output[-4000:]}"
    return output


def clean_copy(root: Path) -> Path:
    """The files a checkout builds from, without stale build/ or egg-info folders."""
    source = root / "kpass"
    source.mkdir()
    for name in ("setup.cfg", "pyproject.toml", "README.md", "LICENSE"):
        if (REPO / name).is_file():
            shutil.copy2(REPO / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    shutil.copytree(REPO / "shared" / "kpass", source / "shared" / "kpass", ignore=ignore)
    for folder in ("metrics", "comparisons"):
        shutil.copytree(REPO / folder, source / folder, ignore=ignore)
    return source


STEPS = ("pip wheel .", "pip install wheel[all extras]", "pip install .", "pip install -e .")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(source, wheel, venv python, {step: output}) after the installs, in STEPS order."""
    root = tmp_path_factory.mktemp("clean_install")
    source = clean_copy(root)
    run([sys.executable, "-m", "venv", str(root / "venv")])
    python = root / "venv" / "bin" / "python"
    pip = [str(python), "-m", "pip"]
    run([*pip, "install", "-q", "--upgrade", "pip"])
    outputs = {}
    outputs[STEPS[0]] = run([*pip, "wheel", "--no-deps", "-v", "-w", str(root / "dist"),
                             str(source)])
    (wheel,) = (root / "dist").glob("kpass-*.whl")
    outputs[STEPS[1]] = run([*pip, "install", "-v", f"{wheel}[{','.join(EXTRAS)}]"])
    outputs[STEPS[2]] = run([*pip, "install", "-v", "--no-deps", "--force-reinstall",
                             str(source)], cwd=source)
    outputs[STEPS[3]] = run([*pip, "install", "-v", "--no-deps", "-e", str(source)],
                            cwd=source)
    return source, wheel, python, outputs


@pytest.mark.parametrize("step", STEPS)
def test_no_step_of_the_install_warns(installed, step):
    output = installed[3][step]
    assert output.strip()
    found = warnings_in(output, editable=step == "pip install -e .")
    assert not found, f"{step} printed warnings:\n" + "\n".join(found[:40])


def test_the_wheel_declares_its_licence_as_an_spdx_expression(installed):
    wheel = installed[1]
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(archive.read(name).decode())
    assert metadata["License-Expression"] == "MIT"
    assert not [c for c in metadata.get_all("Classifier", []) if c.startswith("License ::")]
    assert metadata["Version"] == wheel.name.split("-")[1]


def test_one_version_in_the_metadata_the_module_and_the_command(installed):
    source, wheel, python, _ = installed
    elsewhere = source.parent / "elsewhere"  # not beside the source's kpass/ folder
    elsewhere.mkdir(exist_ok=True)
    init = (REPO / "shared" / "kpass" / "__init__.py").read_text(encoding="utf-8")
    (written,) = re.findall(r'^__version__ = "([^"]+)"$', init, re.MULTILINE)
    assert wheel.name.startswith(f"kpass-{written}-")
    script = ("import importlib.metadata as m, kpass; "
              "print(m.version('kpass'), kpass.__version__)")
    versions = run([str(python), "-c", script], cwd=elsewhere).split()
    assert versions == [written, written]
    command = run([str(python.parent / "kpass"), "--version"], cwd=elsewhere)
    assert command.strip() == f"kpass {written}"


def test_the_built_version_follows_kpass_version(tmp_path):
    """Changing ``__version__`` alone changes the built package's version (no second copy)."""
    source = clean_copy(tmp_path)
    init = source / "shared" / "kpass" / "__init__.py"
    text = init.read_text(encoding="utf-8")
    assert len(re.findall(r'^__version__ = "[^"]+"$', text, re.MULTILINE)) == 1
    init.write_text(re.sub(r'^__version__ = "[^"]+"$', '__version__ = "9.8.7"', text,
                           flags=re.MULTILINE), encoding="utf-8")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"),
         str(source)])
    assert [wheel.name for wheel in (tmp_path / "dist").glob("*.whl")] == [
        "kpass-9.8.7-py3-none-any.whl"]
