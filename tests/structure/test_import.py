"""`import kpass` stays light: heavy libraries load only when a function needs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"

HEAVY = ["scipy.stats", "matplotlib", "pyarrow", "pandas", "evaluate"]


def _modules_after(code: str) -> set[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SHARED), *filter(None, [os.environ.get("PYTHONPATH")])]))
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], env=env, check=True,
                         capture_output=True, text=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_import_kpass_loads_no_heavy_library():
    loaded = _modules_after("import kpass")
    assert "kpass" in loaded and "scipy.special" in loaded
    assert not [name for name in HEAVY if name in loaded]


@pytest.mark.parametrize("call", [
    "kpass.pass_at_k_ci([[0, 1, 1]], 2)",
    "kpass.g_pass_at_k_tau_ci([[0, 1, 1, 1]], 3, 0.5)",
    pytest.param("kpass.vote_at_k([['a', 'b', 'a']], ['a'], 2)",
                 marks=pytest.mark.slow),  # 2.0 s of CPU in the fast run
])
def test_core_calls_stay_light(call):
    loaded = _modules_after(f"import kpass\n{call}")
    assert not [name for name in ["matplotlib", "pyarrow", "pandas", "evaluate"]
                if name in loaded]


def test_the_check_sees_a_heavy_import():
    # The subprocess really reports what was imported (the test above can fail).
    assert "scipy.stats" in _modules_after("import kpass, scipy.stats")
