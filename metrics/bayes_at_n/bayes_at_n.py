"""Bayes@N: a kpass metric module for Hugging Face `evaluate`.

A Hugging Face `evaluate` metric module, thin over kpass: the numbers come from
the kpass core functions (see the metric card, README.md).
"""

import evaluate

from kpass.hf.evaluate_module import KPassMetric

_CITATION = r"""
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
Bayes@N: Dirichlet posterior mean, sd and credible interval of the expected reward, with
prior outcomes.

Each outcome is a category 0..C with weight w_j. For question q, with n_qj samples and
D prior outcomes in category j, nu_qj = n_qj + 1 + n0_qj (a Dirichlet(+1) prior plus the
prior outcomes) and T = 1 + C + D + N:

    mu    = w_0 + (1/(M T)) sum_q sum_j nu_qj (w_j - w_0)
    sigma = sqrt( (1/(M^2 (T+1))) sum_q [ sum_j (nu_qj/T)(w_j - w_0)^2
                                          - (sum_j (nu_qj/T)(w_j - w_0))^2 ] )

and the credible interval mu -/+ z sigma, z = Phi^-1((1 + confidence)/2), clipped to
bounds (Hariri et al. 2026). With ragged data, T is computed per question.
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of int): one list of categorical outcomes 0..C per question
        (lists may differ in length), or an (M, N) integer array.
    R0 (list of lists of int, optional): D prior outcomes per question; they travel with their
        questions through add_batch and across processes.
    w (list of float): reward of each category 0..C (default [0, 1], binary data).
    confidence (float): credibility level of the interval (default 0.95).
    bounds (tuple or None): (lo, hi) clipping bounds (default: the range of w).
    per_question (bool): also return 'bayes@n_per_question', each question's posterior mean
        (default False).
    Other kpass keywords (k, tau, lam, w, ...) that this module does not use are accepted
    and ignored, so one keyword set serves evaluate.combine; an unknown keyword raises
    ValueError.
Returns:
    'bayes@n', each the point estimate, plus the same key with '_mean', '_sd', '_cred_lo',
    '_cred_hi' (posterior mean, sd and credible interval). Values are Python floats
    ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> bayes = evaluate.load("bayes_at_n")
    >>> results = bayes.compute(
    ...     predictions=[[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]], R0=[[0, 2], [1, 2]], w=[0.0, 0.5, 1.0])
    >>> {key: round(value, 6) for key, value in results.items()}
    {'bayes@n': 0.575, 'bayes@n_se': 0.025, 'bayes@n_mean': 0.575, 'bayes@n_sd': 0.084275,
    'bayes@n_cred_lo': 0.409824, 'bayes@n_cred_hi': 0.740176}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BayesAtN(KPassMetric):
    """Bayes@N (kpass)."""

    family = "bayes_at_n"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2510.04265",
            ],
        )
