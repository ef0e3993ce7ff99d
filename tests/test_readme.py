"""The README's examples run: every fenced block marked runnable, and the two-command quickstart.

A fenced block preceded by ``<!-- runnable -->`` is run in a fresh temporary
directory: ``bash`` blocks with ``bash -euo pipefail``, ``python`` blocks with this
interpreter, ``pycon`` blocks as doctests. If the next fenced block is preceded by
``<!-- output -->``, the run's stdout must equal it (trailing spaces ignored), so the
README cannot drift from what the code prints. ``make demo`` and ``make test`` are
never re-run from inside the test suite; their block is marked not runnable and
checked for shape instead.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\S*)\s*$")
MARKER = re.compile(r"^<!--\s*(runnable|output|not runnable)\b.*-->\s*$")


@dataclass
class Block:
    language: str
    code: str
    line: int
    marker: str | None
    output: str | None = None


def read_blocks(text: str) -> list[Block]:
    """Fenced blocks with the marker comment on the last non-blank line before each."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index, marker = 0, None
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
            blocks.append(Block(opening.group(1), code, index + 1, marker))
            index, marker = end + 1, None
            continue
        found = MARKER.match(line.strip())
        if found:
            marker = found.group(1)
        elif line.strip():
            marker = None
        index += 1
    return blocks


BLOCKS = read_blocks(README.read_text(encoding="utf-8"))
RUNNABLE = [block for block in BLOCKS if block.marker == "runnable"]


def _environment(tmp_path: Path) -> dict[str, str]:
    # `kpass` on PATH is this interpreter's kpass, whatever environment runs the tests.
    shim = tmp_path / ".bin"
    shim.mkdir()
    script = shim / "kpass"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kpass.cli "$@"\n')
    script.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{shim}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["PYTHON"] = sys.executable
    return env


def _normalise(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def test_readme_has_runnable_blocks_with_checked_output():
    assert RUNNABLE, "no block of README.md is marked <!-- runnable -->"
    assert any(block.output is not None for block in RUNNABLE)
    assert any("kpass report" in block.code for block in RUNNABLE)


@pytest.mark.parametrize("block", RUNNABLE, ids=[f"line{block.line}" for block in RUNNABLE])
def test_readme_block_runs(block, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    env = _environment(tmp_path)
    if block.language in ("bash", "sh", "shell", "console"):
        command = ["bash", "-euo", "pipefail", "-c", block.code]
    elif block.language == "python":
        command = [sys.executable, "-c", block.code]
    elif block.language == "pycon":
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block.code, {}, f"README.md:{block.line}", str(README),
                                  block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                       | doctest.ELLIPSIS)
        runner.run(test)
        assert runner.failures == 0
        return
    else:
        pytest.fail(f"README.md:{block.line}: runnable block of unsupported language "
                    f"{block.language!r}")
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, f"README.md:{block.line} failed:\n{done.stderr}"
    if block.output is not None:
        assert _normalise(done.stdout) == _normalise(block.output)


def _commands(block: Block) -> list[str]:
    commands = []
    for line in block.code.splitlines():
        command = line.split("#", 1)[0].strip()
        if command:
            commands.append(command)
    return commands


def test_quickstart_is_exactly_two_commands_demo_then_test():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = read_blocks(section)
    commands = [command for block in blocks for command in _commands(block)
                if not command.startswith(("git clone", "cd "))]
    assert commands == ["make demo", "make test"]
    # The quickstart is the README's first code, so `make demo` is the first command.
    first = read_blocks(text)[0]
    assert _commands(first)[0] in ("make demo",) or _commands(first)[0].startswith("git clone")
    assert all(block.marker == "not runnable" for block in blocks)


def test_quickstart_targets_do_what_the_readme_says():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    demo = re.search(r"^demo:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    test = re.search(r"^test:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert demo and "kpass report" in demo.group(1)
    assert test and "pytest" in test.group(1)
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_block_reader_pairs_markers_and_outputs():
    text = ("<!-- runnable -->\n```bash\necho hi\n```\n\n<!-- output -->\n```text\nhi\n```\n"
            "\n```bash\nnot marked\n```\n")
    first, output, plain = read_blocks(text)
    assert (first.marker, first.output, first.line) == ("runnable", "hi\n", 2)
    assert output.marker == "output" and plain.marker is None
