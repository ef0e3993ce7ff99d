"""TailPass Bayes: a kpass metric module for Hugging Face `evaluate`.

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
TailPass@k (Hariri, Hinczewski, Ayday & Chaudhary 2026, Success Has a Shape: TailPass@k
for Repeated Sampling Evaluation): how often k fresh attempts reach each required average
score (rubric rewards w in [0, 1]; binary by default), with its exact Bayesian posterior.

A bank of k attempts at a question has average score B = (1/k) sum_i w_{X_i}. TailPass@k
at a threshold t is P(B >= t), averaged over questions: the profile over t runs from
discovery (some attempt earns credit; t -> 0+, Pass@k for binary data) down to stability
(every attempt earns full credit; t = 1, Pass^k). The point estimate draws k of a
question's n observed attempts without replacement (multivariate hypergeometric; unbiased);
the posterior is Dirichlet(concentration + counts + eta * R0 counts) over the reward levels, with
the profile's exact posterior mean and sd (Dirichlet-multinomial sums), and of the moment
utility E[B^p] (p = 1 is Bayes@N's expected reward).
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of int): one list of categorical outcomes 0..C per question
        (lists may differ in length), or an (M, N) integer array.
    R0 (list of lists of int, optional): prior outcomes per question (travel with their
        questions through add_batch; posterior only, weighted by eta).
    k (int or list of int): attempt budgets (default 1).
    w (list of float): rubric score in [0, 1] of each category 0..C (default [0, 1]).
    thresholds (list of float): required average scores in [0, 1], increasing, reported
        as 'tailpass@{k}_t{t}' (default [0.5]).
    moment_power (float or list of float): exponents p > 0 of the moment utility E[B^p],
        reported as 'tailpass_moment@{k}_p{p}' (default: none).
    concentration (float): Dirichlet prior concentration of every category (default 1).
    eta (float): weight in [0, 1] of the prior outcomes R0 (default 1).
    confidence (float): credibility level of the interval (default 0.95).
    short (str): "error" (default) or "skip" questions with fewer than k samples (point
        estimates; the posterior is defined for any k).
    per_question (bool): also return '<key>_per_question' point estimates (default False).
    Other kpass keywords (tau, lam, alpha0, ...) that this module does not use are accepted
    and ignored, so one keyword set serves evaluate.combine; an unknown keyword raises
    ValueError.
Returns:
    For every k: 'tailpass_discovery@{k}', 'tailpass_stability@{k}' and
    'tailpass@{k}_t{t}' for each threshold, each the point estimate plus the same key with
    '_se' (over questions), '_mean', '_sd', '_cred_lo', '_cred_hi' (posterior mean, sd and credible
    interval); 'tailpass_moment@{k}_p{p}' (posterior mean) with the four posterior keys.
    Values are Python floats ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> tailpass = evaluate.load("tailpass_bayes")
    >>> results = tailpass.compute(
    ...     predictions=[[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]], k=2, w=[0.0, 0.5, 1.0])
    >>> {key: round(value, 4) for key, value in results.items() if key.startswith("tailpass@")}
    {'tailpass@2_t0.5': 0.8, 'tailpass@2_t0.5_se': 0.0, 'tailpass@2_t0.5_mean': 0.75,
    'tailpass@2_t0.5_sd': 0.1126, 'tailpass@2_t0.5_cred_lo': 0.5292,
    'tailpass@2_t0.5_cred_hi': 0.9708}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class TailpassBayes(KPassMetric):
    """TailPass Bayes (kpass)."""

    family = "tailpass_bayes"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2510.04265",
            ],
        )
