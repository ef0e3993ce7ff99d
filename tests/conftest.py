"""Suite-wide settings: no test's outcome may depend on the machine's speed or on chance.

Hypothesis measures each example's run time (its 200 ms ``deadline``) and the speed of data
generation (the ``too_slow`` health check): on a loaded CI machine either fails a test that
is correct. Both are switched off for every property test, and examples are drawn from a
fixed seed (``derandomize``) with no example database, so a run fails or passes the same way
on every machine. Test-local ``settings(...)`` inherit this profile and may add to it.

The markers stay honest: ``make check`` (the inner loop) leaves out the tests marked
``slow``, ``install``, ``browser`` or ``cluster``, so a test that grew slow without a mark
would slow every maintainer's loop unnoticed. :func:`pytest_runtest_call` times each test's
call in CPU seconds and fails an unmarked one over ``CPU_LIMIT``, naming it. The inner loop
also draws fewer examples per property test (``KPASS_TEST_EXAMPLES``, see
:func:`pytest_collection_modifyitems`); ``make test`` and CI draw them all.
"""

import importlib.util
import math
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

#: Hypothesis keeps a test's settings here (read when the test runs; hypothesis 6.x).
_SETTINGS_ATTRIBUTE = "_hypothesis_internal_use_settings"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Scale each property test's ``max_examples`` by ``KPASS_TEST_EXAMPLES`` (default 1).

    ``make check`` sets 0.3: the inner loop draws 30% of each test's examples (at least 10),
    from the same fixed seed, so it still meets every property test's generators while the
    whole suite (``make test``, CI) draws them all.
    """
    share = float(os.environ.get("KPASS_TEST_EXAMPLES", "1"))
    if not 0 < share <= 1:
        raise pytest.UsageError(f"KPASS_TEST_EXAMPLES must be in (0, 1]; got {share!r}")
    if share == 1:
        return
    scaled: set[int] = set()  # a parametrized test's items share one function: scale it once
    for item in items:
        test = getattr(item, "function", None)
        if test is None or not getattr(test, "is_hypothesis_test", False) or id(test) in scaled:
            continue
        scaled.add(id(test))
        current = getattr(test, _SETTINGS_ATTRIBUTE, None)
        if current is None:  # hypothesis moved its settings: scale nothing rather than guess
            raise pytest.UsageError(f"{item.nodeid}: hypothesis keeps no {_SETTINGS_ATTRIBUTE}; "
                                    "update tests/conftest.py for this hypothesis version")
        fewer = max(10, math.ceil(current.max_examples * share))
        if fewer < current.max_examples:
            setattr(test, _SETTINGS_ATTRIBUTE, settings(current, max_examples=fewer))


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
