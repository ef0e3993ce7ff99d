"""`kpass report`: numbers against exact references, output formats, plots, errors."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
from fractions import Fraction
from math import comb
from statistics import NormalDist

import numpy as np
import pytest

from kpass.data import sample_path
from kpass.report.cli import main

ROWS = [[1, 0, 1, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1, 1, 1], [0, 1, 0, 0, 1, 1, 0],
        [1, 1, 0, 1]]


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write_jsonl(path, rows, column="outcomes"):
    path.write_text("".join(json.dumps({column: row}) + "\n" for row in rows))
    return path


# ----------------------------------------------------------------------------- exact references


def rising(x, m):
    result = Fraction(1)
    for i in range(m):
        result *= x + i
    return result


def credit_pass(k):
    return lambda j: Fraction(int(j >= 1))


def credit_unanimous(k):
    return lambda j: Fraction(int(j == k))


def credit_threshold(tau):
    def credit(k):
        threshold = max(1, math.ceil(Fraction(tau) * k))
        return lambda j: Fraction(int(j >= threshold))
    return credit


def credit_majority(k):
    return lambda j: Fraction(int(j >= k // 2 + 1))


def credit_mg(k):
    return lambda j: Fraction(2, k) * max(0, j - math.ceil(k / 2))


def credit_auc(k):
    weights = [Fraction(1)] if k == 1 else (
        [Fraction(1, 2 * (k - 1))] + [Fraction(1, k - 1)] * (k - 2) + [Fraction(1, 2 * (k - 1))])
    # Pass@i of the k drawn samples is unbiased for 1 - (1 - p)^i, so AUC@k is a credit too.
    return lambda j: sum(w * (1 - Fraction(comb(k - j, i), comb(k, i)))
                         for i, w in enumerate(weights, 1))


CREDITS = {"pass@k": credit_pass, "pass^k": credit_unanimous, "g-pass@k": credit_threshold(0.5),
           "maj@k": credit_majority, "mg-pass@k": credit_mg, "auc@k": credit_auc}


def exact_estimate(rows, k, credit):
    """Mean over questions of E[A_X], X ~ Hypergeometric(n, c, k)."""
    total = Fraction(0)
    for row in rows:
        n, c = len(row), sum(row)
        total += sum(Fraction(comb(c, j) * comb(n - c, k - j), comb(n, k)) * credit(j)
                     for j in range(k + 1))
    return total / len(rows)


def exact_posterior(rows, k, credit, confidence=0.95):
    """Mean, sd and normal interval of the Bernstein polynomial under Beta(1 + c, 1 + n - c)."""
    means, variances = [], []
    for row in rows:
        a, b = 1 + sum(row), 1 + len(row) - sum(row)
        first = sum(credit(j) * comb(k, j) * rising(a, j) * rising(b, k - j)
                    for j in range(k + 1)) / rising(a + b, k)
        second = sum(credit(j) * credit(i) * comb(k, j) * comb(k, i) * rising(a, i + j)
                     * rising(b, 2 * k - i - j)
                     for j in range(k + 1) for i in range(k + 1)) / rising(a + b, 2 * k)
        means.append(first)
        variances.append(second - first * first)
    mu = float(sum(means) / len(rows))
    sigma = math.sqrt(float(sum(variances))) / len(rows)
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    return mu, sigma, max(0.0, mu - z * sigma), min(1.0, mu + z * sigma)


def json_results(capsys, *args):
    code, out, err = run(capsys, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


# ----------------------------------------------------------------------------- the numbers


def test_default_run_reproduces_the_published_tau_bench_pass_hat_k(capsys):
    code, out, err = run(capsys, "report")
    assert code == 0 and err == ""
    table = {line.split()[0]: line.split()[1] for line in out.splitlines() if line[:1].isalpha()}
    assert [table[f"Pass^{k}"] for k in (1, 2, 3, 4)] == ["0.420", "0.273", "0.220", "0.200"]
    assert "tau_bench_airline_gpt4o.jsonl: 50 questions, 4 samples each" in out
    assert "Sample data: tau-bench" in out and "MIT licence" in out


def test_default_run_matches_exact_fractions_on_the_sample(capsys):
    with sample_path().open() as handle:
        rows = [json.loads(line)["outcomes"] for line in handle if line.strip()]
    # the bundled sample with no --metrics: its published metrics; every default one on request
    assert sorted({r["metric"] for r in json_results(capsys, "report")["results"]}) == [
        "pass@k", "pass^k"]
    document = json_results(capsys, "report", "--metrics", ",".join(
        ["pass@k", "pass^k", "g-pass@k", "mg-pass@k", "maj@k", "auc@k", "avg@n"]))
    results = {(r["metric"], r["k"]): r for r in document["results"]}
    assert sorted({r["metric"] for r in document["results"]}) == sorted(
        ["pass@k", "pass^k", "g-pass@k", "mg-pass@k", "maj@k", "auc@k", "avg@n"])
    assert {r["k"] for r in document["results"] if r["k"] is not None} == {1, 2, 3, 4}
    for (metric, k), row in results.items():
        if metric == "avg@n":
            continue
        credit = CREDITS[metric](k)
        assert row["estimate"] == pytest.approx(float(exact_estimate(rows, k, credit)), rel=1e-12)
        assert (row["mean"], row["sd"], row["cred_lo"], row["cred_hi"]) == pytest.approx(
            exact_posterior(rows, k, credit), rel=1e-9, abs=1e-12)
    published = [Fraction(42, 100), Fraction(41, 150), Fraction(22, 100), Fraction(20, 100)]
    for k, value in zip((1, 2, 3, 4), published, strict=True):
        assert exact_estimate(rows, k, credit_unanimous(k)) == value


@pytest.mark.parametrize("confidence", [0.8, 0.95])
def test_ragged_file_matches_exact_references_at_every_k(tmp_path, capsys, confidence):
    path = write_jsonl(tmp_path / "ragged.jsonl", ROWS)
    document = json_results(capsys, "report", path, "--tau", "0.5,0.75",
                            "--confidence", confidence, "--metrics", "all")
    assert document["inputs"][0] | {"bad_rows": []} == {
        "file": "ragged.jsonl", "path": str(path), "column": "outcomes", "questions": 5,
        "n_min": 4, "n_max": 7, "bad_rows": [], "run": None}
    credits = dict(CREDITS, **{"cons@k": credit_majority})
    checked = 0
    for row in document["results"]:
        if row["metric"] in ("avg@n", "geo-spectrum*@k"):
            continue
        if row["metric"] == "g-pass@k":
            credit = credit_threshold(row["tau"])(row["k"])
        else:
            credit = credits[row["metric"]](row["k"])
        assert row["estimate"] == pytest.approx(float(exact_estimate(ROWS, row["k"], credit)),
                                                rel=1e-12)
        assert (row["mean"], row["sd"], row["cred_lo"], row["cred_hi"]) == pytest.approx(
            exact_posterior(ROWS, row["k"], credit, confidence), rel=1e-9, abs=1e-12)
        checked += 1
    assert checked == 4 * 8  # k = 1..4 for 7 families + a second tau


def test_avg_matches_the_reference_library_on_a_rectangular_matrix(tmp_path, capsys):
    scorio_eval = pytest.importorskip("scorio.eval")
    rng = np.random.default_rng(3)
    matrix = rng.integers(0, 2, size=(30, 6))
    path = tmp_path / "m.npy"
    np.save(path, matrix)
    row = json_results(capsys, "report", path, "--metrics", "avg@n")["results"][0]
    expected = scorio_eval.avg_ci(matrix, bounds=(0.0, 1.0))
    assert (row["estimate"], row["sd"], row["cred_lo"], row["cred_hi"]) == pytest.approx(
        (expected[0], expected[1], expected[2], expected[3]), rel=1e-9)
    assert row["label"] == "Avg@6"


def test_every_format_gives_the_same_numbers(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    jsonl = write_jsonl(tmp_path / "a.jsonl", ROWS)
    parquet = tmp_path / "b.parquet"
    pq.write_table(pa.table({"correct": ROWS}), parquet)
    csv_path = tmp_path / "c.csv"
    csv_path.write_text("scores\n" + "".join(f'"{row}"\n' for row in ROWS))
    document = json_results(capsys, "report", jsonl, parquet, csv_path)
    by_file = {}
    for row in document["results"]:
        by_file.setdefault(row["file"], []).append(
            (row["metric"], row["k"], row["estimate"], row["mean"], row["sd"]))
    assert list(by_file) == ["a.jsonl", "b.parquet", "c.csv"]
    assert by_file["a.jsonl"] == by_file["b.parquet"] == by_file["c.csv"]
    assert [entry["column"] for entry in document["inputs"]] == ["outcomes", "correct", "scores"]


# ----------------------------------------------------------------------------- selection


def test_k_metrics_tau_and_confidence_select_the_rows(tmp_path, capsys):
    path = write_jsonl(tmp_path / "r.jsonl", ROWS)
    document = json_results(capsys, "report", path, "--k", "3", "--k", "1,3", "--metrics",
                            "pass_hat_k,G-Pass@k", "--tau", "0.5,1", "--confidence", "0.9")
    assert [(r["label"], r["k"], r["tau"]) for r in document["results"]] == [
        ("Pass^1", 1, None), ("Pass^3", 3, None),
        ("G-Pass@1_0.5", 1, 0.5), ("G-Pass@3_0.5", 3, 0.5),
        ("G-Pass@1_1", 1, 1.0), ("G-Pass@3_1", 3, 1.0)]
    results = document["results"]
    assert results[1]["estimate"] == pytest.approx(results[5]["estimate"])  # tau = 1 is Pass^k
    assert document["confidence"] == 0.9
    code, out, _ = run(capsys, "report", path, "--k", "2", "--confidence", "0.9")
    assert code == 0 and "90% interval" in out


def test_default_ladder_is_every_k_up_to_eight_then_powers_of_two_and_n(tmp_path, capsys):
    path = tmp_path / "wide.npy"
    np.save(path, np.eye(3, 80, dtype=np.int8))
    document = json_results(capsys, "report", path, "--metrics", "pass@k")
    assert [r["k"] for r in document["results"]] == [1, 2, 4, 8, 16, 32, 64, 80]
    aime = json_results(capsys, "report", sample_path("aime25_q06_gpt_oss_20b.json"),
                        "--metrics", "pass^k")
    assert aime["results"][0]["estimate"] == pytest.approx(32 / 80)


def test_short_skip_reports_how_many_questions_each_k_uses(tmp_path, capsys):
    path = write_jsonl(tmp_path / "r.jsonl", ROWS)
    document = json_results(capsys, "report", path, "--k", "4,5,6,7", "--short", "skip",
                            "--metrics", "pass@k")
    assert [(r["k"], r["questions"]) for r in document["results"]] == [
        (4, 5), (5, 3), (6, 2), (7, 1)]
    kept = [row for row in ROWS if len(row) >= 6]
    assert document["results"][2]["estimate"] == pytest.approx(
        float(exact_estimate(kept, 6, credit_pass(6))))
    code, out, _ = run(capsys, "report", path, "--k", "6", "--short", "skip")
    assert code == 0 and "questions" in out.splitlines()[2]


def test_several_files_are_shown_side_by_side(tmp_path, capsys):
    a = write_jsonl(tmp_path / "model_a.jsonl", ROWS)
    b = write_jsonl(tmp_path / "model_b.jsonl", [[1 - v for v in row] for row in ROWS])
    code, out, err = run(capsys, "report", a, b, "--metrics", "pass@k,pass^k")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("model_a.jsonl: 5 questions, 4 to 7 samples each")
    assert lines[1].startswith("model_b.jsonl: 5 questions")
    header = next(line for line in lines if line.startswith(" ") and "model_a" in line)
    assert header.index("model_a.jsonl") < header.index("model_b.jsonl")
    pass_one = next(line for line in lines if line.startswith("Pass@1 ")).split()
    pass_a = sum(Fraction(sum(row), len(row)) for row in ROWS) / len(ROWS)
    assert len(pass_one) == 17  # per file: estimate, se, [interval], mean, sd, [credible]
    assert (pass_one[1], pass_one[9]) == (f"{float(pass_a):.3f}", f"{float(1 - pass_a):.3f}")
    # se: sd of the per-question Pass@1 values / sqrt(M), the same for the complement file
    import statistics
    values = [sum(row) / len(row) for row in ROWS]
    se = statistics.stdev(values) / len(values) ** 0.5
    assert pass_one[2] == pass_one[10] == f"{se:.3f}"
    code, out, _ = run(capsys, "report", a, b, "--format", "markdown", "--k", "1")
    header, align, *body = out.splitlines()
    assert header.startswith("| metric | model_a.jsonl estimate |")
    assert header.count("|") == align.count("|") == body[0].count("|") == 14


def test_csv_and_markdown_outputs_are_well_formed(capsys):
    code, out, _ = run(capsys, "report", "--format", "csv", "--k", "1,4", "--metrics",
                       "pass@k,pass^k,g-pass@k,mg-pass@k,maj@k,auc@k,avg@n")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 6 * 2 + 1
    assert rows[0]["file"] == "tau_bench_airline_gpt4o.jsonl"
    pass_hat = [row for row in rows if row["metric"] == "pass^k"]
    assert [float(row["estimate"]) for row in pass_hat] == pytest.approx([0.42, 0.2])
    code, out, _ = run(capsys, "report", "--format", "markdown", "--digits", "4",
                       "--metrics", "pass^k")
    assert out.splitlines()[:3] == [
        "| metric | estimate | se | 95% interval | mean | sd | 95% credible |",
        "| :--- | ---: | ---: | :--- | ---: | ---: | :--- |",
        out.splitlines()[2]]
    assert out.splitlines()[2].startswith("| Pass^1 | 0.4200 |")


# ----------------------------------------------------------------------------- plot


def test_plot_renders_a_non_empty_image_of_the_expected_size(tmp_path, capsys):
    import matplotlib.image

    a = write_jsonl(tmp_path / "a.jsonl", ROWS)
    target = tmp_path / "curves.png"
    code, out, err = run(capsys, "report", a, sample_path(), "--plot", target)
    assert code == 0, err
    assert "Pass@1" in out
    image = matplotlib.image.imread(target)
    assert image.shape[:2] == (750, 1000)
    assert float(image[..., :3].std()) > 0.05  # lines, bands and text, not a blank canvas
    assert target.stat().st_size > 20_000


def test_plot_band_is_the_interval_over_questions_by_default(tmp_path, monkeypatch, capsys):
    from kpass.report import plot

    drawn = {}

    def record(path, labels, rows, confidence, band="se"):
        drawn["band"] = band
        drawn["rows"] = rows

    monkeypatch.setattr(plot, "plot_curves", record)
    a = write_jsonl(tmp_path / "a.jsonl", ROWS)
    assert run(capsys, "report", a, "--plot", tmp_path / "x.png")[0] == 0
    assert drawn["band"] == "se"
    assert run(capsys, "report", a, "--plot", tmp_path / "x.png", "--band", "posterior")[0] == 0
    assert drawn["band"] == "posterior"
    monkeypatch.undo()
    # The two bands differ: the SE band is the interval over questions, the posterior
    # band the credible interval; each is drawn from its own columns.
    images = []
    for band in ("se", "posterior"):
        target = tmp_path / f"{band}.png"
        assert run(capsys, "report", a, "--plot", target, "--band", band)[0] == 0
        images.append(target.read_bytes())
    assert images[0] != images[1]
    with pytest.raises(ValueError, match="`band` must be one of 'se', 'posterior'"):
        plot.plot_curves(str(tmp_path / "y.png"), ["a"], [[]], 0.95, band="sd")


def test_plot_into_a_missing_directory_is_a_one_line_error(tmp_path, capsys):
    code, _, err = run(capsys, "report", "--plot", tmp_path / "no" / "such" / "dir.png")
    assert code == 1
    assert err.count("\n") == 1 and "cannot write the plot" in err


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("args,needle", [
    (["--k", "0"], "argument --k: k must be >= 1; got k=0"),
    (["--k", "two"], "argument --k: expected integers >= 1"),
    (["--tau", "1.5"], "argument --tau: tau must be in [0, 1]"),
    (["--confidence", "1"], "argument --confidence: confidence must be in (0, 1)"),
    (["--metrics", "pass@k,bogus"], "unknown metric 'bogus'"),
    (["--format", "xml"], "argument --format: invalid choice"),
    (["--short", "drop"], "argument --short: invalid choice"),
    (["--digits", "-1"], "argument --digits"),
    (["--nonsense"], "unrecognized arguments: --nonsense"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, args, needle):
    code, out, err = run(capsys, "report", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("kpass report: error: ")
    assert needle in err


def test_bad_files_exit_1_naming_file_line_and_problem(tmp_path, capsys):
    ok = write_jsonl(tmp_path / "ok.jsonl", ROWS)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"outcomes": [1, 0]}\n{"outcomes": [1, 0.7, 0]}\n')
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    cases = [
        ([tmp_path / "missing.jsonl"], f"{tmp_path / 'missing.jsonl'}: no such file"),
        ([empty], f"{empty}: the file is empty"),
        ([ok, "--column", "correct"], f"{ok}: line 1: no column `correct`; the columns are "
                                      "`outcomes`"),
        ([bad], f"{bad}: line 2: `outcomes` must hold binary outcomes 0 or 1 for the pass "
                "metrics; got outcomes[1]=0.7"),
        ([ok, "--k", "5"], f"{ok}: line 2: the question has n=4 samples, fewer than k=5; "
                           "choose --k up to 4, or pass --short skip"),
        ([ok, "--k", "8", "--short", "skip"], f"{ok}: k=8 is larger than every question's"),
        ([sample_path("aime25_q06_gpt_oss_20b.json"), "--column", "scores"],
         "question 1: `scores` must hold binary outcomes 0 or 1"),
    ]
    for args, needle in cases:
        code, out, err = run(capsys, "report", *args)
        assert code == 1 and out == "", args
        assert err.count("\n") == 1 and err.startswith("kpass report: error: "), err
        assert needle in err, (needle, err)


def test_skip_bad_lists_each_left_out_row_and_reports_the_rest(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    path.write_text('{"outcomes": [1, 1]}\n{"outcomes": [2, 1]}\nnot json\n{"outcomes": [0, 1]}\n')
    code, out, err = run(capsys, "report", path, "--skip-bad", "--format", "json")
    assert code == 0
    assert err.splitlines() == [
        f"kpass report: warning: {path}: line 2: `outcomes` must hold binary outcomes 0 or 1 for "
        "the pass metrics; got outcomes[0]=2 (row left out)",
        f"kpass report: warning: {path}: line 3: not valid JSON (Expecting value) (row left out)",
    ]
    document = json.loads(out)
    assert document["inputs"][0]["questions"] == 2
    assert [bad["where"] for bad in document["inputs"][0]["bad_rows"]] == ["line 2", "line 3"]
    pass_one = next(r for r in document["results"] if r["label"] == "Pass@1")
    assert pass_one["estimate"] == pytest.approx(0.75)


def test_no_command_shows_help_and_version_works(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "report" in err
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("kpass ")
    code, out, _ = run(capsys, "report", "--help")
    assert code == 0 and "--plot" in out and "--short" in out


def test_the_command_runs_as_a_module_and_is_quiet_on_stderr_without_a_terminal():
    done = subprocess.run([sys.executable, "-m", "kpass.report.cli", "report", "--k", "1",
                           "--metrics", "pass^k", "--format", "csv"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines()[1].startswith("tau_bench_airline_gpt4o.jsonl,pass^k,Pass^1,1,")


@pytest.mark.parametrize("name", ["kpass.report.cli", "kpass.io.formats.readers",
                                  "kpass.io.formats.parsers", "kpass.report.table",
                                  "kpass.io.answers", "kpass.io.long.long_rows",
                                  "kpass.io.formats.base", "kpass.hf.keywords",
                                  "kpass.io.harness.harness_rows", "kpass.io.formats.nested",
                                  "kpass.io.answers_match"])
def test_docstring_examples_of_the_command_run(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------- --answers


def exact_vote(questions, references, k):
    """Plurality vote over every k-subset; a tie of t + 1 with the reference scores 1/(t+1)."""
    from collections import Counter
    from itertools import combinations

    total = Fraction(0)
    for answers, reference in zip(questions, references, strict=True):
        score, subsets = Fraction(0), 0
        for subset in combinations(range(len(answers)), k):
            votes = Counter(answers[i] for i in subset if answers[i] is not None)
            subsets += 1
            if not votes or reference not in votes:
                continue
            top = max(votes.values())
            winners = [answer for answer, count in votes.items() if count == top]
            if reference in winners:
                score += Fraction(1, len(winners))
        total += score / subsets
    return total / len(questions)


QUESTIONS = [["A", "A", "B", "C"], ["7", "8", "8", None, "7"], ["x", "y", "y"]]
REFERENCES = ["A", "7", "x"]


def test_answers_report_vote_at_k_against_brute_force_in_every_format(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from kpass.families.vote import vote_at_k_ci

    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text("".join(json.dumps({"answers": q, "ground_truth": r}) + "\n"
                             for q, r in zip(QUESTIONS, REFERENCES, strict=True)))
    parquet = tmp_path / "b.parquet"
    pq.write_table(pa.table({"answers": QUESTIONS, "reference": REFERENCES}), parquet)
    csv_path = tmp_path / "c.csv"
    csv_path.write_text("answers,gold\n" + "".join(
        '"' + json.dumps(q).replace('"', '""') + f'",{r}\n'
        for q, r in zip(QUESTIONS, REFERENCES, strict=True)))
    document = json_results(capsys, "report", "--answers", jsonl, parquet, csv_path,
                            "--metrics", "vote@k,pass@k")
    votes = [row for row in document["results"] if row["metric"] == "vote@k"]
    assert [row["k"] for row in votes] == [1, 2, 3] * 3
    expected_ci = vote_at_k_ci(QUESTIONS, REFERENCES, [1, 2, 3])
    for row in votes:
        assert row["estimate"] == pytest.approx(float(exact_vote(QUESTIONS, REFERENCES,
                                                                 row["k"])), rel=1e-12)
        assert (row["mean"], row["sd"], row["cred_lo"], row["cred_hi"]) == pytest.approx(
            expected_ci[row["k"] - 1], rel=1e-9)
    correct = [[int(a == r) for a in q] for q, r in zip(QUESTIONS, REFERENCES, strict=True)]
    pass_two = [row for row in document["results"] if row["label"] == "Pass@2"]
    assert [row["estimate"] for row in pass_two] == pytest.approx(
        [float(exact_estimate(correct, 2, credit_pass(2)))] * 3)


def test_answers_default_runs_on_the_aime_sample_where_the_vote_is_wrong(capsys):
    document = json_results(capsys, "report", "--answers", "--k", "1,80",
                            "--metrics", "vote@k,pass@k")
    values = {row["label"]: row["estimate"] for row in document["results"]}
    assert values["Vote@1"] == pytest.approx(32 / 80)
    assert values["Vote@80"] == 0.0  # "271" (34 votes) beats the reference "821" (32)
    assert values["Pass@80"] == 1.0
    assert document["inputs"][0]["file"] == "aime25_q06_gpt_oss_20b.json"


def test_answers_errors_name_the_file_and_line(tmp_path, capsys):
    path = tmp_path / "a.jsonl"
    path.write_text('{"answers": ["1", "2"], "gold": "1"}\n{"answers": "12", "gold": "1"}\n')
    code, _, err = run(capsys, "report", "--answers", path)
    assert code == 1 and err.count("\n") == 1
    assert f"{path}: line 2: `answers` must be a list of answers; got '12'" in err
    code, out, err = run(capsys, "report", "--answers", path, "--skip-bad", "--format", "csv")
    assert code == 0 and "line 2" in err and "Vote@1" in out
    code, _, err = run(capsys, "report", "--answers", path, "--reference", "truth")
    assert code == 1 and "no reference column `truth`; the columns are `answers`, `gold`" in err
    code, _, err = run(capsys, "report", "--metrics", "vote@k")
    assert code == 2 and "vote@k votes over sampled answers; pass --answers" in err
    matrix = tmp_path / "m.npy"
    np.save(matrix, np.ones((2, 2)))
    code, _, err = run(capsys, "report", "--answers", matrix)
    assert code == 1 and "holds 0/1 outcomes, not answers" in err


@pytest.mark.parametrize("ragged", [False, True])
def test_report_estimates_and_ses_are_the_public_functions(tmp_path, capsys, ragged):
    # The report computes each state metric's estimate and SE from one evaluation per
    # state, and avg@n's estimate from avg_ci: the same floats as the public calls.
    import kpass

    rng = np.random.default_rng(7)
    rows = [rng.integers(0, 2, size=int(rng.integers(6, 12)) if ragged else 8).tolist()
            for _ in range(300)]
    path = write_jsonl(tmp_path / "runs.jsonl", rows)
    code, out, _ = run(capsys, "report", path, "--format", "json", "--k", "1,2,6",
                       "--tau", "0.3,0.7")
    assert code == 0
    records = json.loads(out)
    records = records["results"]
    counts = kpass.binary_counts(rows)
    functions = {"pass@k": kpass.pass_at_k, "pass^k": kpass.pass_hat_k,
                 "g-pass@k": kpass.g_pass_at_k_tau, "mg-pass@k": kpass.mg_pass_at_k,
                 "maj@k": kpass.maj_at_k, "auc@k": kpass.auc_at_k}
    seen = set()
    for record in records:
        metric = record["metric"]
        if metric == "avg@n":
            assert record["estimate"] == kpass.avg(counts)[0]
            assert record["se"] == pytest.approx(kpass.standard_error(kpass.avg, counts),
                                                 rel=1e-12)
            seen.add(metric)
            continue
        if metric not in functions:
            continue
        head = () if record.get("tau") is None else (record["tau"],)
        assert record["estimate"] == functions[metric](counts, record["k"], *head), record
        if metric == "mg-pass@k" and record["k"] == 1:  # 0 by definition: no se (issue 38)
            assert record["estimate"] == 0.0 and record["se_method"] == "constant"
            assert record["se"] is None
            continue
        assert record["se"] == pytest.approx(
            kpass.standard_error(functions[metric], counts, record["k"], *head), rel=1e-12)
        seen.add(metric)
    assert seen == {*functions, "avg@n"}


@pytest.mark.parametrize("columns", [60, 120])
def test_help_is_wrapped_to_the_terminal_width(monkeypatch, capsys, columns):
    # The help formatter reads the width once per parser; the help still fills the
    # terminal (argparse's own rule: the width less 2 columns).
    monkeypatch.setenv("COLUMNS", str(columns))
    for command in (["report"], ["compare"], []):
        assert main([*command, "--help"]) == 0
        widest = max(map(len, capsys.readouterr().out.splitlines()))
        assert widest <= columns - 2, command
        if command == ["report"]:  # long help texts: some line is as wide as allowed
            assert widest == columns - 2
