"""The device that keeps the marks honest (tests/conftest.py, ``pytest_runtest_call``).

A planted suite, run by pytest in a subprocess with the suite's own conftest and a tiny
CPU limit: an unmarked test that spends CPU over the limit fails, naming itself and the mark
to add; the same work marked ``slow`` or ``install`` passes; sleeping (a loaded machine's
wall time) costs no CPU and passes; CPU spent in a child process counts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# A second pytest with the suite's conftest: about 3 s of CPU, more than the mark's 2 s.
pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parents[1]

PLANTED = '''
import subprocess
import sys
import time

import pytest

BURN = "import time\\nt = time.process_time()\\nwhile time.process_time() - t < 0.3: pass"


def burn():
    exec(BURN)


def test_busy_unmarked():
    burn()


@pytest.mark.slow
def test_busy_marked_slow():
    burn()


@pytest.mark.install
def test_busy_marked_install():
    burn()


def test_sleeps():
    time.sleep(0.4)


def test_busy_child():
    subprocess.run([sys.executable, "-c", BURN], check=True)


def test_quick():
    assert sum(range(10)) == 45
'''

INI = """[pytest]
markers =
    slow: x
    install: x
    browser: x
    cluster: x
"""


def test_an_unmarked_test_over_the_cpu_limit_fails_naming_itself(tmp_path):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text(INI, encoding="utf-8")
    (tmp_path / "test_planted.py").write_text(PLANTED, encoding="utf-8")
    env = {**os.environ, "KPASS_TEST_CPU_LIMIT": "0.15"}
    env.pop("KPASS_TEST_CPU_LOG", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-p", "no:randomly", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "2 failed, 4 passed" in out, out
    for name in ("test_busy_unmarked", "test_busy_child"):
        assert f"FAILED test_planted.py::{name} - " in out, out
        assert f"test_planted.py::{name} took " in out, out
    assert "over the 0.15 s an unmarked test may take: mark it @pytest.mark.slow" in out, out
    for name in ("test_busy_marked_slow", "test_busy_marked_install", "test_sleeps",
                 "test_quick"):
        assert f"::{name} " not in out, out


PLANTED_PROPERTIES = '''
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

CALLS = {"plain": 0, "parametrized": 0, "few": 0}


@settings(max_examples=100)
@given(st.integers())
def test_plain(value):
    CALLS["plain"] += 1


@settings(max_examples=100)
@given(st.integers())
@pytest.mark.parametrize("side", ["a", "b"])
def test_parametrized(side, value):
    CALLS["parametrized"] += 1


@settings(max_examples=12)
@given(st.integers())
def test_few(value):
    CALLS["few"] += 1


def test_zz_counts():
    print("CALLS", CALLS)
'''


@pytest.mark.parametrize(("share", "expected"), [
    (None, "{'plain': 100, 'parametrized': 200, 'few': 12}"),
    ("0.3", "{'plain': 30, 'parametrized': 60, 'few': 10}"),  # at least 10 each
])
def test_the_inner_loop_draws_a_share_of_each_property_tests_examples(tmp_path, share,
                                                                       expected):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text(INI, encoding="utf-8")
    (tmp_path / "test_planted.py").write_text(PLANTED_PROPERTIES, encoding="utf-8")
    env = {key: value for key, value in os.environ.items()
           if key not in ("KPASS_TEST_CPU_LOG", "KPASS_TEST_EXAMPLES")}
    if share is not None:
        env["KPASS_TEST_EXAMPLES"] = share
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:xdist",
         str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"CALLS {expected}" in result.stdout, result.stdout


def test_a_share_outside_0_1_is_refused(tmp_path):
    shutil.copy(TESTS / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "pytest.ini").write_text(INI, encoding="utf-8")
    (tmp_path / "test_planted.py").write_text(PLANTED_PROPERTIES, encoding="utf-8")
    env = {**os.environ, "KPASS_TEST_EXAMPLES": "3"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0
    assert "KPASS_TEST_EXAMPLES must be in (0, 1]; got 3.0" in result.stdout + result.stderr
