"""avg@N Bayes: a kpass metric module for Hugging Face `evaluate`.

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
avg@N, the plain (weighted) average, with its Bayesian sigma and credible interval.

avg@N is the mean weighted outcome: a = (1/M) sum_q (1/N) sum_i w_{R_qi}. Its uncertainty
is the Bayes@N posterior sd rescaled to the avg@N scale (Eq. 20 of Hariri et al. 2026),
with a uniform Dirichlet prior and no prior outcomes (D = 0, T = 1 + C + N):

    sigma_a = (T / N) sigma_Bayes

and the credible interval a -/+ z sigma_a, clipped to bounds.
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of int): one list of categorical outcomes 0..C per question
        (lists may differ in length), or an (M, N) integer array.
    w (list of float): reward of each category 0..C (default [0, 1], binary data).
    confidence (float): credibility level of the interval (default 0.95).
    bounds (tuple or None): (lo, hi) clipping bounds (default: the range of w).
    per_question (bool): also return 'avg@n_per_question' (default False).
    Other kpass keywords (k, tau, lam, w, ...) that this module does not use are accepted
    and ignored, so one keyword set serves evaluate.combine; an unknown keyword raises
    ValueError.
Returns:
    'avg@n', each the point estimate, plus the same key with '_mean', '_sd', '_cred_lo', '_cred_hi'
    (posterior mean, sd and credible interval). Values are Python floats
    ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> avg = evaluate.load("avg_at_n_bayes")
    >>> results = avg.compute(predictions=[[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], bounds=(0.0, 1.0))
    >>> {key: round(value, 4) for key, value in results.items()}
    {'avg@n': 0.7, 'avg@n_se': 0.1, 'avg@n_mean': 0.7, 'avg@n_sd': 0.1658, 'avg@n_cred_lo': 0.375,
    'avg@n_cred_hi': 1.0}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class AvgAtNBayes(KPassMetric):
    """avg@N Bayes (kpass)."""

    family = "avg_at_n_bayes"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2510.04265",
            ],
        )
