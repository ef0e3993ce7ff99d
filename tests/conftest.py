"""Suite-wide settings: no test's outcome may depend on the machine's speed or on chance.

Hypothesis measures each example's run time (its 200 ms ``deadline``) and the speed of data
generation (the ``too_slow`` health check): on a loaded CI machine either fails a test that
is correct. Both are switched off for every property test, and examples are drawn from a
fixed seed (``derandomize``) with no example database, so a run fails or passes the same way
on every machine. Test-local ``settings(...)`` inherit this profile and may add to it.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "kpass", deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("kpass")
