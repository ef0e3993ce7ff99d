"""Vote@k Bayes: a kpass metric module for Hugging Face `evaluate`.

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
Vote@k: a plurality vote over k sampled answers picks the gold answer, with a Bayesian
posterior.

For each question, k of its n sampled answers are drawn without replacement and the
most frequent answer wins (ties split fractionally by default, `ties="fractional"`):

    Vote@k = (1/M) sum_q P(the plurality answer of k draws equals the gold answer)

computed exactly over all k-subsets (self-consistency / cons@k over answers, Wang et al.
2023). Unlike Maj@k, which needs a strict majority of *correct* samples, a plurality
vote is right whenever the gold answer out-polls each wrong answer. The posterior
puts a Dirichlet(concentration) distribution on each question's answer frequencies and reports
the posterior mean, sd and a normal credible interval.
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of str): the sampled final answers of each question (lists may
        differ in length).
    references (list of str): one gold answer per question.
    k (int or list of int): sample budgets, 1 <= k <= n (default 1).
    ties (str): tie rule (default "fractional").
    concentration (float): Dirichlet prior concentration of every category (default 1).
    confidence (float): credibility level of the interval (default 0.95).
    bounds (tuple or None): (lo, hi) clipping bounds (default (0, 1)).
    short (str): "error" (default) or "skip" questions with fewer than k answers.
    per_question (bool): also return 'vote@{k}_per_question' (default False).
    Other kpass keywords (k, tau, lam, w, ...) that this module does not use are accepted
    and ignored, so one keyword set serves evaluate.combine; an unknown keyword raises
    ValueError.
Returns:
    For every k: 'vote@{k}', each the point estimate, plus the same key with '_mean',
    '_sd', '_cred_lo', '_cred_hi' (posterior mean, sd and credible interval). Values are Python
    floats ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> vote = evaluate.load("vote_at_k_bayes")
    >>> results = vote.compute(
    ...     predictions=[["7", "7", "3"], ["a", "b", "b", "b"]], references=["7", "a"], k=[1, 3])
    >>> SUFFIXES = ("_mean", "_sd", "_cred_lo", "_cred_hi")
    >>> {key: round(value, 4) for key, value in results.items() if not key.endswith(SUFFIXES)}
    {'vote@1': 0.4583, 'vote@1_se': 0.2083, 'vote@3': 0.5, 'vote@3_se': 0.5}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class VoteAtKBayes(KPassMetric):
    """Vote@k Bayes (kpass)."""

    family = "vote_at_k_bayes"

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
