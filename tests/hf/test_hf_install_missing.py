"""``python -m kpass.hf.install`` without the evaluate extra: one line on stderr naming the
extra, a non-zero exit, no traceback. The absence is simulated in a subprocess (an import
hook refuses ``evaluate``), so the test runs whether or not evaluate is installed here."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCK_EVALUATE = textwrap.dedent("""
    import importlib.abc
    import runpy
    import sys

    class NoEvaluate(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "evaluate" or name.startswith("evaluate."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.modules.pop("evaluate", None)
    sys.meta_path.insert(0, NoEvaluate())
""")


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCK_EVALUATE + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120)


def test_the_install_command_says_which_extra_in_one_line():
    done = run("""
        sys.argv = ["python -m kpass.hf.install"]
        runpy.run_module("kpass.hf.install", run_name="__main__", alter_sys=True)
    """)
    assert done.returncode != 0
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "pip install 'kpass[evaluate]'" in lines[0]
    assert "No module named 'evaluate'" in lines[0]


def test_importing_the_module_without_evaluate_still_raises_import_error():
    # A library import is not the command: the caller gets the ImportError to handle.
    done = run("""
        try:
            import kpass.hf.install
        except ImportError as error:
            print("ImportError", error.name)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ImportError", "evaluate"]


def test_the_hook_blocks_only_evaluate():
    # The simulation is what it claims: kpass itself still imports under the hook.
    done = run("""
        import kpass
        try:
            import evaluate
        except ModuleNotFoundError:
            print("blocked", kpass.pass_at_k([[1, 0]], 1))
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["blocked", "0.5"]
