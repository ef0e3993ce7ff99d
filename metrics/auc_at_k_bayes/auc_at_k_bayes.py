"""AUC@K Bayes: a kpass metric module for Hugging Face `evaluate`.

A Hugging Face `evaluate` metric module, thin over kpass: the numbers come from
the kpass core functions (see the metric card, README.md).
"""

import evaluate

from kpass.hf.evaluate_module import KPassMetric

_CITATION = r"""
@misc{hu2026rare,
  title={Rewarding the Rare: Uniqueness-Aware RL for Creative Problem Solving in LLMs},
  author={Hu, Zhiyuan and others},
  eprint={2601.08763},
  archivePrefix={arXiv},
  year={2026},
  url={https://arxiv.org/abs/2601.08763}
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
AUC@K, the area under the Pass@1..Pass@K curve, with a Bayesian posterior.

AUC@K is the trapezoidal area under the Pass@j curve for j = 1..K, normalised to [0, 1]:

    AUC@K = (1/(K-1)) sum_{j=1}^{K-1} (Pass@j + Pass@(j+1)) / 2   (K > 1),   AUC@1 = Pass@1

with the unbiased Pass@j of each question, averaged over questions (Hu et al. 2026).
The Bayesian companion propagates p ~ Beta(alpha0 + c, beta0 + n - c) through the same
weighted sum of i.i.d. Pass@j targets (Hariri et al. 2026).
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of int): one list of 0/1 outcomes per question (lists may differ
        in length), or an (M, N) array.
    k (int or list of int): budgets K, 1 <= K <= n (default 1).
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
    For every k: 'auc@{k}', each the point estimate, plus the same key with '_mean', '_sd',
    '_cred_lo', '_cred_hi' (posterior mean, sd and credible interval). Values are Python floats
    ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> auc = evaluate.load("auc_at_k_bayes")
    >>> results = auc.compute(predictions=[[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], k=[2, 3])
    >>> SUFFIXES = ("_mean", "_sd", "_cred_lo", "_cred_hi")
    >>> {key: round(value, 4) for key, value in results.items() if not key.endswith(SUFFIXES)}
    {'auc@2': 0.825, 'auc@2_se': 0.075, 'auc@3': 0.9, 'auc@3_se': 0.05}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class AucAtKBayes(KPassMetric):
    """AUC@K Bayes (kpass)."""

    family = "auc_at_k_bayes"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2601.08763",
                "https://arxiv.org/abs/2510.04265",
            ],
        )
