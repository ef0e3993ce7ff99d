"""kpass: exact, vectorised pass-family metrics with Bayesian credible intervals.

Every function of the reference library (scorio 0.2.3, ``scorio.eval``) is here
under the same name, signature, defaults and return types, so switching is one
import. Extensions are keyword-only: ragged per-question lists, several k in one
call (a list in, a list out), ``short="skip"`` for questions with fewer than k
samples, ``per_question=True`` on the point estimators, and pre-counted
:class:`BinaryCounts` / :class:`CategoricalCounts` inputs that merge across
batches and processes.

Example:
    >>> import kpass
    >>> R = [[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]
    >>> [round(x, 6) for x in kpass.pass_at_k(R, [1, 2])]
    [0.7, 0.95]
    >>> [round(x, 4) for x in kpass.pass_at_k_ci(R, 2)]
    [0.8393, 0.0973, 0.6487, 1.0]
"""

from collections.abc import Callable
from typing import Any

from ._core.counting.checks import ArgumentTypeError, InputError
from ._core.counting.counts import BinaryCounts, CategoricalCounts, register_frame_readers
from ._core.counting.inputs import binary_counts, categorical_counts
from ._core.counting.soft import binarize
from ._core.moments.driver import Posterior
from .families.auc import auc_at_k, auc_at_k_ci
from .families.avg import avg, avg_ci
from .families.bayes import bayes, bayes_ci
from .families.geom import (
    geo_spectrum_at_k,
    geo_spectrum_at_k_ci,
    geo_spectrum_star_at_k,
    geo_spectrum_star_at_k_ci,
    geom_at_k,
    geom_at_k_ci,
    geom_ds_at_k,
    geom_ds_at_k_ci,
    threshold_spectrum_at_k,
    threshold_spectrum_at_k_ci,
)
from .families.gpass import (
    g_pass_at_k,
    g_pass_at_k_ci,
    g_pass_at_k_tau,
    g_pass_at_k_tau_ci,
    mg_pass_at_k,
    mg_pass_at_k_ci,
)
from .families.maj import cons_at_k, cons_at_k_ci, maj_at_k, maj_at_k_ci
from .families.max_reward import max_at_k, max_at_k_ci
from .families.pass_at_k import (
    pass_at_k,
    pass_at_k_ci,
    pass_hat_k,
    pass_hat_k_ci,
    unanimous_at_k,
    unanimous_at_k_ci,
)
from .families.tailpass.draws import TailPassDraws
from .families.tailpass.metric import TailPassProfile, tailpass, tailpass_empirical
from .families.tailpass.weights import (
    beta_weights,
    discovery_weights,
    maxent_weights,
    moment_weights,
    payoff_weights,
    stability_weights,
    threshold_weights,
    uniform_weights,
)
from .families.vote import vote_at_k, vote_at_k_ci
from .stats.allocation import allocate
from .stats.comparison import Comparison, compare
from .stats.cost import (
    CostDifference,
    CostFront,
    CostSummary,
    cost_difference,
    cost_front,
    cost_summary,
)
from .stats.design import Design
from .stats.errors import standard_error
from .stats.monitor import SequentialMonitor
from .stats.planning import Plan, Split, plan
from .stats.ranking import Leaderboard, RankedPair, Standing, Winner, leaderboard
from .stats.sequential import ConfidenceSequence, confidence_sequence
from .stats.small_sample import SmallSampleWarning
from .stats.subset import SubsetEstimate, subset_estimate
from .stats.subset_compare import SubsetComparison, subset_compare
from .stats.subset_design import Subset, choose_questions
from .stats.subset_leaderboard import SubsetLeaderboard, SubsetStanding, subset_leaderboard

__version__ = "0.1.0"


def _from_long(kind: str) -> Callable[..., Any]:
    """``BinaryCounts.from_long``'s ``kind`` reader: :mod:`kpass.io.frames`, on first use."""

    def read(*args: Any, **kwargs: Any) -> Any:
        from .io import frames  # registers its readers in place of these two

        return getattr(frames, f"{kind}_from_long")(*args, **kwargs)

    return read


register_frame_readers(binary=_from_long("binary"), categorical=_from_long("categorical"))
del register_frame_readers


def __getattr__(name: str) -> Any:
    """``kpass.report_table``, ``compare_table``, ...: imported on first use (core: no CLI)."""
    if name == "report_table":
        from .report.from_counts import report_table

        return report_table
    if name == "compare_table":
        from .report.compare_table import compare_table

        return compare_table
    if name == "from_long_with_costs":  # a dataframe's counts and costs (narwhals on use)
        from .io.frames import from_long_with_costs

        return from_long_with_costs
    if name == "read_inspect":  # Inspect AI logs; inspect-ai is imported only when reading
        from .io.harness.inspect_log import read_inspect

        return read_inspect
    if name == "inspect":  # kpass.inspect: reducers and metric for Inspect (the [inspect] extra)
        import importlib

        return importlib.import_module(".inspect", __name__)
    raise AttributeError(f"module 'kpass' has no attribute {name!r}")


__all__ = [
    "ArgumentTypeError",
    "BinaryCounts",
    "CategoricalCounts",
    "Comparison",
    "ConfidenceSequence",
    "CostDifference",
    "CostFront",
    "CostSummary",
    "Design",
    "SequentialMonitor",
    "InputError",
    "SmallSampleWarning",
    "Leaderboard",
    "Plan",
    "Split",
    "Posterior",
    "RankedPair",
    "Standing",
    "Subset",
    "SubsetEstimate",
    "SubsetComparison",
    "SubsetLeaderboard",
    "SubsetStanding",
    "Winner",
    "TailPassDraws",
    "TailPassProfile",
    "allocate",
    "auc_at_k",
    "auc_at_k_ci",
    "avg",
    "avg_ci",
    "bayes",
    "bayes_ci",
    "beta_weights",
    "binarize",
    "binary_counts",
    "categorical_counts",
    "choose_questions",
    "compare",
    "compare_table",
    "confidence_sequence",
    "cost_difference",
    "cost_front",
    "cost_summary",
    "cons_at_k",
    "cons_at_k_ci",
    "discovery_weights",
    "from_long_with_costs",
    "g_pass_at_k",
    "g_pass_at_k_ci",
    "g_pass_at_k_tau",
    "g_pass_at_k_tau_ci",
    "geo_spectrum_at_k",
    "geo_spectrum_at_k_ci",
    "geo_spectrum_star_at_k",
    "geo_spectrum_star_at_k_ci",
    "geom_at_k",
    "geom_at_k_ci",
    "geom_ds_at_k",
    "geom_ds_at_k_ci",
    "leaderboard",
    "maj_at_k",
    "maj_at_k_ci",
    "max_at_k",
    "max_at_k_ci",
    "maxent_weights",
    "mg_pass_at_k",
    "mg_pass_at_k_ci",
    "moment_weights",
    "pass_at_k",
    "pass_at_k_ci",
    "pass_hat_k",
    "pass_hat_k_ci",
    "payoff_weights",
    "plan",
    "report_table",
    "stability_weights",
    "standard_error",
    "subset_estimate",
    "subset_compare",
    "subset_leaderboard",
    "tailpass",
    "tailpass_empirical",
    "threshold_spectrum_at_k",
    "threshold_spectrum_at_k_ci",
    "threshold_weights",
    "unanimous_at_k",
    "unanimous_at_k_ci",
    "uniform_weights",
    "vote_at_k",
    "vote_at_k_ci",
]
