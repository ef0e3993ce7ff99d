r"""Uncertainty over questions, paired comparison of two models, and planning an eval.

The Bayesian ``*_ci`` functions hold the benchmark's questions fixed: their sigma is the
uncertainty left by having only n samples of each question ("how would this model do on
*these* questions with unlimited samples"). The functions here treat the questions as a
sample from a super-population ("how would it do on questions like these"), as
lm-evaluation-harness and lighteval do when they print a stderr (Miller 2024):

- :func:`standard_error`: the CLT standard error of a metric from its per-question
  unbiased values, clustered when questions come in groups; a jackknife over questions
  for the dataset-level blends (Geom@k over the dataset, GeoSpectrum).
- :func:`compare`: two models on the same questions, from per-question differences
  (paired): difference, its SE, interval, p-value, minimum detectable effect, and the
  posterior probability that A beats B on these very questions.
- :func:`plan`: from a pilot run, the standard error at another number of questions and
  samples, and the questions or samples needed to detect a difference.
- :func:`leaderboard`: many models on the same questions, with rank sets that hold
  jointly (:mod:`kpass.stats.ranking`, its machinery in :mod:`kpass.stats.rank_sets`).

The law of total variance links the two views: the variance of a per-question estimate
s_q is the between-question variance of the true values g(p_q) plus the within-question
sampling variance of s_q given p_q, so the SE over questions already contains the noise
of the n samples.

References:
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language
    Model Evaluations. arXiv:2411.00640.
"""

from __future__ import annotations

from .._core.small_sample import SmallSampleWarning
from ._common import (  # noqa: F401 - the names kpass.stats has always offered
    _CREDIT_METRICS,
    _DATASET_LEVEL,
    _PER_STATE,
    _STATE_METRICS,
    Metric,
    TooFewQuestionsError,
    _check_metric,
    _clt_se,
    _counts_of,
    _dataset_statistic,
    _jackknife,
    _jackknife_units,
    _labels,
    _need_two,
    _per_question,
    _standard_errors_by_state,
    _state_counts,
    _state_keys,
    _state_values,
    _weighted_se,
)
from .comparison import (  # noqa: F401 - the names kpass.stats has always offered
    Comparison,
    _budgets,
    _compare_dataset,
    _one_k,
    _posterior_pair,
    _prob_greater,
    compare,
)
from .errors import (  # noqa: F401 - the names kpass.stats has always offered
    _one_se,
    _standard_error,
    _warn_standard_error,
    estimates_and_standard_errors,
    standard_error,
    standard_errors_by_k,
)
from .planning import (  # noqa: F401 - the names kpass.stats has always offered
    Plan,
    _check_questions,
    _check_samples,
    _effect,
    _expected_square,
    _need_variance,
    _posterior_g,
    _state_table,
    plan,
)
from .ranking import Leaderboard, RankedPair, Standing, leaderboard  # noqa: F401

__all__ = ["Comparison", "Plan", "SmallSampleWarning", "compare", "plan", "standard_error"]
