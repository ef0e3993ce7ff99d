"""``kpass.stats.multiplicity.minp_stepdown``: Westfall-Young min-P over sign flips.

Checked against a brute-force enumeration of every sign pattern written here from the
definition (itertools, one pattern at a time), against the single-row sign-flip p, and
for its Monte Carlo route against the enumeration.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kpass.stats.multiplicity import maxt_stepdown, minp_stepdown


def _brute_force(x):
    """Min-P adjusted p by the definition, over all 2^U patterns (e and -e both counted)."""
    rows, units = x.shape
    patterns = [np.array(e) for e in itertools.product([1.0, -1.0], repeat=units)]
    scale = np.sqrt((x * x).sum(axis=1))
    stat = np.array([[abs(e @ x[r]) / scale[r] for r in range(rows)] for e in patterns])
    observed = np.abs(x.sum(axis=1)) / scale
    p = np.array([np.mean(stat[:, r] >= observed[r] - 1e-12) for r in range(rows)])
    own = np.array([[np.mean(stat[:, r] >= stat[b, r] - 1e-12) for r in range(rows)]
                    for b in range(len(patterns))])
    order = sorted(range(rows), key=lambda r: (p[r], -observed[r]))
    out, running = np.empty(rows), 0.0
    for j, r in enumerate(order):
        rest = order[j:]
        raw = np.mean(own[:, rest].min(axis=1) <= p[r] + 1e-12)
        running = max(running, raw)
        out[r] = min(1.0, running)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_brute_force_on_breakdown_cells(seed):
    rng = np.random.default_rng(seed)
    units, labels = 11, np.array([0] * 3 + [1] * 3 + [2] * 5)
    rows = rng.choice([-0.5, -0.25, 0.0, 0.25, 0.5, 0.75], size=(2, units))
    rows[0, labels == 2] += 0.5
    cells = np.array([np.where(labels == g, row, 0.0) for row in rows for g in range(3)])
    assert minp_stepdown(cells) == pytest.approx(_brute_force(cells), abs=1e-12)


def test_one_row_is_the_sign_flip_p_and_zero_rows_get_one():
    x = np.array([[0.5, 0.25, -0.25, 0.5, 0.75, 0.25, 0.5], [0.0] * 7])
    p = minp_stepdown(x)
    assert p[1] == 1.0
    assert p[0] == pytest.approx(maxt_stepdown(x[:1])[0], abs=1e-12)
    assert p[0] == pytest.approx(_brute_force(x[:1])[0], abs=1e-12)


def test_monte_carlo_route_agrees_with_the_enumeration():
    rng = np.random.default_rng(5)
    x = rng.normal(0.2, 1.0, size=(4, 14))
    exact = minp_stepdown(x)
    sampled = minp_stepdown(x, exact_up_to=0, flips=20000)
    assert sampled == pytest.approx(exact, abs=0.012)  # Monte Carlo error of 20,000 flips


@pytest.mark.parametrize("bad, words", [
    (np.array([1.0, 2.0]), "finite \\(rows, units\\) array"),
    (np.array([[1.0, np.nan]]), "finite \\(rows, units\\) array"),
])
def test_bad_input_names_the_argument(bad, words):
    with pytest.raises(ValueError, match=words):
        minp_stepdown(bad)
    with pytest.raises(ValueError, match="`flips` must be a positive int"):
        minp_stepdown(np.ones((1, 3)), flips=0)
