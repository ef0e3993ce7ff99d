"""A built Space works alone: copied into an empty folder, in a fresh venv with only its
requirements.txt installed (from PyPI, through pip's cache), it serves ``python app.py`` and
``evaluate.load("<folder>")`` computes the card's example.

One representative Space (pass_at_k_bayes) to bound CI time: every Space is built the
same way from the same app and wheel. A few minutes on a cold pip cache, under a minute warm.
"""

import doctest
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# A fresh venv and pip installs from the index: minutes, outside `make check`.
pytestmark = [pytest.mark.slow, pytest.mark.install]
NAME = "pass_at_k_bayes"


def load_builder():
    spec = importlib.util.spec_from_file_location("kpass_spaces_build_sc", REPO / "spaces" /
                                                  "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def card_example(folder):
    """The ``>>>`` examples of the Space's card (else of the script's docstring)."""
    parser = doctest.DocTestParser()
    for source in (folder / "README.md", folder / f"{NAME}.py"):
        examples = parser.get_examples(source.read_text(encoding="utf-8"))
        if examples:
            return examples
    raise AssertionError("the card has no runnable example")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def space_env(tmp_path_factory):
    root = tmp_path_factory.mktemp("alone")
    built = load_builder().build([NAME], out=tmp_path_factory.mktemp("dist"))[0]
    empty = root / "empty"
    empty.mkdir()
    folder = Path(shutil.copytree(built, empty / NAME))
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", "requirements.txt"],
                   cwd=folder, env=env, check=True)
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", GRADIO_ANALYTICS_ENABLED="False",
               HF_HOME=str(root / "hf_home"), MPLBACKEND="Agg")
    return python, empty, folder, env


def test_only_the_requirements_are_installed(space_env):
    python, empty, folder, env = space_env
    out = subprocess.run([str(python), "-c", "import kpass, sys; print(kpass.__file__)"],
                         cwd=empty, env=env, capture_output=True, text=True, check=True).stdout
    assert str(REPO) not in out and "site-packages" in out


def test_evaluate_load_of_the_folder_computes_the_card_example(space_env):
    python, empty, folder, env = space_env
    examples = card_example(folder)
    script = ["import doctest, sys",
              f"examples = {[(e.source, e.want.split('```')[0]) for e in examples]!r}",
              "test = doctest.DocTest([doctest.Example(s, w) for s, w in examples], {},",
              "                       'card', None, 0, None)",
              "runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)",
              "runner.run(test)",
              "sys.exit(1 if runner.failures else 0)"]
    result = subprocess.run([str(python), "-c", "\n".join(script)], cwd=empty, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert any(f'evaluate.load("{NAME}")' in e.source for e in examples)


def test_python_app_py_serves_the_demo(space_env):
    python, empty, folder, env = space_env
    port = free_port()
    env = {**env, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port)}
    process = subprocess.Popen([str(python), "app.py"], cwd=folder, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        page = ""
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=2) as r:
                    page = r.read().decode()
                    break
            except OSError:
                time.sleep(0.5)
        assert process.poll() is None, process.stdout.read().decode()
        assert NAME in page and "kpass-table" in page
        assert "kpass-board-table" in page  # the Leaderboard tab, shipped beside app.py
    finally:
        process.terminate()
        process.wait(timeout=10)
