"""GeoSpectrum Bayes: a kpass metric module for Hugging Face `evaluate`.

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
Geom@k, dataset Geom@k, GeoSpectrum, GeoSpectrum* and the threshold spectrum, with
posteriors.

Per question, with P = Pass@k and U = Pass^k (Unanimous@k):

    Geom@k            = (1/M) sum_q P_q^a U_q^b               a = pass_power, b = unanimous_power
    dataset Geom@k    = (mean_q P_q)^a (mean_q U_q)^b
    S_{w,k}           = sum_{r=1}^{k} w_r T_{r,k},   T_{r,k} = P(X >= r),
                        X ~ Hypergeometric(n, c, k)
    GeoSpectrum@k     = Pass@k^lam  S_{w,k}^(1 - lam)
    GeoSpectrum*@k    = sqrt(Pass@k  mG-Pass@k)   (lam = 1/2, upper-half mG weights)

The default weights w are the upper-half mG weights (w_r = 2/k for r > ceil(k/2)), so
the default threshold spectrum is mG-Pass@k. The posterior summaries use the exact
posterior moments of the blended quantities under p ~ Beta(alpha0 + c, beta0 + n - c)
and a first-order delta method through x^a y^b (an approximation, as in the reference
library); the latent targets are defined for every k >= 1.
"""

_KWARGS_DESCRIPTION = r"""
Args:
    predictions (list of lists of int): one list of 0/1 outcomes per question (lists may differ
        in length), or an (M, N) array.
    k (int or list of int): sample budgets, 1 <= k <= n (default 1).
    pass_power, unanimous_power (float): exponents a, b of Geom@k (default 0.5, 0.5).
    lam (float or list of float): GeoSpectrum coupling in [0, 1]; adds
        'geo_spectrum@{k}_lam{lam}' for each (default: 0.5, key without lam).
    weights (list of float, or dict {k: list}): length-k spectrum weights, non-negative, sum <=
        1 (default: upper-half mG weights).
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
    For every k: 'geom@{k}', 'geom_ds@{k}', 'geo_spectrum@{k}', 'geo_spectrum@{k}_lam{lam}',
    'geo_spectrum_star@{k}', 'threshold_spectrum@{k}', each the point estimate, plus the
    same key with '_mean', '_sd', '_cred_lo', '_cred_hi' (posterior mean, sd and credible interval).
    Values are Python floats ('<key>_per_question': lists of floats).
Examples:
    >>> import evaluate
    >>> geo = evaluate.load("geo_spectrum_bayes")
    >>> results = geo.compute(predictions=[[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], k=2)
    >>> SUFFIXES = ("_mean", "_sd", "_cred_lo", "_cred_hi")
    >>> {key: round(value, 4) for key, value in results.items() if not key.endswith(SUFFIXES)}
    {'geom@2': 0.6471, 'geom@2_se': 0.1275, 'geom_ds@2': 0.6538, 'geom_ds@2_se': 0.1275,
    'geo_spectrum@2': 0.6538, 'geo_spectrum@2_se': 0.1275, 'geo_spectrum_star@2': 0.6538,
    'geo_spectrum_star@2_se': 0.1275, 'threshold_spectrum@2': 0.45,
    'threshold_spectrum@2_se': 0.15}
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GeoSpectrumBayes(KPassMetric):
    """GeoSpectrum Bayes (kpass)."""

    family = "geo_spectrum_bayes"

    def _info(self):
        return self.kpass_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            reference_urls=[
                "https://arxiv.org/abs/2510.04265",
            ],
        )
