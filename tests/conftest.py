"""Suite-wide settings: no test's outcome may depend on the machine's speed or on chance.

Hypothesis measures each example's run time (its 200 ms ``deadline``) and the speed of data
generation (the ``too_slow`` health check): on a loaded CI machine either fails a test that
is correct. Both are switched off for every property test, and examples are drawn from a
fixed seed (``derandomize``) with no example database, so a run fails or passes the same way
on every machine. Test-local ``settings(...)`` inherit this profile and may add to it.
"""

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "kpass", deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("kpass")


@pytest.fixture(scope="module")
def fast_path_at_every_size():
    """Long files' fast routes at every size, for a module of tiny test files.

    Under ``LINE_READER_BYTES`` (8 KiB) a report reads a text file line by line (no pyarrow
    import); the modules that compare the fast routes with the line reader use it
    (``pytestmark = pytest.mark.usefixtures("fast_path_at_every_size")``). Module-scoped, so
    property tests may run under it.
    """
    from kpass.io.formats import readers

    patch = pytest.MonkeyPatch()
    patch.setattr(readers, "LINE_READER_BYTES", 0)
    yield
    patch.undo()
