"""Max@k Bayes: a kpass metric module for Hugging Face `evaluate`.

A Hugging Face `evaluate` metric module, thin over kpass: the numbers come from
the kpass core functions (see the metric card, README.md).
"""

import evaluate

from kpass.hf.evaluate_module import KPassMetric

_CITATION = r"""
@misc{bagirov2025bestofn,
  title={The Best of N Worlds: Aligning Reinforcement Learning with Best-of-N Sampling
    via max@k Optimization},
  author={Bagirov, Farid and others},
  eprint={2510.23393},
  archivePrefix={arXiv},
  year={2025},
  url={https://arxiv.org/abs/2510.23393}
}
@misc{walder2025passk,
  title={Pass@K Policy Optimization: Solving Harder Reinforcement Learning Problems},
  author={Walder, Christian and Karkhanis, Deep},
  eprint={2505.15201},
  archivePrefix={arXiv},
  year={2025},
  url={https://arxiv.org/abs/2505.15201}
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
Max@k, the expected best reward among k samples (categorical rewards w), with a Bayesian
posterior.

Each outcome is a category 0..C with reward w_j. Sorting a question's n rewards
g_1 <= ... <= g_n, the unbiased finite-sample estimator of the expected best reward among
k samples drawn without replacement is

    Max@k = (1/C(n, k)) sum_{i=k}^{n} C(i - 1, k - 1) g_i

averaged over questions (Bagirov et al. 2025, Appendix C.1; Walder & Karkhanis 2025).
With w = [0, 1] it is Pass@k. The Bayesian companion uses the Dirichlet(1 + prior
counts) posterior of Bayes@N over categories: with reward levels r_1 < ... < r_L and
A_l the posterior probability of a reward <= r_l, the target is
r_L - sum_l (r_{l+1} - r_l) A_l^k, with closed-form posterior moments (a kpass/scorio
extension; the papers give the point estimator only). k = 1 gives Bayes@N.
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of int): one list of categorical outcomes 0..C per question
        (lists may differ in length), or an (M, N) integer array.
    R0 (list of lists of int, optional): prior outcomes per question (travel with their
        questions through add_batch; posterior only).
    k (int or list of int): sample budgets (default 1).
    w (list of float): reward of each category 0..C (default [0, 1], binary data).
    confidence (float): credibility level of the interval (default 0.95).
    bounds (tuple or None): (lo, hi) clipping bounds (default: the range of w).
    short (str): "error" (default) or "skip" questions with fewer than k samples (point
        estimate).
    per_question (bool): also return 'max@{k}_per_question' (default False).
    Other kpass keywords (k, tau, lam, w, ...) that this module does not use are accepted
    and ignored, so one keyword set serves evaluate.combine; an unknown keyword raises
    ValueError.
Returns:
    For every k: 'max@{k}', each the point estimate, plus the same key with '_mean', '_sd',
    '_cred_lo', '_cred_hi' (posterior mean, sd and credible interval). Values are Python floats
    ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> max_at_k = evaluate.load("max_at_k_bayes")
    >>> results = max_at_k.compute(
    ...     predictions=[[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]], k=2, w=[0.0, 0.5, 1.0])
    >>> {key: round(value, 4) for key, value in results.items()}
    {'max@2': 0.85, 'max@2_se': 0.0, 'max@2_mean': 0.75, 'max@2_sd': 0.0881,
    'max@2_cred_lo': 0.5773, 'max@2_cred_hi': 0.9227}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class MaxAtKBayes(KPassMetric):
    """Max@k Bayes (kpass)."""

    family = "max_at_k_bayes"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2510.23393",
                "https://arxiv.org/abs/2505.15201",
                "https://arxiv.org/abs/2510.04265",
            ],
        )
