"""vote_at_k_ci's posterior sd against exact rational enumeration and long seeded Monte Carlo."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import kpass._core.vote.posterior
import kpass.families.vote
from kpass.families.vote import vote_at_k_ci

# ----------------------------------------------------------------------------- references


def compositions(total, parts):
    """Every vector of ``parts`` non-negative ints summing to ``total``."""
    for cuts in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *cuts, total + parts - 1)
        yield tuple(edges[i + 1] - edges[i] - 1 for i in range(parts))


def credit(counts, ties):
    """Vote credit of a count vector: index 0 the reference, last the never-winning pool."""
    ref, others = counts[0], counts[1:-1]
    if ref == 0 or any(other > ref for other in others):
        return Fraction(0)
    tied = sum(other == ref for other in others)
    if tied == 0:
        return Fraction(1)
    return Fraction(1, tied + 1) if ties == "fractional" else Fraction(0)


def rising(a, m):
    value = Fraction(1)
    for i in range(m):
        value *= a + i
    return value


def exact_moments(alpha, k, ties):
    """E[g_k(pi)] and E[g_k(pi)^2] under Dirichlet(alpha), in exact rational arithmetic.

    E[g^2] is the chance that two groups of k draws from one pi both elect the
    reference: the 2k draws are a Polya urn, enumerated count table by count table.
    """
    alpha = [Fraction(a) for a in alpha]
    total = sum(alpha)
    tables = [x for x in compositions(k, len(alpha))]
    credits = {x: credit(x, ties) for x in tables}
    first = Fraction(0)
    for x in tables:
        weight = Fraction(math.factorial(k))
        for a, xi in zip(alpha, x, strict=True):
            weight *= rising(a, xi) / math.factorial(xi)
        first += weight * credits[x]
    first /= rising(total, k)
    winning = [x for x in tables if credits[x]]
    second = Fraction(0)
    for x in winning:
        for y in winning:
            weight = Fraction(math.factorial(k)) ** 2
            for a, xi, yi in zip(alpha, x, y, strict=True):
                weight *= rising(a, xi + yi) / (math.factorial(xi) * math.factorial(yi))
            second += weight * credits[x] * credits[y]
    second /= rising(total, 2 * k)
    return first, second


def concentrations(answers, reference, prior):
    counts = Counter(answers)
    ref = counts.pop(reference, 0)
    none = counts.pop(None, 0)
    return [ref + prior, *[c + prior for c in counts.values()], none + prior]


def vote_of_multinomial(pi, k, ties):
    """g_k(pi) for each row of pi, by enumerating every count table of k draws."""
    values = np.zeros(pi.shape[0])
    for x in compositions(k, pi.shape[1]):
        share = float(credit(x, ties))
        if share:
            coefficient = math.factorial(k) / math.prod(math.factorial(v) for v in x)
            values += share * coefficient * np.prod(pi ** np.array(x), axis=1)
    return values


# ----------------------------------------------------------------------------- exact


QUESTIONS = [
    ["A", "A", "A", "B", "B", "C"],
    ["A", "A", "B", "B", "C", None],
    ["A", "B", "B", "C", "D", "D", "D"],
    ["B", "C", "C", None, None],  # the reference never observed
    ["A", "B", "C", "D"],
]


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
@pytest.mark.parametrize("prior", [Fraction(1), Fraction(1, 2)])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_vote_ci_sd_is_exact_against_rational_enumeration_of_two_vote_groups(k, prior, ties):
    means, variances = [], []
    for answers in QUESTIONS:
        first, second = exact_moments(concentrations(answers, "A", prior), k, ties)
        means.append(first)
        variances.append(second - first * first)
    mu, sigma, _, _ = vote_at_k_ci(QUESTIONS, ["A"] * len(QUESTIONS), k, ties=ties,
                                   concentration=float(prior))
    assert mu == pytest.approx(float(sum(means) / len(means)), rel=1e-12)
    expected = math.sqrt(float(sum(variances))) / len(QUESTIONS)
    assert sigma == pytest.approx(expected, rel=1e-11)


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_vote_ci_counts_repeated_questions_once_each_in_the_variance(ties):
    questions = [QUESTIONS[0], QUESTIONS[2], QUESTIONS[0], QUESTIONS[0]]
    moments = [exact_moments(concentrations(q, "A", 1), 3, ties) for q in questions]
    variance = sum(second - first * first for first, second in moments)
    _, sigma, _, _ = vote_at_k_ci(questions, ["A"] * 4, 3, ties=ties)
    assert sigma == pytest.approx(math.sqrt(float(variance)) / 4, rel=1e-11)


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_vote_ci_sd_at_k8_matches_long_monte_carlo_of_dirichlet_draws(ties):
    # Beyond enumeration of pairs: 40000 seeded Dirichlet draws, each g_8(pi) computed by
    # enumerating the multinomial count tables; the sd of that Var estimate is about
    # sqrt(2 / 40000) = 0.7% of it.
    answers = ["A", "A", "A", "B", "B", "B", "C", None, "D", "A"]
    alpha = concentrations(answers, "A", 1)
    rng = np.random.default_rng(2026)
    values = vote_of_multinomial(rng.dirichlet(np.array(alpha, float), size=40_000), 8, ties)
    mu, sigma, _, _ = vote_at_k_ci([answers], ["A"], 8, ties=ties)
    assert mu == pytest.approx(values.mean(), abs=4 * values.std() / 200)
    assert sigma**2 == pytest.approx(values.var(), rel=0.04)


def test_vote_ci_exact_sd_ignores_draws_and_seed():
    answers = [["A", "A", "B", "C", "C", None, "D"], ["A", "B", "B", "A", "E"]]
    first = vote_at_k_ci(answers, ["A", "A"], [2, 5], draws=2, seed=1)
    second = vote_at_k_ci(answers, ["A", "A"], [2, 5], draws=5000, seed=9)
    assert first == second


# ----------------------------------------------------------------------------- sampling


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_vote_ci_sampled_sd_beyond_the_exact_budget_agrees_with_the_exact_one(ties,
                                                                            monkeypatch):
    answers = [["A", "A", "A", "B", "B", "C", "D", None], ["A", "B", "B", "C", "C", "C"]]
    _, exact, _, _ = vote_at_k_ci(answers, ["A", "A"], 5, ties=ties)
    monkeypatch.setattr(kpass.families.vote, "_EXACT_LARGEST_K", 1)  # sampled, controls at rate 4
    _, sampled, _, _ = vote_at_k_ci(answers, ["A", "A"], 5, ties=ties, draws=4000, seed=3)
    again = vote_at_k_ci(answers, ["A", "A"], 5, ties=ties, draws=4000, seed=3)[1]
    assert sampled == again  # deterministic for a seed
    # Var from 4000 draws: relative sd about sqrt(2 / 4000) = 2.2%, so sigma within ~1.1%.
    assert sampled == pytest.approx(exact, rel=0.05)


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_vote_ci_sampled_sd_at_k20_with_controls_matches_long_monte_carlo(ties):
    # k = 20 samples with the controls G_ref and the Poissonised votes at rate 16 (not 20:
    # the nearest power of two); the reference is 20000
    # seeded Dirichlet draws, each g_20(pi) by enumerating the 1771 count tables
    # (its own error on sigma is about 0.5%).
    answers = ["A"] * 6 + ["B"] * 6 + ["C"] * 5 + [None] * 3
    alpha = np.array(concentrations(answers, "A", 1), float)
    rng = np.random.default_rng(20)
    values = vote_of_multinomial(rng.dirichlet(alpha, size=20_000), 20, ties)
    mu, sigma, _, _ = vote_at_k_ci([answers], ["A"], 20, ties=ties, draws=256)
    assert mu == pytest.approx(values.mean(), abs=4 * values.std() / math.sqrt(20_000))
    assert sigma == pytest.approx(values.std(), rel=0.015)
    default = vote_at_k_ci([answers], ["A"], 20, ties=ties)[1]
    assert default == pytest.approx(values.std(), rel=0.03)


# ----------------------------------------------------------------------------- kpass report


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_report_answers_vote_rows_carry_the_exact_posterior_sd(ties, tmp_path, capsys):
    import json

    from kpass.report.cli import main

    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"answers": q, "ground_truth": "A"}) + "\n"
                            for q in QUESTIONS))
    code = main(["report", "--answers", str(path), "--metrics", "vote@k", "--k", "2,4",
                 "--ties", ties, "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    rows = {row["k"]: row for row in json.loads(out)["results"] if row["metric"] == "vote@k"}
    for k in (2, 4):
        moments = [exact_moments(concentrations(q, "A", 1), k, ties) for q in QUESTIONS]
        variance = sum(second - first * first for first, second in moments)
        assert rows[k]["sd"] == pytest.approx(math.sqrt(float(variance)) / len(QUESTIONS),
                                              rel=1e-11)


# ----------------------------------------------------------------------------- controls


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_cross_moments_of_two_vote_sizes_match_rational_enumeration(ties):
    # E[g_k(pi) g_l(pi)] with k != l: the covariances of the sampled path's controls.
    answers = ["A", "A", "B", "B", "C", None, "D"]
    states = kpass.families.vote._clusters([answers], ["A"])
    alpha = [Fraction(a) for a in concentrations(answers, "A", 1)]
    for k, other in ((2, 4), (3, 1), (4, 3)):
        tables_k = [x for x in compositions(k, len(alpha)) if credit(x, ties)]
        tables_l = [y for y in compositions(other, len(alpha)) if credit(y, ties)]
        expected = Fraction(0)
        for x in tables_k:
            for y in tables_l:
                weight = Fraction(math.factorial(k) * math.factorial(other))
                for a, xi, yi in zip(alpha, x, y, strict=True):
                    weight *= rising(a, xi + yi) / (math.factorial(xi) * math.factorial(yi))
                expected += weight * credit(x, ties) * credit(y, ties)
        expected /= rising(sum(alpha), k + other)
        got = kpass._core.vote.posterior._cross_moment(states, k, other, ties, 1.0)[0]
        assert got == pytest.approx(float(expected), rel=1e-12)


def test_vote_ci_sd_is_exact_at_k6_against_rational_enumeration():
    answers = ["A", "A", "A", "B", "B", "C", None, "A", "B"]
    for ties in ("fractional", "wrong"):
        first, second = exact_moments(concentrations(answers, "A", 1), 6, ties)
        _, sigma, _, _ = vote_at_k_ci([answers], ["A"], 6, ties=ties)
        assert sigma == pytest.approx(math.sqrt(float(second - first * first)), rel=1e-11)


def test_vote_ci_several_sampled_k_in_one_call_equal_single_calls():
    # One pass over the samples serves every k > 12 (a DP shared by k within a factor 2):
    # the same samples, so the same values as k by k.
    rng = np.random.default_rng(5)
    answers = [list(rng.choice(["A", "B", "C", "D", None], size=40, p=[.3, .3, .2, .1, .1]))
               for _ in range(4)]
    references = ["A"] * 4
    ks = [40, 13, 20, 16, 13]
    together = vote_at_k_ci(answers, references, ks)
    for k, result in zip(ks, together, strict=True):
        assert result == pytest.approx(vote_at_k_ci(answers, references, k), rel=1e-10)


# ----------------------------------------------------------------------------- Poissonised controls


def poissonised_votes(gammas, tau):
    """(strict, weak) wins of the reference under independent Poisson(tau G_i) votes.

    Column 0 of ``gammas`` is the reference, the last the never-winning pool; computed
    straight from scipy's Poisson distribution up to 90 votes.
    """
    from scipy.stats import poisson

    votes = np.arange(91)
    ref = poisson.pmf(votes, tau * gammas[:, :1])
    below = np.prod(poisson.cdf(votes[None, None, :] - 1, tau * gammas[:, 1:-1, None]), axis=1)
    at_most = np.prod(poisson.cdf(votes[None, None, :], tau * gammas[:, 1:-1, None]), axis=1)
    return np.stack([(ref * below)[:, 1:].sum(axis=1), (ref * at_most)[:, 1:].sum(axis=1)], 1)


@pytest.mark.parametrize("answers", [
    ["A"] * 9 + ["B"] * 8 + ["C"] * 3 + [None] * 4,
    ["A"] * 6 + ["B"] * 9 + ["C"] * 6 + ["D"],  # the reference second
])
def test_poissonised_control_moments_match_monte_carlo_of_gamma_draws(answers):
    # The controls' exact E[c], E[c_a c_b] and E[G_ref c] against 20000 seeded Gamma
    # draws, each control evaluated from scipy's Poisson pmf and cdf (4 standard errors).
    from kpass._core.vote.poisson import control_means, control_products

    alpha = np.array(concentrations(answers, "A", 1), float)
    tau = 30.0 / alpha.sum()
    rng = np.random.default_rng(11)
    gammas = rng.standard_gamma(alpha, size=(20_000, alpha.size))
    values = poissonised_votes(gammas, tau)
    ref, other = alpha[:1], alpha[None, 1:-1]
    taus = np.array([tau])
    checks = [
        (control_means(ref, other, taus)[0], values),
        (control_products(ref, other, taus)[0].ravel(),
         (values[:, :, None] * values[:, None, :]).reshape(-1, 4)),
        (ref[0] * control_means(ref + 1.0, other, taus)[0], gammas[:, :1] * values),
    ]
    for exact, sample in checks:
        error = sample.std(axis=0) / math.sqrt(sample.shape[0])
        assert np.all(np.abs(sample.mean(axis=0) - exact) < 4 * error + 1e-12), (exact, sample)
        assert np.all(error < 0.02 * np.abs(exact))  # the check has power


def multinomial_tables(k, parts, ties):
    """Every count table of k draws with a nonzero credit: (tables, parts) counts, credits."""
    tables = np.array([x for x in compositions(k, parts) if credit(x, ties)], dtype=float)
    credits = np.array([float(credit(tuple(int(v) for v in x), ties)) for x in tables])
    log_coefficient = (math.lgamma(k + 1)
                       - np.sum([[math.lgamma(v + 1) for v in x] for x in tables], axis=1))
    return tables, credits, log_coefficient


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_vote_ci_sampled_sd_at_k64_matches_long_monte_carlo(ties):
    # k = 64 with the Poissonised controls, against 6000 seeded Dirichlet draws, each
    # g_64(pi) by summing the multinomial pmf over the winning count tables of 64 draws
    # among the reference, two wrong answers and None (its own error on sigma ~0.9%).
    answers = ["A"] * 20 + ["B"] * 18 + ["C"] * 14 + [None] * 12
    alpha = np.array(concentrations(answers, "A", 1), float)
    tables, credits, log_coefficient = multinomial_tables(64, alpha.size, ties)
    rng = np.random.default_rng(64)
    pi = rng.dirichlet(alpha, size=6000)
    values = np.exp(np.log(pi) @ tables.T + log_coefficient) @ credits
    mu, sigma, _, _ = vote_at_k_ci([answers], ["A"], 64, ties=ties, draws=128)
    assert mu == pytest.approx(values.mean(), abs=4 * values.std() / math.sqrt(values.size))
    assert sigma == pytest.approx(values.std(), rel=0.03)
    default = vote_at_k_ci([answers], ["A"], 64, ties=ties)[1]
    assert default == pytest.approx(values.std(), rel=0.06)


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
def test_vote_ci_means_of_several_k_in_one_call_match_rational_enumeration(ties):
    # k = 2, 3, 4 in one call share a Polya-urn DP (k within a factor 2 of the largest
    # of a group); each mean against the exact rational E[g_k].
    ks = [4, 1, 3, 2]
    got = vote_at_k_ci(QUESTIONS, ["A"] * len(QUESTIONS), ks, ties=ties)
    for k, (mu, *_rest) in zip(ks, got, strict=True):
        means = [exact_moments(concentrations(q, "A", 1), k, ties)[0] for q in QUESTIONS]
        assert mu == pytest.approx(float(sum(means) / len(means)), rel=1e-12)
