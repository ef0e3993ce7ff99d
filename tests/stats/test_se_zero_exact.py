"""Issue 38 item 14: se = 0 is exact and never floating noise; a 5000-digit k gets kpass's
own message; user text in a Markdown table cell cannot split it.

References are independent of kpass: brute-force enumeration of sign patterns, exact
Fraction arithmetic of the sign test, and Markdown's own cell split."""

import itertools
import json
import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

import kpass
from kpass.report.cli import main
from kpass.stats.multiplicity import maxt_stepdown
from kpass.stats.small_sample import sign_flip_p

pytestmark = pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")


def brute_sign_flip(x):
    observed = abs(sum(x))
    hits = sum(abs(sum(e * v for e, v in zip(signs, x, strict=True))) >= observed - 1e-12
               for signs in itertools.product((1, -1), repeat=len(x)))
    return Fraction(hits, 2 ** len(x))


@pytest.mark.parametrize("units", [1, 2, 5, 12])
def test_sign_flip_of_equal_sizes_is_the_enumeration(units):
    for plus in range(units + 1):
        x = [0.25] * plus + [-0.25] * (units - plus) + [0.0, 0.0]  # zeros flip to themselves
        assert sign_flip_p(np.array(x)) == pytest.approx(float(brute_sign_flip(x)), abs=1e-15)


def test_sign_flip_of_equal_sizes_is_exact_past_the_enumeration():
    # 25 units (Monte Carlo before): all one sign gives 2 / 2^25; 20 of 25 the binomial tail
    assert sign_flip_p(np.full(25, 0.5)) == float(Fraction(2, 2 ** 25))
    tail = 2 * sum(Fraction(math.comb(25, j), 2 ** 25) for j in range(6))
    assert sign_flip_p(np.array([0.5] * 20 + [-0.5] * 5)) == pytest.approx(float(tail),
                                                                          rel=1e-12)


def test_compare_se_zero_p_is_two_over_two_to_the_units_not_a_floor():
    A, B = [[1, 1, 0, 1]] * 25, [[0, 1, 0, 0]] * 25
    exact = float(Fraction(2, 2 ** 25))
    c = kpass.compare(kpass.pass_at_k, A, B, 2)
    assert (c.se, c.method) == (0.0, "exact")
    assert c.p_value == exact and c.p_exact == exact
    # a dataset-level blend (a jackknife SE) agrees with the leaderboard's sign test
    g = kpass.compare(kpass.geo_spectrum_star_at_k, A, B, 4)
    assert g.se == 0.0 and g.p_value == exact
    board = kpass.leaderboard(kpass.geo_spectrum_star_at_k, {"a": A, "b": B}, 4)
    assert board.pairs[0].p_value == exact


@pytest.mark.parametrize("seed", range(3))
def test_floating_noise_is_read_as_se_zero_everywhere(seed):
    # identical questions: every per-question value is the same, so the SE is exactly 0
    # (the mean of equal floats differs from them by ~1e-17: that read as se = 2.7e-16,
    # p = 0 and a 1e-15-wide interval)
    rng = np.random.default_rng(seed)
    for n in range(3, 9):
        for m in (7, 11, 20, 23, 29):
            a, b, c = (rng.integers(0, 2, n).tolist() for _ in range(3))
            A, B, C = [a] * m, [b] * m, [c] * m
            for metric, args in ((kpass.pass_at_k, (1,)), (kpass.geo_spectrum_star_at_k, (n,)),
                                 (kpass.avg, ())):
                r = kpass.compare(metric, A, B, *args)
                assert r.se == 0.0 and r.se_a == 0.0 and r.se_b == 0.0
                assert r.p_value >= float(Fraction(2, 2 ** m))  # never below the exact test
                assert kpass.standard_error(metric, A, *args) == 0.0
                board = kpass.leaderboard(metric, {"a": A, "b": B, "c": C}, *args)
                assert all(row.se == 0.0 for row in board.rows)
                assert all(pair.se == 0.0 for pair in board.pairs)
                assert all(pair.p_value >= float(Fraction(2, 2 ** m)) or pair.difference == 0
                           for pair in board.pairs)


def test_maxt_se_zero_rows_are_exact_past_the_enumeration():
    rng = np.random.default_rng(4)
    x = np.array([[0.5] * 12, [0.25] * 12, [0.5, -0.5] * 6, rng.normal(size=12),
                  [0.5] * 11 + [-0.5], [-0.25] * 12])
    enumerated = maxt_stepdown(x)  # 12 units: all 2^11 patterns
    sampled = maxt_stepdown(x, exact_up_to=0, flips=500)
    # 3 sign classes reach T = sqrt(12): all-equal, alternating, one flipped -> 2 * 3 / 2^12
    assert enumerated[[0, 1, 5]] == pytest.approx([6 / 4096] * 3, abs=0)
    assert sampled[[0, 1, 5]] == pytest.approx(enumerated[[0, 1, 5]], abs=0)


def test_cli_compare_se_zero_rows_show_the_exact_p(tmp_path, capsys):
    for name, row in (("a", [1, 1, 0, 1]), ("b", [0, 1, 0, 0])):
        (tmp_path / f"{name}.jsonl").write_text("".join(
            json.dumps({"id": i, "outcomes": row}) + "\n" for i in range(25)))
    code = main(["compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                 "--metrics", "pass@k,geo-spectrum*@k", "--k", "2,4", "--format", "json"])
    assert code == 0
    results = json.loads(capsys.readouterr().out)["results"]
    exact = float(Fraction(2, 2 ** 25))
    shown = [r for r in results if r["difference"] != 0]
    assert len(shown) == 3
    assert all(r["p_value"] == exact and r["p_adjusted"] == exact for r in shown)


@pytest.mark.parametrize("k", [10 ** 5000, 2 ** 64, [2, 10 ** 40]],
                         ids=["5001 digits", "2**64", "list"])
def test_huge_k_is_refused_by_kpass_by_name(k):
    with pytest.raises(ValueError) as error:
        kpass.pass_at_k([[1, 0, 1]], k)
    message = str(error.value)
    assert message.startswith("`k` must be an int in [1, ") and "int_max_str_digits" not in message
    if k == 10 ** 5000:
        assert "<an int of about 5001 digits>" in message


@pytest.mark.parametrize("command", [
    ["report", "{a}", "--k", "{big}"],
    ["compare", "{a}", "{a}", "--k", "{big}"],
    ["leaderboard", "{a}", "{a}", "--k", "1,{big}"],
    ["next", "{a}", "--k", "1", "--budget", "{big}"],
])
def test_cli_huge_integer_is_one_line_by_its_size(tmp_path, capsys, command):
    path = tmp_path / "a.jsonl"
    path.write_text('{"outcomes": [1, 0]}\n' * 3)
    big = "9" * 5000
    args = [part.format(a=path, big=big) for part in command]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "a 5000-digit number" in err and len(err) < 300


def markdown_cells(line):
    """Split a Markdown table row as GitHub does: on | not preceded by a backslash."""
    return [c for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_markdown_tables_escape_a_bar_in_user_text(tmp_path, capsys):
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps({"outcomes": [i % 2, 1, 0, 1]}) + "\n" for i in range(30)))
    a, b = str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")
    odd = tmp_path / "x|y.jsonl"
    odd.write_text((tmp_path / "a.jsonl").read_text())
    for args in (["leaderboard", f"m|1={a}", f"m|2={b}"], ["report", str(odd), b]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main([*args, "--format", "markdown"]) == 0
        out = capsys.readouterr().out
        table = [line for line in out.splitlines() if line.startswith("|")]
        widths = {len(markdown_cells(line)) for line in table}
        assert len(widths) == 1, table  # every row has the header's number of cells
        assert "\\|" in out
