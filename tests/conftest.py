"""Suite-wide settings: no test's outcome may depend on the machine's speed or on chance.

Hypothesis measures each example's run time (its 200 ms ``deadline``) and the speed of data
generation (the ``too_slow`` health check): on a loaded CI machine either fails a test that
is correct. Both are switched off for every property test, and examples are drawn from a
fixed seed (``derandomize``) with no example database, so a run fails or passes the same way
on every machine. Test-local ``settings(...)`` inherit this profile and may add to it.

The markers stay honest: ``make check`` (the inner loop) leaves out the tests marked
``slow``, ``install``, ``browser`` or ``cluster``, so a test that grew slow without a mark
would slow every maintainer's loop unnoticed. :func:`pytest_runtest_call` times each test's
call in CPU seconds and fails an unmarked one over ``CPU_LIMIT``, naming it.
"""

import importlib.util
import os
import resource
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

#: CPU seconds one unmarked test's call may take (its own process plus the children it waited
#: for: a CLI run in a subprocess counts). Tests of 2 s or more are marked; the limit is 2.5
#: times that because CPU time, unlike wall time, does not grow when the machine is shared
#: (the collection takes 23 s of CPU whether it lasts 60 s idle or 600 s under a load of 17),
#: so what is left to absorb is a slower CPU (CI's or a laptop's, up to 2x) and noise.
#: Fixture setup is not counted: imports of heavy libraries belong in (module) fixtures,
#: which the first test of a worker would otherwise pay for. KPASS_TEST_CPU_LIMIT overrides
#: it (0 turns the check off); KPASS_TEST_CPU_LOG=<file> appends each test's CPU seconds.
CPU_LIMIT = 5.0
REPO = Path(__file__).resolve().parent.parent

#: The marks that take a test out of ``make check`` (registered in pyproject.toml).
OUTSIDE_THE_LOOP = ("slow", "install", "browser", "cluster")

settings.register_profile(
    "kpass", deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("kpass")


def load_space_script(name: str) -> ModuleType:
    """``spaces/<name>.py`` loaded by path, once per process (``kpass_tests_space_<name>``).

    ``spaces/`` is a folder of scripts, not a package (``spaces`` is Hugging Face's ZeroGPU
    package): the app loads its page modules beside it as its own submodules
    (``app.space_input``, ... ``app.leaderboard_tab``), as it does in a built Space.
    """
    # Not ``kpass_space_app``: each metric's app.py (run by tests/hf/test_metric_modules.py)
    # loads the Space under that name and replaces it in sys.modules, which would hand the
    # tests a second copy of the page whose submodules belong to the first.
    module_name = f"kpass_tests_space_{name}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, REPO / "spaces" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
    return sys.modules[module_name]


@pytest.fixture(scope="session")
def space_app() -> ModuleType:
    """The Space's ``app.py`` with its page modules (skipped without evaluate and gradio).

    A fixture, not a module-level import: gradio and evaluate then load when a Space test
    runs, not while every run collects the suite.
    """
    pytest.importorskip("evaluate")
    pytest.importorskip("gradio")
    return load_space_script("app")


@pytest.fixture(scope="session")
def space_build() -> ModuleType:
    """The Space builder, ``spaces/build.py``."""
    pytest.importorskip("yaml")
    return load_space_script("build")


@pytest.fixture(scope="session")
def space_publish() -> ModuleType:
    """The Space publisher, ``spaces/publish.py`` (skipped without huggingface_hub)."""
    pytest.importorskip("huggingface_hub")
    return load_space_script("publish")


def _cpu_seconds() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Fail an unmarked test whose call takes more than ``CPU_LIMIT`` CPU seconds."""
    limit = float(os.environ.get("KPASS_TEST_CPU_LIMIT", CPU_LIMIT))
    log = os.environ.get("KPASS_TEST_CPU_LOG")
    start = _cpu_seconds()
    try:
        result = yield  # a failing test's error passes through unchanged
    finally:
        spent = _cpu_seconds() - start
        if log:
            with open(log, "a", encoding="utf-8") as out:
                out.write(f"{spent:.3f} {item.nodeid}\n")
    marks = [name for name in OUTSIDE_THE_LOOP if item.get_closest_marker(name)]
    if limit > 0 and spent > limit and not marks:
        pytest.fail(f"{item.nodeid} took {spent:.1f} s of CPU, over the {limit:g} s an "
                    "unmarked test may take: mark it @pytest.mark.slow (or install, browser, "
                    "cluster) so that `make check` leaves it out, or make it faster "
                    "(tests/conftest.py, CPU_LIMIT)", pytrace=False)
    return result
