"""Exact (Fraction) moments of TailPass payoffs where floats lose the digits.

The narrow posteriors of :class:`kpass.families.tailpass.metric.TailPassProfile`: ``moment(2)``,
``moment(4)`` and the payoff moments redone exactly, rounded once (see :mod:`kpass.tailpass`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: moment(2) and moment(4) redo a state exactly where Var < E[f^2] / NARROW_RATIO: the
#: float route's relative error is about eps * E[f^2] / Var times the few terms summed.
NARROW_RATIO = 1e3
#: Most monomials of E[B^lam | p] for the exact route (4 for binary data and lam = 4,
#: 69 for four non-zero reward levels); beyond, the float route stands.
MAX_EXACT_TERMS = 70

#: Most banks (count vectors) for the exact payoff moments of a narrow posterior (the
#: pairs of banks are summed in fractions); beyond, the float route stands.
MAX_EXACT_BANKS = 64

Monomials = dict[tuple[int, ...], Fraction]


def _exact_payoff_moments(counts: npt.NDArray[np.int64], payoff: FloatArray,
                          alpha: FloatArray) -> tuple[float, float]:
    """Mean and variance of f(p) = E[u(X) | p] under Dirichlet(alpha), exactly, rounded once.

    f(p) = sum_x mult(x) u(x) p^x over the banks x of k attempts, a polynomial in p with
    the payoff's floats taken exactly, so its moments are those of
    :func:`_exact_polynomial_moments`.
    """
    k = int(counts[0].sum())
    polynomial: Monomials = {}
    for bank, value in zip(counts.tolist(), payoff.tolist(), strict=True):
        if value:
            multiplicity = math.factorial(k)
            for count in bank:
                multiplicity //= math.factorial(count)
            polynomial[tuple(bank)] = multiplicity * Fraction(value)
    return _exact_polynomial_moments(polynomial, alpha)


def _power_polynomial_variance(powers: npt.NDArray[np.int64], coefficients: FloatArray,
                               alpha: FloatArray, beta: FloatArray) -> FloatArray:
    r"""Var[sum_i c_i p^i] for p ~ Beta(alpha, beta), c_i >= 0, free of cancellation.

    Formula:
        Var = sum_ij c_i c_j E[p^i] E[p^j] (R_ij - 1),  R_ij = E[p^(i+j)] / (E[p^i] E[p^j])
            = prod_{l<j} (alpha+i+l)(A+l) / ((alpha+l)(A+i+l))
            = prod_{l<j} (1 + i beta / ((alpha+l)(A+i+l))),   A = alpha + beta,
        so R_ij - 1 = expm1(sum_l log1p(...)) of positive terms, and every term of the
        sum is >= 0: the variance keeps its relative precision however narrow the
        posterior (E[f^2] - E[f]^2 loses eps E[f^2] / Var of it).

    Args:
        powers: (T,) exponents i >= 0 of p.
        coefficients: (T,) c_i >= 0.
        alpha: (S,) Beta parameter of p.
        beta: (S,) Beta parameter of 1 - p.

    Returns:
        (S,) variances.
    """
    keep = (powers > 0) & (coefficients != 0.0)  # a constant has no covariance
    powers, coefficients = powers[keep], coefficients[keep]
    if powers.size == 0:
        return np.zeros(alpha.size)
    top = int(powers.max())
    total = (alpha + beta)[:, None, None]
    steps = np.arange(top, dtype=np.float64)
    shift = powers[None, :, None].astype(np.float64)
    a, b = alpha[:, None, None], beta[:, None, None]
    # log R_ij summed over l < j for every j at once, (S, T, top), rows i = powers. A
    # product beyond the float range (alpha near 1e300) makes its term 0, as it is to
    # double precision.
    with np.errstate(over="ignore", under="ignore"):
        logs = np.cumsum(np.log1p(shift * b / ((a + steps) * (total + shift + steps))),
                         axis=2)
    log_ratio = logs[:, :, powers - 1]  # (S, T, T): i by row, j by column
    # c_i E[p^i], E[p^i] = prod_{l<i} (alpha + l) / (A + l)
    rising = np.cumprod((a[:, 0] + steps) / (total[:, 0] + steps), axis=1)  # (S, top)
    moments = rising[:, powers - 1] * coefficients
    return np.einsum("st,su,stu->s", moments, moments, np.expm1(log_ratio))


def _exact_power_polynomial(levels: FloatArray, k: int, power: int) -> Monomials:
    """E[(mean of k i.i.d. rewards)^power | p] as exact monomials in p, power 2 or 4.

    The same expansion as :func:`kpass._core.dirichlet.posterior.power_mean_terms` (attempts
    grouped by coincidence, m_r = sum_c p_c s_c^r the r-th raw moment of one reward),
    with rational coefficients and the rewards taken exactly from their floats.
    """
    n = Fraction(k)
    if power == 2:
        terms = [(1 / n, (2,)), ((n - 1) / n, (1, 1))]
    else:
        terms = [(1 / n**3, (4,)), (4 * (n - 1) / n**3, (3, 1)), (3 * (n - 1) / n**3, (2, 2)),
                 (6 * (n - 1) * (n - 2) / n**3, (2, 1, 1)),
                 ((n - 1) * (n - 2) * (n - 3) / n**3, (1, 1, 1, 1))]
    rewards = [Fraction(float(level)) for level in levels]
    zero = (0,) * len(rewards)
    polynomial: Monomials = {}
    for coefficient, orders in terms:
        expanded: Monomials = {zero: coefficient}
        for order in orders:
            grown: Monomials = {}
            for exponents, value in expanded.items():
                for level, reward in enumerate(rewards):
                    if reward:
                        key = exponents[:level] + (exponents[level] + 1,) + exponents[level + 1:]
                        grown[key] = grown.get(key, Fraction(0)) + value * reward**order
            expanded = grown
        for exponents, value in expanded.items():
            polynomial[exponents] = polynomial.get(exponents, Fraction(0)) + value
    return {exponents: value for exponents, value in polynomial.items() if value}


def _exact_polynomial_moments(polynomial: Monomials, alpha: FloatArray) -> tuple[float, float]:
    """Mean and variance of sum_a c_a p^a under Dirichlet(alpha), exactly, rounded once.

    E[p^a] = prod_c alpha_c^(a_c) / A^(|a|) (rising factorials) in fractions, the
    concentrations taken exactly from their floats and A their exact sum.
    """
    concentrations = [Fraction(float(value)) for value in alpha]
    total = sum(concentrations, Fraction(0))
    cache: dict[tuple[int, ...], Fraction] = {}

    def expectation(exponents: tuple[int, ...]) -> Fraction:
        if exponents not in cache:
            value, used = Fraction(1), 0
            for concentration, exponent in zip(concentrations, exponents, strict=True):
                for step in range(exponent):
                    value *= (concentration + step) / (total + used)
                    used += 1
            cache[exponents] = value
        return cache[exponents]

    items = list(polynomial.items())
    mean = sum((value * expectation(exponents) for exponents, value in items), Fraction(0))
    second = Fraction(0)
    for index, (left, left_value) in enumerate(items):
        for right, right_value in items[index:]:
            product = left_value * right_value * expectation(
                tuple(a + b for a, b in zip(left, right, strict=True)))
            second += product if left == right else 2 * product
    return float(mean), max(float(second - mean * mean), 0.0)


