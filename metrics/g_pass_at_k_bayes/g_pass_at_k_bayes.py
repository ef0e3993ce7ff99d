"""G-Pass@k Bayes: a kpass metric module for Hugging Face `evaluate`.

A Hugging Face `evaluate` metric module, thin over kpass: the numbers come from
the kpass core functions (see the metric card, README.md).
"""

import evaluate

from kpass.hf.evaluate_module import KPassMetric

_CITATION = r"""
@misc{liu2024stable,
  title={Are Your LLMs Capable of Stable Reasoning?},
  author={Liu, Junnan and Liu, Hongwei and Xiao, Linchen and others},
  eprint={2412.13147},
  archivePrefix={arXiv},
  year={2024},
  url={https://arxiv.org/abs/2412.13147}
}
@inproceedings{hariri2026dontpassk,
  title={Don't Pass@k: A Bayesian Framework for Large Language Model Evaluation},
  author={Hariri, Mohsen and Samandar, Amirhossein and Hinczewski, Michael and Chaudhary, Vipin},
  booktitle={International Conference on Learning Representations (ICLR 2026)},
  eprint={2510.04265},
  archivePrefix={arXiv},
  year={2026},
  url={https://arxiv.org/abs/2510.04265}
}
"""

_DESCRIPTION = r"""
G-Pass@k, G-Pass@k_tau for each tau and mG-Pass@k, each with a Bayesian posterior.

With X ~ Hypergeometric(n, c, k) the number of correct samples among k drawn from a
question's n samples (c correct):

    G-Pass@k_tau = P(X >= ceil(tau k))
    G-Pass@k     = G-Pass@k_1 = C(c, k) / C(n, k)
    mG-Pass@k    = 2 * integral_{0.5}^{1} G-Pass@k_tau d tau
                 = (2/k) sum_{j = m+1}^{k} (j - m) P(X = j),  m = ceil(k/2)

averaged over questions (Liu et al. 2024). The Bayesian companion puts
p ~ Beta(alpha0 + c, beta0 + n - c) on each question and reports the posterior mean and
sd of the i.i.d. target (X ~ Binomial(k, p)) with a normal credible interval
(Hariri et al. 2026).
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of int): one list of 0/1 outcomes per question (lists may differ
        in length), or an (M, N) array.
    k (int or list of int): sample budgets, 1 <= k <= n (default 1).
    tau (float or list of float): thresholds in [0, 1]; adds 'g-pass@{k}_tau{tau}' for each
        (default: none).
    confidence (float): credibility level of the interval (default 0.95).
    bounds (tuple or None): (lo, hi) clipping bounds of the interval (default (0, 1)).
    alpha0, beta0 (float): Beta(alpha0, beta0) prior of each question's success rate (default 1,
        1).
    short (str): "error" (default) refuses questions with fewer than k samples; "skip" leaves
        them out for that k.
    per_question (bool): also return '<key>_per_question', the per-question point estimates
        (default False).
    Other kpass keywords (k, tau, lam, w, ...) that this module does not use are accepted
    and ignored, so one keyword set serves evaluate.combine; an unknown keyword raises
    ValueError.
Returns:
    For every k: 'g-pass@{k}', 'g-pass@{k}_tau{tau}', 'mg-pass@{k}', each the point
    estimate, plus the same key with '_mean', '_sd', '_cred_lo', '_cred_hi' (posterior mean, sd and
    credible interval). Values are Python floats ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> g_pass = evaluate.load("g_pass_at_k_bayes")
    >>> results = g_pass.compute(
    ...     predictions=[[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], k=[2, 3], tau=0.5)
    >>> SUFFIXES = ("_mean", "_sd", "_cred_lo", "_cred_hi")
    >>> {key: round(value, 4) for key, value in results.items() if not key.endswith(SUFFIXES)}
    {'g-pass@2': 0.45, 'g-pass@2_se': 0.15, 'g-pass@3': 0.25, 'g-pass@3_se': 0.15,
    'g-pass@2_tau0.5': 0.95, 'g-pass@2_tau0.5_se': 0.05, 'g-pass@3_tau0.5': 0.85,
    'g-pass@3_tau0.5_se': 0.15, 'mg-pass@2': 0.45, 'mg-pass@2_se': 0.15, 'mg-pass@3': 0.1667,
    'mg-pass@3_se': 0.1}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GPassAtKBayes(KPassMetric):
    """G-Pass@k Bayes (kpass)."""

    family = "g_pass_at_k_bayes"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2412.13147",
                "https://arxiv.org/abs/2510.04265",
            ],
        )
