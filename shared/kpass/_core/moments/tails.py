"""Threshold credits by recurrences: hypergeometric upper tails for every c, and squares.

A threshold credit g(p) = P(Bin(k, p) >= t) (G-Pass@k_tau, mG-Pass@k, Maj@k) is estimated
per question by the tail P(X >= t) of X ~ Hypergeometric(n, c, k);
:func:`hypergeom_upper_tails` gives it at every c = 0..n at once in O(n k), summed along c
with running products (:func:`scaled_cumprod`, free of spurious underflow).
:func:`threshold_square_coefficients` gives the Bernstein coefficients of g^2 and
(1 - g)^2, which the posterior variance needs.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


#: Largest n for which threshold tails are summed along c (error ~ n * 1e-16).
TAIL_RECURRENCE_MAX_N = 2048


#: Factors multiplied per block of :func:`scaled_cumprod`: mantissas in [1/2, 1) keep a
#: block's running product above 2^-512, far from underflow.
CUMPROD_BLOCK = 512
_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)
_LARGEST = float(np.finfo(np.float64).max)


def scaled_cumprod(factors: FloatArray) -> FloatArray:
    """Running products of positive factors, free of spurious underflow and overflow.

    Each product is rounded as np.cumprod's are.
    The factors are split into mantissa and exponent (np.frexp, exact); the mantissas'
    running product is taken in blocks and renormalised between blocks (by powers of
    two, exact), the exponents are summed as integers, and each product is assembled
    once at the end (np.ldexp). A product below the float64 range comes out 0 (or
    subnormal), one above it inf, but a small prefix never zeroes a later product that
    is representable.

    Args:
        factors: (n,) positive finite factors.

    Returns:
        (n,) running products.
    """
    with np.errstate(under="ignore", over="ignore"):
        plain = np.cumprod(factors, dtype=np.float64)
    if plain.size == 0 or (plain.min() >= _SMALLEST_NORMAL and plain.max() <= _LARGEST):
        return plain  # no prefix left the normal range: the same roundings, no scaling
    mantissa, exponent = np.frexp(factors)
    exponents = np.cumsum(exponent, dtype=np.int64)
    out = np.empty(factors.size)
    carry, carry_exponent = 1.0, 0
    for start in range(0, factors.size, CUMPROD_BLOCK):
        block = np.cumprod(mantissa[start : start + CUMPROD_BLOCK]) * carry
        block_mantissa, block_exponent = np.frexp(block)
        stop = start + block.size
        out[start:stop] = block_mantissa
        exponents[start:stop] += block_exponent + carry_exponent
        carry, carry_exponent = float(block_mantissa[-1]), int(block_exponent[-1]) + carry_exponent
    with np.errstate(under="ignore", over="ignore"):
        products = np.ldexp(out, np.clip(exponents, -1 << 30, 1 << 30).astype(np.int32))
    return products.astype(np.float64, copy=False)


def hypergeom_upper_tails(n: int, k: int, threshold: int) -> FloatArray:
    """P(X_c >= threshold), X_c ~ Hypergeometric(n, c, k), for every c = 0..n at once.

    Adding one success to a population of n (c -> c + 1) raises X by one exactly when
    the converted item is among the k drawn; given X_c = x, that has probability
    (k - x) / (n - c). So with x = threshold - 1,

        P(X_{c+1} >= x + 1) = P(X_c >= x + 1) + P(X_c = x) (k - x) / (n - c),

    a running sum of positive terms from P(X_x >= x + 1) = 0. Along c, P(X_c = x)
    moves by the ratio (c + 1)(n - c - k + x) / ((c + 1 - x)(n - c)), starting from
    P(X_x = x) = prod_{i<x} (k - i) / (n - i); all the factors are multiplied in one
    :func:`scaled_cumprod` (a product, not exp of summed logs).
    O(n) for all n + 1 states, against O(n k) for their probability tables. Every
    step is a product or a sum of positive numbers, so the relative error stays
    within about n machine epsilons (hence :data:`TAIL_RECURRENCE_MAX_N`).

    Args:
        n: population (samples per question).
        k: draws, 1 <= k <= n.
        threshold: 1 <= threshold <= k.

    Returns:
        (n + 1,) tails, indexed by c.
    """
    if k == 1:
        return np.arange(n + 1) / n  # P(X_c >= 1) = c / n, rounded once
    x = threshold - 1
    tails = np.zeros(n + 1)
    # Terms exist for x <= c while n - c >= k - x (enough failures to fill the draw).
    last = n - k + x
    if last < x:
        return tails
    c = np.arange(x, last + 1, dtype=np.float64)
    i = np.arange(x, dtype=np.float64)
    factors = np.empty(x + c.size)
    factors[0] = 1.0
    factors[1 : x + 1] = (k - i) / (n - i)
    # ratio from c to c + 1, for c = x .. last - 1; numerator and denominator are exact
    # integers (below 2^53), so each factor is rounded once.
    previous = c[:-1]
    factors[x + 1 :] = (((previous + 1.0) * (n - previous - k + x))
                        / ((previous + 1.0 - x) * (n - previous)))
    # A running product, not exp(cumsum(log)): the logs' absolute rounding errors (up to
    # ~700 eps each for tiny terms) would become relative errors of the terms (1.7e-12 at
    # n = 2000, k = 1000); the product's is about n eps / 2 at most.
    terms = scaled_cumprod(factors)[x:]
    terms *= (k - x) / (n - c)
    np.cumsum(terms, out=terms)
    tails[x + 1 : last + 1] = terms[:-1]
    # Beyond `last` there are too few failures to keep X at x: the tail is exactly 1.
    tails[last + 1 :] = 1.0
    return tails


def threshold_square_coefficients(k: int, threshold: int) -> tuple[FloatArray, FloatArray]:
    """Bernstein coefficients (degree 2k) of g^2 and (1 - g)^2, g(p) = P(Bin(k, p) >= j0).

    With J1, J2 | p i.i.d. Bin(k, p), g(p)^2 = P(J1 >= j0, J2 >= j0 | p); given
    S = J1 + J2 = s, J1 ~ H_s ~ Hypergeometric(2k, s, k), whatever p. So the
    coefficient at s is u_s = P(j0 <= H_s <= s - j0) (and d_s = P(s - j0 < H_s < j0)
    for (1 - g)^2). Adding one success to the population (s -> s + 1) moves H by one
    exactly when that item is drawn, and H_s, s - H_s have one law (k of 2k drawn),
    so both ends of the interval gain the same mass q_s (k - j0 + 1) / (2k - s),
    q_s = P(H_s = j0 - 1):

        u_{s+1} = u_s + 2 q_s (k - j0 + 1) / (2k - s),   u_{2 j0 - 1} = 0,

    and d_s is the same sum taken from the other end. Both are running sums of
    positive terms: O(k) for all 2k + 1 coefficients, where the general product
    of two Bernstein polynomials costs O(k^2). q_s follows its ratio along s
    (as in :func:`hypergeom_upper_tails`), summed in logs: relative error about
    k machine epsilons.

    Args:
        k: degree of g, k >= 1.
        threshold: j0, 1 <= j0 <= k.

    Returns:
        ``(up, down)``: (2k + 1,) coefficients of g^2 and of (1 - g)^2.
    """
    population, x = 2 * k, threshold - 1
    # q_s > 0 for s in [x, population - k + x] (enough of both kinds to draw x and k - x).
    last = population - k + x
    s = np.arange(x, last + 1, dtype=np.float64)
    i = np.arange(x, dtype=np.float64)
    log_q = np.empty(s.size)
    log_q[0] = np.sum(np.log((k - i) / (population - i)))
    previous = s[:-1]
    log_q[1:] = np.log(((previous + 1.0) * (population - previous - k + x))
                       / ((previous + 1.0 - x) * (population - previous)))
    np.cumsum(log_q, out=log_q)
    # step[s] = 2 q_s (k - j0 + 1) / (2k - s): the mass both interval ends gain from s to s + 1
    step = np.zeros(population + 1)
    step[x : last + 1] = 2.0 * np.exp(log_q) * (k - x) / (population - s)
    middle = 2 * threshold - 1  # u and d are both 0 here (the interval is empty)
    up = np.zeros(population + 1)
    np.cumsum(step[middle:-1], out=up[middle + 1 :])
    down = np.zeros(population + 1)
    down[:middle] = np.cumsum(step[:middle][::-1])[::-1]
    np.minimum(up, 1.0, out=up)
    np.minimum(down, 1.0, out=down)
    return up, down
