"""Maj@k Bayes: a kpass metric module for Hugging Face `evaluate`.

A Hugging Face `evaluate` metric module, thin over kpass: the numbers come from
the kpass core functions (see the metric card, README.md).
"""

import evaluate

from kpass.hf.evaluate_module import KPassMetric

_CITATION = r"""
@inproceedings{wang2023selfconsistency,
  title={Self-Consistency Improves Chain of Thought Reasoning in Language Models},
  author={Wang, Xuezhi and Wei, Jason and Schuurmans, Dale and others},
  booktitle={International Conference on Learning Representations (ICLR 2023)},
  eprint={2203.11171},
  archivePrefix={arXiv},
  year={2023},
  url={https://arxiv.org/abs/2203.11171}
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
Maj@k (cons@k): strict majority of k samples correct, with a Bayesian posterior.

With X ~ Hypergeometric(n, c, k) the number of correct samples among k drawn from a
question's n samples (c correct), and j0 = floor(k/2) + 1:

    Maj@k = P(X >= j0) = sum_{j=j0}^{k} C(c, j) C(n - c, k - j) / C(n, k)

averaged over questions; it is G-Pass@k_tau with tau = j0/k, and the binary-outcome
version of cons@k (a strict majority of k samples is correct). The Bayesian companion
is the posterior of the i.i.d. target P(Binomial(k, p) >= j0) under
p ~ Beta(alpha0 + c, beta0 + n - c) (Hariri et al. 2026).
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of int): one list of 0/1 outcomes per question (lists may differ
        in length), or an (M, N) array.
    k (int or list of int): sample budgets, 1 <= k <= n (default 1).
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
    For every k: 'maj@{k}', each the point estimate, plus the same key with '_mean', '_sd',
    '_cred_lo', '_cred_hi' (posterior mean, sd and credible interval). Values are Python floats
    ('<key>_per_question': lists of floats). maj@k is a strict majority of k samples
    correct (cons@k on 0/1 outcomes), not lighteval's maj@k (a plurality vote over answers:
    vote_at_k_bayes).
Examples:
    >>> import evaluate
    >>> maj = evaluate.load("maj_at_k_bayes")
    >>> results = maj.compute(predictions=[[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], k=[2, 3])
    >>> SUFFIXES = ("_mean", "_sd", "_cred_lo", "_cred_hi")
    >>> {key: round(value, 4) for key, value in results.items() if not key.endswith(SUFFIXES)}
    {'maj@2': 0.45, 'maj@2_se': 0.15, 'maj@3': 0.85, 'maj@3_se': 0.15}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MajAtKBayes(KPassMetric):
    """Maj@k Bayes (kpass)."""

    family = "maj_at_k_bayes"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2203.11171",
                "https://arxiv.org/abs/2510.04265",
            ],
        )
