r"""Uncertainty over questions, paired comparison of two models, and planning an eval.

The Bayesian ``*_ci`` functions hold the benchmark's questions fixed: their sigma is the
uncertainty left by having only n samples of each question ("how would this model do on
*these* questions with unlimited samples"). The functions here treat the questions as a
sample from a super-population ("how would it do on questions like these"), as
lm-evaluation-harness and lighteval do when they print a stderr (Miller 2024):

- :func:`~kpass.stats.errors.standard_error`: the CLT standard error of a metric from its
  per-question unbiased values, clustered when questions come in groups; a jackknife over
  questions for the dataset-level blends (Geom@k over the dataset, GeoSpectrum).
- :func:`~kpass.stats.comparison.compare`: two models on the same questions, from
  per-question differences (paired): difference, its SE, interval, p-value, minimum
  detectable effect, and the posterior probability that A beats B on these very questions.
- :func:`~kpass.stats.planning.plan`: from a pilot run, the standard error at another number
  of questions and samples, and the questions or samples needed to detect a difference.
- :func:`~kpass.stats.ranking.leaderboard`: many models on the same questions, with rank
  sets that hold jointly (its machinery in :mod:`kpass.stats.rank_sets`).

Each name lives in the module that defines it (shared helpers in :mod:`kpass.stats._common`);
this package re-exports none of them: the public API is :mod:`kpass`.

The law of total variance links the two views: the variance of a per-question estimate
s_q is the between-question variance of the true values g(p_q) plus the within-question
sampling variance of s_q given p_q, so the SE over questions already contains the noise
of the n samples.

References:
    Miller, E. (2024). Adding Error Bars to Evals: A Statistical Approach to Language
    Model Evaluations. arXiv:2411.00640.
"""
