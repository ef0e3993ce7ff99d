"""kpass compare's verdicts (issue 29 item 1; issue 28 items 11, 13, 17, 21 for compare).

The max-T stepdown is pinned against a brute-force stepdown written here from its
definition (every sign pattern enumerated, exact Fraction arithmetic on T^2); its p-values
are compared with the single-row sign-flip test and with Holm. The table's rows are checked
against kpass.compare of each metric, the Python table against the command line, and the
jackknife pseudo-values against the jackknife SE. Seeded simulations (slow) measure the
family-wise error and power that docs/explanation/statistics.md reports.
"""

from __future__ import annotations

import doctest
import itertools
import json
import re
import warnings
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

import kpass
from kpass.families import function
from kpass.report import compare_table as compare_table_module
from kpass.report.cli import main
from kpass.report.compare_render import Line
from kpass.report.compare_rows import _row_values, _Values, judge, merge_equal
from kpass.report.table import default_ks, parse_metrics
from kpass.stats import multiplicity
from kpass.stats.multiplicity import maxt_stepdown
from kpass.stats.small_sample import sign_flip_p


def brute_stepdown(rows: list[list[Fraction]]) -> list[Fraction]:
    """Westfall-Young max-T stepdown by definition, over all 2^U sign patterns, exactly.

    T_r(e)^2 = (sum_u e_u x_ru)^2 / sum_u x_ru^2 (compared as Fractions); rows ordered by
    observed T descending; p_(j) = max_{i <= j} #{e : max_{l >= i} T_(l)(e) >= T_(i)} / 2^U.
    A row of zeros gets 1.
    """
    units = len(rows[0])
    live = [r for r, row in enumerate(rows) if any(x != 0 for x in row)]
    squares = {r: sum(x * x for x in rows[r]) for r in live}

    def t2(r: int, signs: tuple[int, ...]) -> Fraction:
        total = sum(s * x for s, x in zip(signs, rows[r], strict=True))
        return total * total / squares[r]

    ones = (1,) * units
    order = sorted(live, key=lambda r: -t2(r, ones))
    patterns = list(itertools.product((1, -1), repeat=units))
    out = [Fraction(1)] * len(rows)
    running = Fraction(0)
    for i, r in enumerate(order):
        tail = order[i:]
        hits = sum(max(t2(l, e) for l in tail) >= t2(r, ones) for e in patterns)
        running = max(running, Fraction(hits, len(patterns)))
        out[r] = running
    return out


def hand_holm(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


@pytest.mark.parametrize("seed", range(12))
def test_maxt_equals_the_brute_force_stepdown(seed):
    rng = np.random.default_rng(seed)
    rows_count, units = int(rng.integers(1, 5)), int(rng.integers(2, 8))
    # Multiples of 1/8 (Pass@1 differences of 8 samples): ties and zeros are common.
    grid = rng.integers(-3, 5, size=(rows_count, units))
    grid[rng.random(grid.shape) < 0.2] = 0
    if seed == 0:
        grid[1:] = grid[0]  # identical rows
    rows = [[Fraction(int(v), 8) for v in row] for row in grid]
    expected = brute_stepdown(rows)
    got = maxt_stepdown(grid / 8.0)
    assert got == pytest.approx([float(p) for p in expected], abs=1e-12)


def test_maxt_is_never_below_the_rows_own_sign_flip_p():
    rng = np.random.default_rng(5)
    for _ in range(40):
        units = int(rng.integers(3, 13))
        base = rng.normal(0.2, 1.0, units)
        x = np.array([base + rng.normal(0, s, units) for s in (0.0, 0.3, 1.0, 3.0)])
        x[:, rng.random(units) < 0.1] = 0.0
        adjusted = maxt_stepdown(x)
        single = np.array([sign_flip_p(row) for row in x])  # the exact single-row test
        assert (adjusted >= single - 1e-12).all()


def test_holm_is_at_least_maxt_on_positively_correlated_rows():
    # Rows that move together (as Pass@1, Pass@2, AUC@k do): max-T never pays more than
    # Holm on the same exact single-row p-values. (With weaker correlation (0.3-0.6) max-T
    # is not uniformly below Holm: 2-3 of 100 such 5-row tables have a row where it is
    # above; it is a different test, not a refinement of Holm.)
    rng = np.random.default_rng(11)
    for _ in range(40):
        units = int(rng.integers(8, 15))
        common = rng.normal(0.4, 1.0, units)
        x = np.array([common + rng.normal(0, 0.1, units) for _ in range(5)])
        assert np.corrcoef(x).min() > 0.9
        holm = hand_holm([sign_flip_p(row) for row in x])
        assert (np.array(holm) >= maxt_stepdown(x) - 1e-12).all()


def test_maxt_monte_carlo_is_seeded_and_close_to_the_single_row_test():
    rng = np.random.default_rng(2)
    x = rng.normal(0.3, 1.0, size=(1, 40))
    first, again = maxt_stepdown(x), maxt_stepdown(x)
    assert first[0] == again[0]  # reproducible
    assert first[0] == pytest.approx(sign_flip_p(x[0]), abs=0.015)  # two MC estimates
    assert maxt_stepdown(x, seed=1)[0] != first[0]


def test_maxt_refuses_bad_input():
    with pytest.raises(ValueError, match="values"):
        maxt_stepdown(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="values"):
        maxt_stepdown(np.array([[1.0, np.nan]]))
    with pytest.raises(ValueError, match="flips"):
        maxt_stepdown(np.ones((1, 30)), flips=0)
    assert list(maxt_stepdown(np.zeros((2, 3)))) == [1.0, 1.0]


def test_docstring_examples_run():
    for module in (multiplicity, compare_table_module):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.attempted > 0 and result.failed == 0


# ------------------------------------------------------------------ the table

def counts(seed: int, m: int = 12, n: int = 4, shift: float = 0.0, ids: bool = True):
    rng = np.random.default_rng(seed)
    b = rng.normal(0.0, 1.5, m)
    names = [f"q{i}" for i in range(m)]
    a_counts = rng.binomial(n, expit(b + shift))
    b_counts = rng.binomial(n, expit(b))
    return (kpass.BinaryCounts([n] * m, a_counts, ids=names if ids else None),
            kpass.BinaryCounts([n] * m, b_counts, ids=names if ids else None))


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        return call(*args, **kwargs)


def test_equal_rows_are_merged_and_every_row_keeps_its_numbers():
    A, B = counts(1)
    table = kpass.compare_table(A, B, k=[1, 2, 4])
    shown = [row for row in table.rows if row["same_as"] is None]
    first = shown[0]
    assert first["label"] == "Pass@1" and first["role"] == "primary"
    assert {"Pass@1", "Pass^1", "G-Pass@1_0.5", "Maj@1"} <= set(first["names"])
    # Each merged-away row keeps its own numbers, which equal kpass.compare of its metric.
    for row in table.rows:
        fam = next(f for f in parse_metrics(None) if f.key == row["metric"])
        head = (0.5,) if fam.uses_tau else ()
        args = ((row["k"], *head) if fam.per_k else ())
        expected = quiet(kpass.compare, function(fam.function), A, B, *args)
        assert row["difference"] == pytest.approx(expected.difference, abs=1e-12)
        assert row["se"] == pytest.approx(expected.se, abs=1e-12)
        assert row["p_value"] == pytest.approx(expected.p_value, abs=1e-12)
        if row["same_as"] is not None:
            twin = next(r for r in shown if r["label"] == row["same_as"])
            assert row["p_adjusted"] == twin["p_adjusted"] and row["verdict"] == twin["verdict"]
    # Rows equal on every question really are: the per-question values agree.
    labels = [line.title for line in table.lines]
    assert len(labels) == len(set(labels)) == len(shown)
    assert any("shown once" in note for note in table.notes)


def test_primary_is_tested_alone_and_secondaries_by_maxt():
    A, B = counts(3, m=9, shift=1.2)
    table = kpass.compare_table(A, B, metrics="pass@k,pass^k", k=[1, 2, 4])
    lines = table.lines
    assert lines[0].role == "primary" and lines[0].p_adjusted == lines[0].result.p_value
    secondary = lines[1:]
    units = np.array([line.values.units for line in secondary])
    # independent: the brute-force stepdown on the same per-question differences
    expected = brute_stepdown([[Fraction(v).limit_denominator(10**6) for v in row]
                               for row in units])
    assert [line.p_adjusted for line in secondary] == pytest.approx(
        [float(p) for p in expected], abs=1e-9)
    # the per-question differences are kpass.compare's: their mean is its difference
    for line in secondary:
        assert line.values.units.mean() == pytest.approx(line.result.difference, abs=1e-12)
    alpha = 0.05
    for line in lines:
        assert (line.verdict != "no detectable difference") == (line.p_adjusted < alpha)
    holm = kpass.compare_table(A, B, metrics="pass@k,pass^k", k=[1, 2, 4], adjust="holm")
    assert [line.p_adjusted for line in holm.lines[1:]] == pytest.approx(
        hand_holm([line.result.p_value for line in holm.lines[1:]]))


def test_primary_forms_and_none():
    A, B = counts(4)
    by_label = kpass.compare_table(A, B, metrics="pass@k", k=[1, 4], primary="Pass@4")
    by_key = kpass.compare_table(A, B, metrics="pass@k", k=[1, 4], primary="pass@k:4")
    assert by_label.rows[0]["label"] == by_key.rows[0]["label"] == "Pass@4"
    merged = kpass.compare_table(A, B, k=[1, 2], primary="maj@k:1")  # a merged name
    assert merged.rows[0]["label"] == "Pass@1"
    none = kpass.compare_table(A, B, metrics="pass@k", k=[1, 4], primary="none")
    assert all(row["role"] == "secondary" for row in none.rows)
    units = np.array([line.values.units for line in none.lines])
    assert [row["p_adjusted"] for row in none.rows] == pytest.approx(list(maxt_stepdown(units)))
    with pytest.raises(ValueError, match="`primary` pass@7: no such row"):
        kpass.compare_table(A, B, metrics="pass@k", k=[1, 4], primary="pass@7")
    with pytest.raises(TypeError, match="primary"):
        kpass.compare_table(A, B, primary=1)
    with pytest.raises(ValueError, match="adjust"):
        kpass.compare_table(A, B, adjust="bonferroni")
    with pytest.raises(TypeError, match="shared"):
        kpass.compare_table(A, B, shared="no")


def test_constant_rows_are_left_out_with_a_note():
    A, B = counts(5)
    table = kpass.compare_table(A, B, metrics="geo-spectrum*@k,mg-pass@k", k=[1, 2])
    labels = {row["label"] for row in table.rows}
    assert "GeoSpectrum*@1" not in labels and "mG-Pass@1" not in labels
    assert any("GeoSpectrum*@1 left out" in note for note in table.notes)


def test_dataset_level_rows_use_jackknife_pseudo_values():
    A, B = counts(6, m=15)
    point = kpass.geo_spectrum_star_at_k
    expected = quiet(kpass.compare, point, A, B, [2, 3])
    values = _row_values(point, "geo_spectrum_star_at_k", A, B, ([2, 3],), {}, None, False)
    for value, result in zip(values, expected, strict=True):
        d = value.units
        # the pseudo-values' CLT SE is the jackknife SE kpass.compare reports
        assert d.std(ddof=1) / np.sqrt(d.size) == pytest.approx(result.se, rel=1e-9)
    table = kpass.compare_table(A, B, metrics="pass@k,geo-spectrum*@k", k=[2, 3])
    assert all(row["p_adjusted"] is not None for row in table.rows)


def test_clustered_maxt_flips_cluster_totals():
    A, B = counts(7, m=12, shift=0.5)
    labels = ["c" + str(i % 5) for i in range(12)]
    table = kpass.compare_table(A, B, metrics="pass@k", k=[1, 2, 4], clusters=labels)
    per_question = _row_values(kpass.pass_at_k, "pass_at_k", A, B, ([2, 4],), {}, None, False)
    totals = np.array([np.bincount([i % 5 for i in range(12)], weights=v.units)
                       for v in per_question])
    expected = brute_stepdown([[Fraction(x).limit_denominator(10**6) for x in row]
                               for row in totals])
    assert [line.p_adjusted for line in table.lines[1:]] == pytest.approx(
        [float(p) for p in expected], abs=1e-9)


# ------------------------------------------------------ Python = command line

def write_jsonl(path, counts_, n):
    with open(path, "w") as f:
        for qid, c in zip(counts_.ids, counts_.n_correct, strict=True):
            f.write(json.dumps({"id": qid, "outcomes": [1] * int(c) + [0] * (n - int(c))})
                    + "\n")
    return str(path)


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_compare_table_rows_equal_the_command_lines(tmp_path, capsys):
    A, B = counts(8, m=10, shift=0.7)
    a, b = write_jsonl(tmp_path / "a.jsonl", A, 4), write_jsonl(tmp_path / "b.jsonl", B, 4)
    code, out, err = run(capsys, "compare", a, b, "--id", "id", "--format", "json",
                         "--primary", "pass@k:2")
    assert code == 0, err
    cli = json.loads(out)["results"]
    table = kpass.compare_table(A, B, primary="pass@k:2")
    assert len(cli) == len(table.rows)
    for row, other in zip(cli, table.rows, strict=True):
        for key in ("label", "names", "same_as", "role", "verdict", "p_adjusted", "difference",
                    "se", "p_value", "p_exact", "prob_a_better"):
            assert row[key] == other[key], key
    assert table.render("json").count('"p_adjusted"') == len(cli)
    assert str(table).splitlines()[1].startswith("primary: ")
    assert table.render(explain=True).splitlines()[4].startswith("primary comparison")


def test_cli_words_three_decimals_and_plot_message(tmp_path, capsys):
    A, B = counts(9, m=12, shift=1.5)
    a, b = write_jsonl(tmp_path / "a.jsonl", A, 4), write_jsonl(tmp_path / "b.jsonl", B, 4)
    plot = tmp_path / "d.png"
    code, out, err = run(capsys, "compare", a, b, "--id", "id", "--plot", str(plot),
                         "--explain")
    assert code == 0 and plot.exists()
    assert f"wrote {plot}" in err
    assert "kpass.compare(" not in out and "p_exact" not in out and "*_ci" not in out.replace(
        "use the Bayesian interval (*_ci)", "")  # that note is the intervals helper's
    assert "= <" not in out  # never "p = <0.001"
    verdict_lines = [line.strip() for line in out.splitlines()
                     if line.strip().startswith(("A is better", "B is better", "no detect"))
                     and " rows (" not in line]
    for line in verdict_lines:
        for number in re.findall(r"-?\d+\.\d+", line.split(": ")[-1].split(" by ")[-1]):
            assert len(number.split(".")[1]) == 3, line
    legend = " ".join(out.split())  # the legend is wrapped
    assert "a statement about these questions" in legend
    assert "not used by the verdicts" in legend and "can disagree with the difference" in legend
    assert "symmetric about 0" in legend  # p exact tests symmetry (12 questions: shown)


def test_cli_adjust_and_bad_primary(tmp_path, capsys):
    A, B = counts(10)
    a, b = write_jsonl(tmp_path / "a.jsonl", A, 4), write_jsonl(tmp_path / "b.jsonl", B, 4)
    code, out, err = run(capsys, "compare", a, b, "--id", "id", "--primary", "maj@9")
    assert code == 1 and "--primary maj@9: no such row" in err and "Traceback" not in err
    code, out, err = run(capsys, "compare", a, b, "--id", "id", "--adjust", "holm",
                         "--format", "json")
    assert code == 0 and json.loads(out)["adjust"] == "holm"


# ------------------------------------------------------ issue 28 items 11 and 13

def test_shared_must_be_a_bool_and_clusters_label_a():
    A, B = counts(11, m=10)
    with pytest.raises(TypeError, match="`shared` must be True or False; got shared='no'"):
        kpass.compare(kpass.pass_at_k, A, B, 1, shared="no")
    B_part = B.select(np.arange(10) < 8)  # B lacks q8, q9
    labels = ["x", "y"] * 5
    with pytest.raises(ValueError, match="one label per question of the first run"):
        quiet(kpass.compare, kpass.pass_at_k, A, B_part, 1, shared=True, clusters=labels[:8])
    got = quiet(kpass.compare, kpass.pass_at_k, A, B_part, 1, shared=True, clusters=labels)
    keep = np.arange(10) < 8
    expected = quiet(kpass.compare, kpass.pass_at_k, A.select(keep), B_part, 1,
                     clusters=labels[:8])
    assert got.se == pytest.approx(expected.se) and got.questions == 8


def test_answers_with_different_references_are_refused(tmp_path, capsys):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"id": "q1", "answers": ["1", "2"], "reference": "1"}\n'
                 '{"id": "q2", "answers": ["3", "3"], "reference": "3"}\n'
                 '{"id": "q3", "answers": ["170", "1"], "reference": "170"}\n')
    b.write_text('{"id": "q3", "answers": ["170", "1"], "reference": "170.0"}\n'
                 '{"id": "q2", "answers": ["3", "1"], "reference": "4"}\n'
                 '{"id": "q1", "answers": ["1", "1"], "reference": "5"}\n')
    code, out, err = run(capsys, "compare", str(a), str(b), "--answers", "--id", "id",
                         "--k", "1")
    assert code == 1 and out == ""
    assert "question id 'q1' has reference '1'" in err and "'5'" in err  # the first, A's order
    b.write_text('{"id": "q3", "answers": ["170", "1"], "reference": "170.0"}\n'
                 '{"id": "q2", "answers": ["3", "1"], "reference": "3"}\n'
                 '{"id": "q1", "answers": ["1", "1"], "reference": "1"}\n')
    code, out, err = run(capsys, "compare", str(a), str(b), "--answers", "--id", "id",
                         "--k", "1")
    assert code == 0, err  # 170 and 170.0 are one reference


# ------------------------------------------------------ seeded simulation (slow)

M, N = 30, 8


def value_table():
    """Every default row's per-question value for each count 0..8 (the metrics' own)."""
    states = kpass.BinaryCounts([N] * (N + 1), list(range(N + 1)))
    ks, rows = default_ks(N), []
    for fam in parse_metrics(None):
        point = function(fam.function)
        if not fam.per_k:
            rows.append((fam.key, fam.label(None, None, "n"), None,
                         np.asarray(point(states, per_question=True), dtype=float)))
            continue
        family_ks = [k for k in ks if k not in fam.constant_at]
        head = (0.5,) if fam.uses_tau else ()
        for k, v in zip(family_ks, point(states, family_ks, *head, per_question=True),
                        strict=True):
            rows.append((fam.key, fam.label(k, head[0] if head else None, "n"), k,
                         np.asarray(v, dtype=float)))
    return rows


def simulate(reps, shift, seed, primary=None, adjust="max-t", flips=1000):
    """Verdicts of the default table on M x N draws with difficulty N(0, 1.5^2).

    The rows' per-question values are the metrics' own (tabulated over counts 0..N); the
    primary row's p is the paired t test; merging, the primary test, max-T and the verdicts
    are kpass's (merge_equal, judge).
    """
    rng, table = np.random.default_rng(seed), value_table()
    assert len(table) == 48
    values = np.array([row[3] for row in table])  # (rows, N + 1)
    secondary = primary_found = anywhere = pass1 = 0
    for _ in range(reps):
        b = rng.normal(0.0, 1.5, M)
        ca, cb = rng.binomial(N, expit(b + shift)), rng.binomial(N, expit(b))
        va, vb = values[:, ca], values[:, cb]
        d = va - vb
        mean, se = d.mean(axis=1), d.std(axis=1, ddof=1) / np.sqrt(M)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(se > 0, 2 * stats.t.sf(np.abs(mean) / se, M - 1), mean == 0)
        lines = [Line(key, label, k, None, SimpleNamespace(p_value=float(p[r]),
                                                           difference=float(mean[r]),
                                                           margin=None, equivalence=False),
                      values=_Values(va[r], vb[r], d[r]))
                 for r, (key, label, k, _) in enumerate(table)]
        judged = judge(merge_equal(lines, []), 0.95, primary, adjust, flips=flips)
        found = [line.verdict != "no detectable difference" for line in judged]
        secondary += any(f for f, line in zip(found, judged, strict=True)
                         if line.role != "primary")
        primary_found += any(f for f, line in zip(found, judged, strict=True)
                             if line.role == "primary")
        anywhere += any(found)
        pass1 += any("Pass@1" in line.names and line.verdict == "A better" for line in judged)
    return {"secondary": secondary / reps, "primary": primary_found / reps,
            "any": anywhere / reps, "pass1": pass1 / reps}


@pytest.mark.slow
def test_simulated_family_wise_error_and_power():
    # Seeded; the rates docs/explanation/statistics.md reports come from
    # benchmarks/bench_compare_power.py (1000 replications). Here 300 (null) and 150 (shift)
    # keep the test near 40 s.
    null = simulate(300, 0.0, seed=101)
    print("null (300 reps, seed 101):", null)
    assert 0.02 <= null["secondary"] <= 0.06  # max-T over the secondary rows
    assert 0.02 <= null["primary"] <= 0.08  # the t test alone (0.05 +- 2.3 se of 300)
    assert null["any"] <= 2 * 0.05 + 0.02  # the two families together: at most 2 alpha
    everything = simulate(300, 0.0, seed=102, primary="none")
    print("null, --primary none (300 reps, seed 102):", everything)
    assert 0.02 <= everything["any"] <= 0.06
    as_primary = simulate(150, 0.6, seed=103)
    as_secondary = simulate(150, 0.6, seed=103, primary="Pass@8")
    holm = simulate(150, 0.6, seed=103, primary="Pass@8", adjust="holm")
    print("shift 0.6 (150 reps, seed 103): primary", as_primary, "secondary", as_secondary,
          "holm", holm)
    assert as_primary["pass1"] >= 0.70
    # Pass@1 as a secondary row is found about half the time (0.51 in 1000 replications
    # of the benchmark; the target is 0.50): at 150 replications the estimate has
    # se 0.04, so 0.42 is its 2-se floor. Holm finds it about half as often (0.27 here).
    assert as_secondary["pass1"] >= 0.42
    assert as_secondary["pass1"] >= 1.5 * holm["pass1"]


@pytest.mark.slow
def test_full_path_agrees_with_the_fast_simulation():
    # A few replications through kpass.compare_table itself: the same verdict rule.
    rng = np.random.default_rng(7)
    for _ in range(3):
        b = rng.normal(0.0, 1.5, M)
        ca, cb = rng.binomial(N, expit(b + 0.6)), rng.binomial(N, expit(b))
        A, B = kpass.BinaryCounts([N] * M, ca), kpass.BinaryCounts([N] * M, cb)
        table = kpass.compare_table(A, B)
        assert len(table.rows) == 48
        rows = [row for row in table.rows if row["same_as"] is None]
        assert rows[0]["role"] == "primary" and rows[0]["p_adjusted"] == rows[0]["p_value"]
        units = np.array([line.values.units for line in table.lines[1:]])
        assert [row["p_adjusted"] for row in rows[1:]] == pytest.approx(
            list(maxt_stepdown(units)))


@pytest.mark.parametrize(("units", "flips"), [(300, 20_000), (14_000, 700)])
def test_random_sign_blocks_stay_small_and_keep_the_stream(units, flips):
    """The max-T draws at most 2^22 signs at once (16,384 rows x 14,000 questions were
    1.8 GB), and cutting the blocks smaller draws the very same signs as 16,384-row blocks."""
    from kpass.stats import multiplicity

    blocks = list(multiplicity._patterns(units, flips, 7, 0))
    assert all(block.size <= 1 << 22 for block in blocks)
    assert sum(block.shape[0] for block in blocks) == flips
    if units == 300:  # the old layout, drawn here directly: the same signs in the same order
        rng = np.random.default_rng(7)
        old = [2.0 * rng.integers(0, 2, size=(min(1 << 14, flips - start), units)) - 1.0
               for start in range(0, flips, 1 << 14)]
        np.testing.assert_array_equal(np.vstack(blocks), np.vstack(old))
