"""The old home of :func:`kpass.leaderboard`, now in :mod:`kpass.stats.ranking`.

Issue 19 splits the statistics by concern: standard errors, comparison, planning, ranking;
this module keeps every name it had.
"""

from .stats.rank_sets import (  # noqa: F401 - the names kpass.leaderboard has always offered
    CHUNK,
    DRAWS,
    GRID,
    SEED,
    _covariance,
    _holm,
    _jackknife_covariance,
    _p_values,
    _rank_probabilities,
)
from .stats.ranking import (  # noqa: F401 - the names kpass.leaderboard has always offered
    Leaderboard,
    RankedPair,
    Standing,
    _board,
    _check_runs,
    leaderboard,
)

__all__ = ["Leaderboard", "RankedPair", "Standing", "leaderboard"]
