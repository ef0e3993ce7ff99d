"""kpass compare: a paired comparison of two models for Hugging Face `evaluate`.

A Hugging Face `evaluate` comparison module, thin over kpass: the numbers come from
``kpass.compare`` (see the comparison card, README.md).
"""

import evaluate

from kpass.hf.evaluate_module import KPassComparison

_CITATION = r"""
@misc{miller2024errorbars,
  title={Adding Error Bars to Evals: A Statistical Approach to Language Model Evaluations},
  author={Miller, Evan},
  year={2024},
  eprint={2411.00640},
  archivePrefix={arXiv},
  url={https://arxiv.org/abs/2411.00640}
}
@misc{chen2021evaluating,
  title={Evaluating Large Language Models Trained on Code},
  author={Chen, Mark and Tworek, Jerry and Jun, Heewoo and others},
  year={2021},
  eprint={2107.03374},
  archivePrefix={arXiv},
  url={https://arxiv.org/abs/2107.03374}
}
"""

_DESCRIPTION = r"""
Is model A better than model B on the same questions? A paired comparison of any metric of
the pass family (Pass@k by default), with the uncertainty over questions.

For each question q both models are scored with the metric's unbiased per-question value
(for Pass@k, 1 - C(n - c, k) / C(n, k)); the comparison works on the differences
d_q = s_q(A) - s_q(B):

    difference = mean(d),  se = sd(d) / sqrt(M),
    interval = difference -/+ t_{M-1} se,  p_value = 2 T_{M-1}(-|difference| / se),
    mde = (t_{M-1, 1-alpha/2} + t_{M-1, 0.8}) se,  p_exact = sign-flip permutation p-value

(Miller 2024, arXiv:2411.00640), with Student's t on M - 1 degrees of freedom (G - 1 with
clusters), so the interval keeps its level with 10-30 questions; p_exact flips the signs of
the d_q (all 2^M patterns up to M = 20, 20000 seeded random ones beyond) and needs no
normality. Fewer than 30 questions, or a standard error of 0, raise a
kpass.SmallSampleWarning. Pairing removes the between-question variance the two
models share, so the paired se is usually far smaller than sqrt(se_A^2 + se_B^2)
(reported as se_unpaired). prob_a_better is the posterior probability that A's metric
exceeds B's on these very questions (questions fixed, from the two Bayesian posteriors).
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions1 (list of lists of int): model A's 0/1 outcomes, one list per question (lists
        may differ in length).
    predictions2 (list of lists of int): model B's outcomes: without ids, on the same
        questions in the same order (paired by position).
    ids1, ids2 (list of str or int, optional): the question id of each row of predictions1
        and of predictions2; with them questions are matched by id, in any order (a question
        one run lacks is refused unless shared=True).
    metric (str): "pass@k" (default), "pass^k", "g-pass@k", "g-pass@k_tau" (give tau),
        "mg-pass@k", "maj@k" or "auc@k".
    k (int or list of int): sample budgets (default 1).
    tau (float or list of float): thresholds of "g-pass@k_tau".
    confidence (float): level of the interval (default 0.95); the MDE uses alpha = 1 -
        confidence and 80% power.
    short (str): "error" (default) or "skip" (questions with fewer than k samples in either
        run are left out of both).
    shared (bool): with ids, compare on the questions both runs have (default False).
    margin (float in (0, 1), optional): test "B (predictions2, the new model) is not worse
        than A by more than margin" at every k (each k alone).
    equivalence (bool): with margin, test |A - B| < margin instead (default False).
    key_style (str): "kpass" (default) or "safe" (names every logger takes).
    Other kpass keywords are accepted and ignored; an unknown keyword raises ValueError.
Returns:
    For every k: '<key>_a', '<key>_b' (the metric of each model), '<key>_difference',
    '<key>_se' (paired SE of the difference over questions), '<key>_se_a' and
    '<key>_se_b' (each model's own SE over the same questions), '<key>_lo', '<key>_hi',
    '<key>_df' (degrees of freedom of the t reference), '<key>_p_value', '<key>_p_exact'
    (sign-flip test), '<key>_se_unpaired', '<key>_correlation' (when defined),
    '<key>_prob_a_better', '<key>_mde' and '<key>_questions', with <key> as in the metric
    modules ('pass@8'), and 'matched_by_id' (1.0 matched by ids1/ids2, 0.0 by position).
    With margin also '<key>_p_margin' (one-sided t test; TOST for equivalence),
    '<key>_p_margin_exact' (its sign-flip counterpart) and '<key>_margin_verdict', the one
    string: what was shown, e.g. 'B is not worse than A by more than 0.02 (one-sided, 95%,
    p = 0.012)', or 'not shown: ...'.
    The names are Comparison's fields, so '<key>_se' is the SE of the difference (a metric
    module's 'pass@8_se' is one model's: log them under different prefixes).
Examples:
    >>> import evaluate
    >>> compare = evaluate.load("kpass_compare", module_type="comparison")
    >>> A = [[1, 1, 0, 1], [0, 1, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0]]
    >>> B = [[1, 0, 0, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 0, 0, 0]]
    >>> results = compare.compute(predictions1=A, predictions2=B, k=1)
    >>> {key: round(value, 4) for key, value in results.items()}
    {'pass@1_a': 0.625, 'pass@1_b': 0.4375, 'pass@1_difference': 0.1875,
    'pass@1_se': 0.0625, 'pass@1_se_a': 0.1614, 'pass@1_se_b': 0.2135,
    'pass@1_lo': -0.0114, 'pass@1_hi': 0.3864, 'pass@1_df': 3.0, 'pass@1_p_value': 0.0577,
    'pass@1_p_exact': 0.25, 'pass@1_se_unpaired': 0.2676, 'pass@1_correlation': 0.9827,
    'pass@1_prob_a_better': 0.8534, 'pass@1_mde': 0.2601, 'pass@1_questions': 4.0,
    'matched_by_id': 0.0}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class KpassCompare(KPassComparison):
    """kpass compare: paired comparison of two models on the same questions."""

    family = "kpass_compare"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=["https://arxiv.org/abs/2411.00640"],
        )
