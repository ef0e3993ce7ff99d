"""Plurality-vote accuracy vote@k and its Bayesian companion, against independent references."""

from __future__ import annotations

import doctest
import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import hypergeom

import kpass.families.vote
from kpass.data import aime_sample
from kpass.families.vote import vote_at_k, vote_at_k_ci

# ----------------------------------------------------------------------------- references


def brute_vote(answers, reference, k, ties):
    """Exact vote@k of one question by enumerating every k-subset (Fractions)."""
    total, subsets = Fraction(0), 0
    for subset in itertools.combinations(range(len(answers)), k):
        subsets += 1
        votes = Counter(answers[i] for i in subset)
        votes.pop(None, None)
        if not votes:
            continue
        top = max(votes.values())
        winners = [answer for answer, count in votes.items() if count == top]
        if reference in winners:
            if len(winners) == 1:
                total += 1
            elif ties == "fractional":
                total += Fraction(1, len(winners))
    return total / subsets


def binary_maj(n, c, k):
    """Binary Maj@k of one question: P(more than half of k subset samples correct)."""
    favourable = sum(math.comb(c, j) * math.comb(n - c, k - j) for j in range(k // 2 + 1, k + 1))
    return Fraction(favourable, math.comb(n, k))


def plurality_credit(counts, ties):
    """Credit of a vote from a count vector (index 0: reference, last: never wins)."""
    contenders = counts[:-1]
    top = contenders.max()
    if top == 0 or contenders[0] != top:
        return 0.0
    tied = int((contenders == top).sum())
    return 1.0 / tied if ties == "fractional" else float(tied == 1)


def random_question(rng, n, alphabet):
    return [rng.choice(alphabet) for _ in range(n)]


# ----------------------------------------------------------------------------- exact values


@pytest.mark.parametrize("ties", ["fractional", "wrong"])
@pytest.mark.parametrize("seed", range(6))
def test_vote_matches_brute_force_enumeration_of_k_subsets(seed, ties):
    rng = random.Random(seed)
    alphabets = [["a", "b"], ["a", "b", "c"], ["a", "b", "c", None], list("abcdefg") + [None]]
    questions = [random_question(rng, rng.randint(1, 10), rng.choice(alphabets))
                 for _ in range(12)]
    references = ["a"] * len(questions)
    smallest = min(len(q) for q in questions)
    ks = list(range(1, smallest + 1))
    got = vote_at_k(questions, references, ks, ties=ties)
    for k, value in zip(ks, got, strict=True):
        expected = sum(brute_vote(q, "a", k, ties) for q in questions) / len(questions)
        assert value == pytest.approx(float(expected), rel=1e-12, abs=1e-15)
    per_question = vote_at_k(questions, references, ks, ties=ties, per_question=True)
    for k, values in zip(ks, per_question, strict=True):
        expected = [float(brute_vote(q, "a", k, ties)) for q in questions]
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-15)


def test_vote_on_aime_sample_plurality_of_all_80_is_wrong():
    sample = aime_sample()
    answers, reference = [sample["answers"]], [sample["ground_truth"]]
    for ties in ("fractional", "wrong"):
        assert vote_at_k(answers, reference, 80, ties=ties) == 0.0
        assert vote_at_k(answers, reference, 1, ties=ties) == pytest.approx(32 / 80, rel=1e-13)
    # Fractional ties make vote@2 equal vote@1 (a split pair scores 1/2).
    assert vote_at_k(answers, reference, 2) == pytest.approx(32 / 80, rel=1e-13)


@pytest.mark.slow
def test_vote_at_large_n_matches_hypergeometric_tail_with_two_answers():
    # Only the reference and one wrong answer: the vote is right when x > k - x.
    n, correct = 2000, 1030
    answers = [["ok"] * correct + ["no"] * (n - correct)]
    for k in (1, 7, 500, 1001, 1999):
        expected = hypergeom.sf(k // 2, n, correct, k)
        got = vote_at_k(answers, ["ok"], k, ties="wrong")
        assert got == pytest.approx(expected, rel=1e-11)


def test_vote_several_k_keep_order_and_match_single_calls():
    rng = random.Random(3)
    questions = [random_question(rng, 9, list("abcd")) for _ in range(20)]
    references = ["a"] * 20
    ks = [5, 1, 9, 5, 3]
    together = vote_at_k(questions, references, ks)
    singles = [vote_at_k(questions, references, k) for k in ks]
    assert together == pytest.approx(singles, rel=1e-13)
    assert together[0] == together[3]
    assert all(isinstance(value, float) for value in together)


def test_vote_is_invariant_to_question_and_sample_order():
    rng = random.Random(4)
    questions = [random_question(rng, rng.randint(4, 12), list("abc") + [None])
                 for _ in range(15)]
    references = [rng.choice("abc") for _ in questions]
    value = vote_at_k(questions, references, [1, 2, 3, 4])
    shuffled = [rng.sample(q, len(q)) for q in questions][::-1]
    assert vote_at_k(shuffled, references[::-1], [1, 2, 3, 4]) == pytest.approx(value, rel=1e-13)


def test_vote_none_never_wins_and_missing_reference_scores_zero():
    assert vote_at_k([[None, None, None, "a"]], ["a"], 4) == 1.0
    assert vote_at_k([["b", "b", "c"]], ["a"], [1, 2, 3]) == [0.0, 0.0, 0.0]


def test_vote_short_questions_error_or_skip():
    questions = [["a", "b", "a"], ["a"], ["b", "a", "a", "a"]]
    with pytest.raises(ValueError, match=r"k=2 but 1 of 3 questions.*smallest n=1"):
        vote_at_k(questions, ["a"] * 3, 2)
    skipped = vote_at_k(questions, ["a"] * 3, 2, short="skip", per_question=True)
    assert np.isnan(skipped[1])
    kept = vote_at_k([questions[0], questions[2]], ["a"] * 2, 2, per_question=True)
    np.testing.assert_allclose(skipped[[0, 2]], kept)
    assert vote_at_k(questions, ["a"] * 3, 2, short="skip") == pytest.approx(float(np.mean(kept)))


# ----------------------------------------------------------------------------- binary Maj@k


answer_lists = st.lists(st.sampled_from(["ok", "x", "y", "z"]), min_size=1, max_size=14)


@settings(max_examples=120, deadline=None)
@given(st.lists(answer_lists, min_size=1, max_size=5))
def test_vote_with_wrong_ties_dominates_binary_maj_and_equals_it_for_k_up_to_2(questions):
    for k in range(1, min(len(q) for q in questions) + 1):
        votes = vote_at_k(questions, ["ok"] * len(questions), k, ties="wrong", per_question=True)
        fractional = vote_at_k(questions, ["ok"] * len(questions), k, per_question=True)
        for question, vote, share in zip(questions, votes, fractional, strict=True):
            maj = float(binary_maj(len(question), question.count("ok"), k))
            assert vote >= maj - 1e-12
            assert share >= vote - 1e-12
            if k <= 2:
                assert vote == pytest.approx(maj, abs=1e-12)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["ok", "bad"]), min_size=1, max_size=16),
                min_size=1, max_size=5))
def test_vote_with_wrong_ties_equals_binary_maj_with_one_wrong_answer(questions):
    for k in range(1, min(len(q) for q in questions) + 1):
        votes = vote_at_k(questions, ["ok"] * len(questions), k, ties="wrong", per_question=True)
        for question, vote in zip(questions, votes, strict=True):
            maj = float(binary_maj(len(question), question.count("ok"), k))
            assert vote == pytest.approx(maj, abs=1e-12)


# ----------------------------------------------------------------------------- posterior


def monte_carlo_moments(answers, reference, k, ties, prior, draws, seed):
    """Mean and Var of g(pi) by simulation: two independent k-draw votes per pi."""
    counts = Counter(answers)
    ref = counts.pop(reference, 0)
    none = counts.pop(None, 0)
    alpha = np.array([ref + prior, *[c + prior for c in counts.values()], none + prior])
    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(alpha, size=draws)
    first = rng.multinomial(k, pi)
    second = rng.multinomial(k, pi)
    v1 = np.array([plurality_credit(row, ties) for row in first])
    v2 = np.array([plurality_credit(row, ties) for row in second])
    mean = v1.mean()
    cross = (v1 - mean) * (v2 - mean)
    return mean, v1.std() / math.sqrt(draws), cross.mean(), cross.std() / math.sqrt(draws)


@pytest.mark.parametrize(("answers", "k", "ties"), [
    (["A", "A", "A", "B", "B", "C"], 3, "fractional"),
    (["A", "A", "B", "B", "C", None], 4, "wrong"),
    (["A", "B", "B", "C", "D", "D", "D"], 5, "fractional"),
])
def test_vote_ci_matches_monte_carlo_of_dirichlet_then_multinomial_votes(answers, k, ties):
    draws = 60_000
    mc_mean, mean_se, mc_var, var_se = monte_carlo_moments(answers, "A", k, ties, 1.0, draws, 7)
    mu, sigma, lo, hi = vote_at_k_ci([answers], ["A"], k, ties=ties, draws=4000, short="skip")
    assert abs(mu - mc_mean) < 5 * mean_se
    # The variance is itself estimated from 4000 posterior draws (relative sd ~ sqrt(2/4000)).
    assert abs(sigma**2 - mc_var) < 5 * var_se + 5 * math.sqrt(2 / 4000) * mc_var
    z = 1.959963984540054
    assert lo == pytest.approx(max(mu - z * sigma, 0.0))
    assert hi == pytest.approx(min(mu + z * sigma, 1.0))


def test_vote_ci_at_k1_is_the_dirichlet_marginal_of_the_reference():
    answers = [["A", "A", "B", None], ["B", "C", "C"], ["A"] * 5]
    mu, sigma, _, _ = vote_at_k_ci(answers, ["A", "A", "A"], 1, concentration=0.5,
                                   draws=20_000)
    means, variances = [], []
    for row in answers:
        counts = Counter(row)
        ref = counts.pop("A", 0)
        counts.pop(None, 0)
        total = len(row) + 0.5 * (len(counts) + 2)  # reference, wrong answers, pooled
        a = ref + 0.5
        means.append(a / total)
        variances.append(a * (total - a) / (total**2 * (total + 1)))
    assert mu == pytest.approx(np.mean(means), rel=1e-12)
    assert sigma == pytest.approx(math.sqrt(sum(variances)) / 3, rel=0.05)


def test_vote_ci_is_deterministic_and_returns_python_floats():
    sample = aime_sample()
    first = vote_at_k_ci([sample["answers"]], [sample["ground_truth"]], [1, 8])
    second = vote_at_k_ci([sample["answers"]], [sample["ground_truth"]], [1, 8])
    assert first == second
    assert all(type(value) is float for result in first for value in result)


# ----------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(("kwargs", "error", "pattern"), [
    ({"k": 0}, ValueError, r"`k` must be an int >= 1; got k=0"),
    ({"k": 1.5}, TypeError, r"`k` must be an int; got k=1.5"),
    ({"k": "3"}, TypeError, r"`k` must be an int; got k='3'"),
    ({"k": True}, TypeError, r"`k` must be an int; got k=True"),
    ({"k": 4}, ValueError, r"`k` must be an int in \[1, n\]; got k=4"),
    ({"k": 1, "ties": "random"}, ValueError, r"`ties` must be one of .*got ties='random'"),
    ({"k": 1, "short": "drop"}, ValueError, r"`short` must be one of"),
    ({"k": 1, "per_question": 1}, TypeError, r"`per_question` must be a bool"),
])
def test_vote_rejects_bad_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        vote_at_k([["a", "b", "a"]], ["a"], **kwargs)


@pytest.mark.parametrize(("answers", "references", "error", "pattern"), [
    ([["a"], ["b"]], ["a"], ValueError, r"len\(answers\)=2 and len\(references\)=1"),
    ([["a"], []], ["a", "b"], ValueError, r"answers\[1\] is empty"),
    ([], [], ValueError, r"at least one question"),
    ([["a", ["b"]]], ["a"], TypeError, r"hashable.*answers\[0\]\[1\]=\['b'\]"),
    ([["a"]], [["a"]], TypeError, r"hashable.*references\[0\]"),
    (["abc"], ["a"], TypeError, r"`answers\[0\]` must be a list of answers"),
    ("abc", ["a"], TypeError, r"`answers` must be a list"),
    ([["a"]], [None], ValueError, r"`references\[0\]` must be an answer; got None"),
])
def test_vote_rejects_bad_answers(answers, references, error, pattern):
    with pytest.raises(error, match=pattern):
        vote_at_k(answers, references, 1)


@pytest.mark.parametrize(("kwargs", "error", "pattern"), [
    ({"confidence": 1.0}, ValueError, r"`confidence` must be a finite number in \(0, 1\)"),
    ({"confidence": 0.0}, ValueError, r"`confidence`"),
    ({"concentration": 0.0}, ValueError,
     r"`concentration` must be a finite number in \[1e-300, 1e\+12\]; got concentration=0"),
    ({"concentration": -1}, ValueError, r"`concentration`"),
    ({"ties": "half"}, ValueError, r"`ties`"),
    ({"draws": 1}, ValueError, r"`draws` must be an int >= 2"),
    ({"k": 0}, ValueError, r"`k` must be an int >= 1"),
    ({"bounds": (1.0, 0.0)}, ValueError, r"`bounds`"),
])
def test_vote_ci_rejects_bad_arguments(kwargs, error, pattern):
    arguments = {"k": 2, **kwargs}
    with pytest.raises(error, match=pattern):
        vote_at_k_ci([["a", "b", "a"]], ["a"], **arguments)


def test_vote_docstring_examples_run():
    result = doctest.testmod(kpass.families.vote, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 3 and result.failed == 0


def test_vote_ci_at_k_1_is_the_exact_beta_marginal_against_dirichlet_sampling():
    # g_1(pi) = pi_ref: its posterior sd per question is the Beta marginal's, exactly;
    # checked against 400000 seeded Dirichlet draws of the same posterior.
    answers = [["A", "A", "B", None, "C", "C", "C"], ["x", "y", "y"], ["q", "q", "q", "q"]]
    references = ["A", "z", "q"]
    concentrations = [[2 + 1, 1 + 1, 3 + 1, 1 + 1], [0 + 1, 1 + 1, 2 + 1, 0 + 1],
                      [4 + 1, 0 + 1]]  # reference first, pooled None/unseen last
    rng = np.random.default_rng(11)
    variances, means = [], []
    for alpha in concentrations:
        draws = rng.dirichlet(alpha, size=400_000)[:, 0]
        means.append(draws.mean())
        variances.append(draws.var())
    mu, sigma, _, _ = vote_at_k_ci(answers, references, 1)
    assert abs(mu - np.mean(means)) < 2e-3
    assert abs(sigma - np.sqrt(np.sum(variances)) / 3) < 0.01 * sigma
