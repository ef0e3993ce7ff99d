"""The docs' examples run: every fenced block of README.md and docs/**/*.md is run or says why
not.

A fenced block preceded by ``<!-- runnable -->`` is run in a fresh temporary
directory: ``bash`` blocks with ``bash -euo pipefail``, ``python`` blocks with this
interpreter, ``pycon`` blocks as doctests. If the next fenced block is preceded by
``<!-- output -->``, the run's stdout must equal it (trailing spaces ignored), so the
docs cannot drift from what the code prints. A block that cannot run here (it installs
packages, needs a cluster, a Hub account or a web browser) is marked
``<!-- not runnable: why -->``; an unmarked block fails the suite, and most blocks must run.
``make demo`` and ``make test`` are never re-run from inside the test suite; their block
is checked for shape instead.

Every block runs with ``kpass`` on PATH (this interpreter's), the Hugging Face libraries
offline, and a temporary evaluate modules cache into which the metric modules are copied
once per session, so ``evaluate.load("pass_at_k_bayes")`` by bare name works as it does for
a user after ``python -m kpass.hf.install``.
"""

from __future__ import annotations

import configparser
import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\S*)\s*$")
MARKER = re.compile(r"^<!--\s*(runnable|output|not runnable)\b:?\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    language: str
    code: str
    line: int
    marker: str | None
    output: str | None = None
    reason: str = ""
    path: Path = README

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def read_blocks(text: str, path: Path = README) -> list[Block]:
    """Fenced blocks with the marker comment on the last non-blank line before each."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index, marker, reason = 0, None, ""
    while index < len(lines):
        line = lines[index]
        opening = FENCE.match(line)
        if opening:
            end = index + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            code = "\n".join(lines[index + 1:end]) + "\n"
            if marker == "output" and blocks and blocks[-1].marker == "runnable":
                blocks[-1].output = code
            blocks.append(Block(opening.group(1), code, index + 1, marker, reason=reason,
                                path=path))
            index, marker, reason = end + 1, None, ""
            continue
        found = MARKER.match(line.strip())
        if found:
            marker, reason = found.group(1), found.group(2)
        elif line.strip():
            marker, reason = None, ""
        index += 1
    return blocks


BLOCKS = [block for path in DOCS for block in read_blocks(path.read_text(encoding="utf-8"), path)]
# A ```{directive} block is a Sphinx directive of the docs site (docs/reference/api.md), not code.
CODE = [block for block in BLOCKS
        if block.marker != "output" and not block.language.startswith("{")]
RUNNABLE = [block for block in CODE if block.marker == "runnable"]


@pytest.fixture(scope="session")
def modules_cache(tmp_path_factory) -> Path:
    """evaluate's modules cache holding the metric modules, as after the install command."""
    cache = tmp_path_factory.mktemp("hf_modules")
    try:
        import evaluate  # noqa: F401
    except ImportError:
        return cache  # blocks that need evaluate fail with evaluate's own ImportError
    from kpass.hf.install import install_metric_modules

    install_metric_modules(modules_cache=cache)
    return cache


def _environment(tmp_path: Path, modules_cache: Path) -> dict[str, str]:
    # `kpass` on PATH is this interpreter's kpass, whatever environment runs the tests.
    shim = tmp_path / ".bin"
    shim.mkdir()
    script = shim / "kpass"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kpass.report.cli "$@"\n')
    script.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{shim}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["PYTHON"] = sys.executable
    env.update(HF_MODULES_CACHE=str(modules_cache), HF_HOME=str(tmp_path / "hf_home"),
               HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    return env


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def test_docs_have_runnable_blocks_with_checked_output():
    assert RUNNABLE, "no block of README.md or docs/**/*.md is marked <!-- runnable -->"
    assert any(block.output is not None for block in RUNNABLE)
    assert any("kpass report" in block.code for block in RUNNABLE)
    docs = ROOT / "docs"
    assert {block.path for block in RUNNABLE} >= {README, docs / "tutorial.md",
                                                  docs / "reference" / "command-line.md",
                                                  docs / "reference" / "python.md"}


def test_every_block_is_marked_and_most_run():
    unmarked = [block.where for block in CODE if block.marker is None]
    assert not unmarked, ("blocks without <!-- runnable --> or <!-- not runnable: why -->: "
                          f"{unmarked}")
    unexplained = [block.where for block in CODE
                   if block.marker == "not runnable" and not block.reason]
    assert not unexplained, f"<!-- not runnable --> without a reason: {unexplained}"
    stray = [block.where for block in BLOCKS if block.marker == "output"
             and not any(b.output == block.code and b.path == block.path
                         and b.line < block.line for b in RUNNABLE)]
    assert not stray, f"<!-- output --> blocks that follow no runnable block: {stray}"
    assert len(RUNNABLE) > len(CODE) / 2, (len(RUNNABLE), len(CODE))


# slow: each block is a fresh Python or shell process (1-6 s of CPU each, adaptive.md:367
# measured at 5.9 s), so `make check` leaves them to `make test`; run this file without -m
# after changing printed output.
@pytest.mark.slow
@pytest.mark.parametrize("block", RUNNABLE, ids=[block.where for block in RUNNABLE])
def test_doc_block_runs(block, tmp_path, modules_cache):
    work = tmp_path / "work"
    work.mkdir()
    env = _environment(tmp_path, modules_cache)
    if block.language in ("bash", "sh", "shell", "console"):
        command = ["bash", "-euo", "pipefail", "-c", block.code]
    elif block.language == "python":
        command = [sys.executable, "-c", block.code]
    elif block.language == "pycon":
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.code, {}, block.where, str(block.path), block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                       | doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0
        return
    else:
        pytest.fail(f"{block.where}: runnable block of unsupported language {block.language!r}")
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, f"{block.where} failed:\n{done.stderr}"
    if block.output is not None:
        assert _normalise(done.stdout) == _normalise(block.output)


def _commands(block: Block) -> list[str]:
    commands = []
    for line in block.code.splitlines():
        command = line.split("#", 1)[0].strip()
        if command:
            commands.append(command)
    return commands


def _section(text: str, title: str) -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_first_screen_installs_and_does_the_three_jobs():
    text = README.read_text(encoding="utf-8")
    titles = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert titles[:4] == ["Install", "Score a file", "Compare two models",
                          "Use it in a training loop"]
    jobs = {"Score a file": "kpass report", "Compare two models": "kpass compare",
            "Use it in a training loop": "evaluate.load"}
    for title, command in jobs.items():
        blocks = read_blocks(_section(text, title))
        assert any(command in block.code and block.marker == "runnable" for block in blocks)
        assert any(block.output is not None for block in blocks), title
    # The README reads in two minutes: its prose, outside the code, stays short.
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    assert len(prose.split()) < 700, len(prose.split())


def test_the_install_names_every_extra_and_the_current_wheel():
    install = _section(README.read_text(encoding="utf-8"), "Install")
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    # test and test-full are the suite's (make check, make test), not a user's
    extras = {name for name in config["options.extras_require"] if not name.startswith("test")}
    named = set(re.findall(r"\[(\w+)\]'", install))
    assert named == extras, (named, extras)
    init = (ROOT / "shared" / "kpass" / "__init__.py").read_text(encoding="utf-8")
    (version,) = re.findall(r'^__version__ = "([^"]+)"$', init, re.MULTILINE)
    wheels = set(re.findall(r"kpass-[^\s'/]+\.whl", install))
    assert wheels == {f"kpass-{version}-py3-none-any.whl"}, wheels


def test_quickstart_is_exactly_two_commands_demo_then_test():
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    blocks = read_blocks(_section(text, "Quickstart"))
    commands = [command for block in blocks for command in _commands(block)
                if not command.startswith(("git clone", "cd "))]
    assert commands == ["make demo", "make test"]
    assert all(block.marker == "not runnable" for block in blocks)


def test_quickstart_targets_do_what_the_docs_say():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    demo = re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    test = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert demo and "kpass report" in demo.group(1)
    assert test and "pytest" in test.group(1)
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_block_reader_pairs_markers_and_outputs():
    text = ("<!-- runnable -->\n```bash\necho hi\n```\n\n<!-- output -->\n```text\nhi\n```\n"
            "\n```bash\nnot marked\n```\n\n<!-- not runnable: needs a cluster -->\n```python\n"
            "x\n```\n")
    first, output, plain, cluster = read_blocks(text)
    assert (first.marker, first.output, first.line) == ("runnable", "hi\n", 2)
    assert output.marker == "output" and plain.marker is None
    assert (cluster.marker, cluster.reason) == ("not runnable", "needs a cluster")
