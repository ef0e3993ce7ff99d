"""The wheel works alone: in a fresh venv holding only the wheel and its ``[evaluate]`` extra,
``python -m kpass.hf.install`` (no ``--source``) installs the metric scripts the
wheel carries, and ``evaluate.load("<name>")`` by bare name computes from any directory.

One venv for the whole file (pip's cache keeps it to a minute or two).
"""

import importlib.util
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.install]

REPO = Path(__file__).resolve().parents[2]
NAMES = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file())
COMPARISONS = sorted(p.name for p in (REPO / "comparisons").iterdir()
                     if (p / f"{p.name}.py").is_file())


def load_builder():
    spec = importlib.util.spec_from_file_location("kpass_spaces_build_w", REPO / "spaces" /
                                                  "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return load_builder().build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_carries_each_metric_script_and_card_once(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for name in NAMES:
        assert f"kpass/metrics/{name}/{name}.py" in names
        assert f"kpass/metrics/{name}/README.md" in names
    for name in COMPARISONS:
        assert f"kpass/comparisons/{name}/{name}.py" in names
    assert not [n for n in names if n.endswith("/app.py")]


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory):
    root = tmp_path_factory.mktemp("wheel_alone")
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "HF_MODULES_CACHE")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    subprocess.run([str(python), "-m", "pip", "install", "-q", f"{wheel}[evaluate]"], env=env,
                   check=True)
    env.update(HF_HUB_OFFLINE="1", HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               HF_HOME=str(root / "hf_home"))
    anywhere = root / "anywhere"
    anywhere.mkdir()
    return python, anywhere, env


def test_install_then_load_by_bare_name_from_any_directory(venv):
    python, anywhere, env = venv
    installed = subprocess.run([str(python), "-m", "kpass.hf.install"],
                               cwd=anywhere, env=env, capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    assert len(installed.stdout.split()) == len(NAMES) + len(COMPARISONS)
    script = "\n".join([
        "import json, evaluate, kpass",
        "assert 'site-packages' in kpass.__file__, kpass.__file__",
        "m = evaluate.load('pass_at_k_bayes')",
        "r = m.compute(predictions=[[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], k=[1, 2])",
        "v = evaluate.load('vote_at_k_bayes').compute(predictions=[['a', 'b', 'a']],",
        "                                             references=['a'], k=1)",
        "c = evaluate.load('kpass_compare', module_type='comparison')",
        "d = c.compute(predictions1=[[1, 1], [0, 1]], predictions2=[[0, 1], [0, 0]])",
        "print(json.dumps({'pass@2': r['pass@2'], 'vote@1': v['vote@1'],",
        "                  'difference': d['pass@1_difference']}))",
    ])
    result = subprocess.run([str(python), "-c", script], cwd=anywhere, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    import json
    from fractions import Fraction

    values = json.loads(result.stdout.strip().splitlines()[-1])
    # Exact references: Pass@2 = mean(1 - C(n-c, 2)/C(n, 2)) with (n, c) = (5, 3), (5, 4);
    # vote@1 of ['a', 'b', 'a'] against 'a' is the chance one draw is 'a', 2/3.
    assert values["pass@2"] == pytest.approx(float((1 - Fraction(1, 10) + 1) / 2), abs=1e-15)
    # the comparison from the wheel: Pass@1 of A (1, 1/2) minus B's (1/2, 0) is 1/2
    assert values["difference"] == pytest.approx(0.5, abs=1e-15)
    assert values["vote@1"] == pytest.approx(2 / 3, abs=1e-15)
