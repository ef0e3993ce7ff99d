"""Pass@k Bayes: a kpass metric module for Hugging Face `evaluate`.

A Hugging Face `evaluate` metric module, thin over kpass: the numbers come from
the kpass core functions (see the metric card, README.md).
"""

import evaluate

from kpass.hf.evaluate_module import KPassMetric

_CITATION = r"""
@misc{chen2021evaluating,
  title={Evaluating Large Language Models Trained on Code},
  author={Chen, Mark and Tworek, Jerry and Jun, Heewoo and others},
  eprint={2107.03374},
  archivePrefix={arXiv},
  year={2021},
  url={https://arxiv.org/abs/2107.03374}
}
@misc{yao2024taubench,
  title={$\\tau$-bench: A Benchmark for Tool-Agent-User Interaction in Real-World Domains},
  author={Yao, Shunyu and Shinn, Noah and Razavi, Pedram and Narasimhan, Karthik},
  eprint={2406.12045},
  archivePrefix={arXiv},
  year={2024},
  url={https://arxiv.org/abs/2406.12045}
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
Pass@k and Pass^k, each with a Bayesian posterior mean, sd and credible interval.

For a question with n samples of which c are correct, the unbiased finite-sample
estimators (k samples drawn without replacement) are

    Pass@k = 1 - C(n - c, k) / C(n, k)        Pass^k = C(c, k) / C(n, k)

averaged over questions (Chen et al. 2021; Yao et al. 2024). The Bayesian companion
treats each question's success rate as p ~ Beta(alpha0 + c, beta0 + n - c) and reports
the posterior mean and sd of the dataset average of g(p) = 1 - (1 - p)^k (Pass@k) or
g(p) = p^k (Pass^k): mu = (1/M) sum E[g(p_q)], sigma = (1/M) sqrt(sum Var[g(p_q)]),
and the interval mu -/+ z sigma, z = Phi^-1((1 + confidence)/2), clipped to bounds
(Hariri et al. 2026).
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
    For every k: 'pass@{k}', 'pass^{k}', each the point estimate, plus the same key with
    '_mean', '_sd', '_cred_lo', '_cred_hi' (posterior mean, sd and credible interval). Values are
    Python floats ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> pass_at_k = evaluate.load("pass_at_k_bayes")
    >>> results = pass_at_k.compute(predictions=[[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], k=[1, 2])
    >>> {key: round(value, 4) for key, value in results.items() if key.startswith("pass@")}
    {'pass@1': 0.7, 'pass@1_se': 0.1, 'pass@1_mean': 0.6429, 'pass@1_sd': 0.1185,
    'pass@1_cred_lo': 0.4107, 'pass@1_cred_hi': 0.875, 'pass@2': 0.95, 'pass@2_se': 0.05,
    'pass@2_mean': 0.8393, 'pass@2_sd': 0.0973, 'pass@2_cred_lo': 0.6487, 'pass@2_cred_hi': 1.0}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class PassAtKBayes(KPassMetric):
    """Pass@k Bayes (kpass)."""

    family = "pass_at_k_bayes"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2107.03374",
                "https://arxiv.org/abs/2406.12045",
                "https://arxiv.org/abs/2510.04265",
            ],
        )
