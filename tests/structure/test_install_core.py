"""The wheel alone, as a new user installs it: numpy and scipy, no extras (no pyarrow, no
pandas, no matplotlib). ``kpass report`` reads the bundled sample, JSONL, CSV and long files
by ``--id`` through the line-by-line readers and gives the numbers numpy gives; a format that
needs an extra says so in one line.

One venv for the whole file (pip's cache keeps it to a minute or two).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kpass.data import tau_bench_outcomes

pytestmark = [pytest.mark.slow, pytest.mark.install]

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"


def load_builder():
    import importlib.util

    spec = importlib.util.spec_from_file_location("kpass_spaces_build_core",
                                                  REPO / "spaces" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """A fresh venv holding the wheel and its two dependencies only."""
    root = tmp_path_factory.mktemp("core_alone")
    wheel = load_builder().build_wheel(root)
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], env=env, check=True)
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"], env=env,
                            capture_output=True, text=True, check=True)
    installed = {row["name"].lower() for row in json.loads(listed.stdout)}
    assert not installed & {"pyarrow", "pandas", "polars", "matplotlib", "narwhals"}, installed
    work = root / "work"
    work.mkdir()
    return root / "venv" / "bin" / "kpass", work, env


def kpass(core, *args):
    executable, work, env = core
    return subprocess.run([str(executable), *map(str, args)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)


def estimates(core, *args):
    """``{label: estimate}`` of ``kpass report ... --format json``."""
    done = kpass(core, "report", *args, "--format", "json", "--metrics", "pass@k,pass^k",
                 "--k", "1,4")
    assert done.returncode == 0, done.stderr
    return {row["label"]: row["estimate"] for row in json.loads(done.stdout)["results"]}


def expected(R):
    """Pass@k and Pass^k from numpy, by their definitions (all rows have n = 4 here)."""
    R = np.asarray(R)
    assert R.shape[1] == 4
    c = R.sum(axis=1)
    return {"Pass@1": c.mean() / 4, "Pass^1": c.mean() / 4,
            "Pass@4": float(np.mean(c > 0)), "Pass^4": float(np.mean(c == 4))}


R = np.random.default_rng(7).integers(0, 2, size=(40, 4))


def test_the_bundled_sample_is_reported_without_any_extra(core):
    done = kpass(core, "report")  # what `make demo` runs
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "50 questions, 4 samples each" in done.stdout and "Pass^4" in done.stdout
    assert estimates(core) == pytest.approx(expected(tau_bench_outcomes()), abs=1e-15)


def test_jsonl_csv_and_gzip_read_without_pyarrow(core):
    _, work, _ = core
    with open(work / "runs.jsonl", "w") as f:
        for i, row in enumerate(R):
            f.write(json.dumps({"id": f"q{i}", "outcomes": row.tolist()}) + "\n")
    with open(work / "runs.csv", "w") as f:
        f.write("id,correct\n")
        for i, row in enumerate(R):
            f.write(f"q{i},\"{row.tolist()}\"\n")
    import gzip

    (work / "runs.jsonl.gz").write_bytes(gzip.compress((work / "runs.jsonl").read_bytes()))
    for name in ("runs.jsonl", "runs.csv", "runs.jsonl.gz"):
        assert estimates(core, name) == pytest.approx(expected(R), abs=1e-15), name


def test_long_files_by_id_read_without_pyarrow(core):
    _, work, _ = core
    order = np.random.default_rng(3).permutation(R.size)  # rows shuffled, as logs are
    cells = [(i, j, int(R[i, j])) for i in range(R.shape[0]) for j in range(R.shape[1])]
    cells = [cells[t] for t in order]
    with open(work / "long.csv", "w") as f:
        f.write("question_id,sample,correct\n")
        f.writelines(f"q{i},{j},{x}\n" for i, j, x in cells)
    with open(work / "long.jsonl", "w") as f:
        f.writelines(json.dumps({"question_id": f"q{i}", "sample": j, "correct": x}) + "\n"
                     for i, j, x in cells)
    for name in ("long.csv", "long.jsonl"):
        found = estimates(core, name, "--id", "question_id", "--sample", "sample",
                          "--column", "correct")
        assert found == pytest.approx(expected(R), abs=1e-15), name


def test_a_format_that_needs_pyarrow_says_so_in_one_line(core):
    parquet = FIXTURES / "lighteval" / "details_kp_gen_0_2026-11-23T08-39-44.002695.parquet"
    done = kpass(core, "report", parquet)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "needs pyarrow" in done.stderr and parquet.name in done.stderr, done.stderr
