"""Issue 28, the surfaces a new user meets: the Space's tabs against the CLI and the library,
argument checks of report_table, the CLI's own words, outputs and the README's first screen.

Differential checks: the Space's Compare and Leaderboard tabs, matching questions by id,
give the numbers of ``kpass compare --id`` / ``kpass leaderboard --id`` on the same files
and of the library on the rows put in order by hand; ``report_table`` gives the numbers of
``kpass report --format json``.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import warnings
from pathlib import Path

import pytest

import kpass
from kpass.report.cli import main

REPO = Path(__file__).resolve().parents[2]


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------- the Space


@pytest.fixture(scope="module")
def app(space_app):
    return space_app


def defaults(app, module):
    """The module's page controls and their default values (the page's space_controls)."""
    space_controls = importlib.import_module(f"{app.__name__}.space_controls")
    controls = space_controls.module_controls(module)
    return controls, [space_controls.control_value(c) for c in controls]


@pytest.fixture(scope="module")
def modules(app):
    import evaluate

    names = ("pass_at_k_bayes", "vote_at_k_bayes", "max_at_k_bayes")
    return {name: evaluate.load(str(REPO / "metrics" / name / f"{name}.py")) for name in names}


def compare_tab(app, module, text_a, text_b, ks="1, 2"):
    controls, values = defaults(app, module)
    return app.run_compare(module, controls, text_a, text_b, ks, *values)


def board_tab(app, module, boxes, metric, k="1", uploads=None):
    controls, values = defaults(app, module)
    return app.run_leaderboard(module, controls, boxes, uploads, metric, k, 0.95, *values)


def correlated_runs(seed=3, questions=40, samples=4):
    """Two models sharing question difficulty (so pairing by id matters), with ids."""
    draw = random.Random(seed)
    rows_a, rows_b = {}, {}
    for q in range(questions):
        p = draw.random()
        rows_a[f"q{q}"] = [int(draw.random() < min(1.0, p + 0.15)) for _ in range(samples)]
        rows_b[f"q{q}"] = [int(draw.random() < p) for _ in range(samples)]
    return rows_a, rows_b


def jsonl(rows, order):
    return "\n".join(json.dumps({"id": qid, "outcomes": rows[qid]}) for qid in order)


def test_compare_tab_matches_by_id_as_the_cli_and_the_library(app, modules, tmp_path, capsys):
    rows_a, rows_b = correlated_runs()
    order_a = list(rows_a)
    order_b = list(reversed(order_a))  # B lists the same questions in another order
    text_a, text_b = jsonl(rows_a, order_a), jsonl(rows_b, order_b)
    message, table, figure = compare_tab(app, modules["pass_at_k_bayes"], text_a, text_b)
    assert message.startswith("Compared at ") and "matched by question id" in message, message
    # The library on rows put in A's order by hand (no ids involved).
    by_hand = kpass.compare(kpass.pass_at_k, [rows_a[q] for q in order_a],
                            [rows_b[q] for q in order_a], [1, 2])
    # The CLI on the same text as files.
    (tmp_path / "a.jsonl").write_text(text_a + "\n")
    (tmp_path / "b.jsonl").write_text(text_b + "\n")
    code, out, _ = cli(capsys, "compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                       "--id", "id", "--metrics", "pass@k", "--k", "1,2", "--format", "json")
    assert code == 0
    from_cli = {row["k"]: row for row in json.loads(out)["results"]}
    shown = table[table["metric"] == "pass@k"]
    assert len(shown) == 2
    for (_, row), expected in zip(shown.iterrows(), by_hand, strict=True):
        k = int(row["k"])
        got = [row[c] for c in ("A - B", "se", "lo", "hi", "p-value", "P(A better)")]
        assert got == pytest.approx([expected.difference, expected.se, expected.lo, expected.hi,
                                     expected.p_value, expected.prob_a_better], abs=6e-5)
        cli_row = from_cli[k]
        assert got == pytest.approx([cli_row["difference"], cli_row["se"], cli_row["lo"],
                                     cli_row["hi"], cli_row["p_value"],
                                     cli_row["prob_a_better"]], abs=6e-5)
    # Paired by line instead (what the tab did before): another, wrong, answer.
    wrong = kpass.compare(kpass.pass_at_k, [rows_a[q] for q in order_a],
                          [rows_b[q] for q in order_b], 1)
    assert abs(wrong.se - by_hand[0].se) > 1e-3


@pytest.mark.parametrize("text_a,text_b,needle", [
    ('{"id": "q1", "outcomes": [1, 0]}\n{"outcomes": [0, 1]}',
     '{"id": "q1", "outcomes": [1, 1]}\n{"id": "q2", "outcomes": [0, 1]}',
     "model A box, line 2: no question id, but line 1 has one"),
    ('{"id": "q1", "outcomes": [1, 0]}\n{"id": "q2", "outcomes": [0, 1]}',
     "1 1\n0 1",
     "model A box names its questions (line 1: id 'q1') but model B box does not"),
    ('{"id": "q1", "outcomes": [1, 0]}\n{"id": "q2", "outcomes": [0, 1]}',
     '{"id": "q1", "outcomes": [1, 1]}\n{"id": "q3", "outcomes": [0, 1]}',
     "model B box has no question 'q2' (model A box, line 2)"),
])
def test_compare_tab_refuses_partial_or_different_ids_naming_box_and_line(app, modules, text_a,
                                                                          text_b, needle):
    message, table, figure = compare_tab(app, modules["pass_at_k_bayes"], text_a, text_b, "1")
    assert message.startswith("**Input error:** ") and needle in message, message
    assert len(table) == 0 and figure is None


def test_leaderboard_tab_refuses_one_line_without_id(app, modules):
    boxes = [("a", '{"id": "q1", "outcomes": [1, 0]}\n{"id": "q2", "outcomes": [0, 1]}'),
             ("b", '{"id": "q2", "outcomes": [1, 1]}\n{"outcomes": [0, 1]}')]
    message, table, _ = board_tab(app, modules["pass_at_k_bayes"], boxes, "pass@k")
    assert message.startswith("**Input error:** box 2 (model 'b'), line 2: no question id"), \
        message
    assert len(table) == 0


def test_leaderboard_tab_matches_by_id_as_the_cli(app, modules, tmp_path, capsys):
    rows_a, rows_b = correlated_runs(seed=5, questions=30)
    order = list(rows_a)
    shuffled = order[::2] + order[1::2]
    boxes = [("a", jsonl(rows_a, order)), ("b", jsonl(rows_b, shuffled))]
    message, table, _ = board_tab(app, modules["pass_at_k_bayes"], boxes, "pass@k", "2")
    assert message.startswith("Ranked at ") and "matched by id" in message, message
    for name, text in boxes:
        (tmp_path / f"{name}.jsonl").write_text(text + "\n")
    code, out, _ = cli(capsys, "leaderboard", str(tmp_path / "a.jsonl"),
                       str(tmp_path / "b.jsonl"), "--id", "id", "--k", "2", "--format", "json")
    assert code == 0
    (result,) = json.loads(out)["results"]
    for row in result["rows"]:
        shown = table[table["model"] == row["name"]].iloc[0]
        assert [shown["estimate"], shown["se"], shown["P(best)"]] == pytest.approx(
            [row["estimate"], row["se"], row["prob_best"]], abs=6e-5)
        rank_set = (str(row["rank_lo"]) if row["rank_lo"] == row["rank_hi"]
                    else f"{row['rank_lo']}-{row['rank_hi']}")
        assert shown["rank set"] == rank_set


def test_nineteen_digit_ids_match_across_boxes(app, modules):
    big = 1234567890123456789  # 19 digits: an int in one box, text in the other
    text_a = "\n".join(json.dumps({"id": big + i, "outcomes": [1, i % 2]}) for i in range(3))
    text_b = "\n".join(json.dumps({"id": str(big + i), "outcomes": [i % 2, 1]})
                       for i in reversed(range(3)))
    message, table, _ = compare_tab(app, modules["pass_at_k_bayes"], text_a, text_b, "1")
    assert "matched by question id" in message, message
    assert len(table) == 2


def test_gold_answers_compare_by_the_canonical_rule(app, modules):
    module = modules["vote_at_k_bayes"]
    boxes = [("a", "170 3 170 | 170\n5 5 2 | 5"), ("b", "170 170 1 | 170.0\n5 2 2 | 5")]
    message, table, _ = board_tab(app, module, boxes, "vote@k")
    assert message.startswith("Ranked at "), message
    message, _, _ = compare_tab(app, module, boxes[0][1], boxes[1][1], "1")
    assert message.startswith("Compared at "), message
    different = [("a", boxes[0][1]), ("b", "170 170 1 | 171\n5 2 2 | 5")]
    message, _, _ = board_tab(app, module, different, "vote@k")
    assert "line 1: gold answer '171', but '170'" in message, message
    message, _, _ = compare_tab(app, module, boxes[0][1], different[1][1], "1")
    assert "model B box, line 1: gold answer '171'" in message, message


@pytest.mark.parametrize("ks,needle", [("١", "`k` must be integers"), ("2٣", "`k` must be")])
def test_unicode_digits_are_not_a_k(app, modules, ks, needle):
    controls, values = defaults(app, modules["pass_at_k_bayes"])
    message, _, _ = app.run(modules["pass_at_k_bayes"], controls, "1 0 1\n0 1 1", None, ks,
                            *values)
    assert message.startswith("**Input error:** ") and needle in message, message
    assert message.count("'") % 2 == 0  # the quoted token keeps both its quotes


def test_a_5000_digit_token_is_refused_as_typed_never_as_inf(app, modules):
    controls, values = defaults(app, modules["pass_at_k_bayes"])
    message, _, _ = app.run(modules["pass_at_k_bayes"], controls, "1" * 5000 + " 0\n1 0", None,
                            "1", *values)
    assert "line 1, column 1" in message and "inf" not in message, message[:300]
    parse_token = importlib.import_module(f"{app.__name__}.space_input").parse_token
    assert parse_token("1" * 5000, "binary") == "1" * 5000
    assert parse_token("1e999", "binary") == "1e999"
    assert parse_token("inf", "binary") == float("inf")  # typed as inf: the module says


def test_a_bad_number_names_its_control(app, modules):
    module = modules["pass_at_k_bayes"]
    controls, values = defaults(app, module)
    values = ["abc" if c.name == "confidence" else v for c, v in zip(controls, values, strict=True)]
    message, _, _ = app.run(module, controls, "1 0\n0 1", None, "1", *values)
    assert message == "**Input error:** `confidence` must be a number, e.g. 0.95; got 'abc'"
    boxes = [("a", "1 0\n0 1"), ("b", "1 1\n0 1")]
    controls, values = defaults(app, module)
    message, _, _ = app.run_leaderboard(module, controls, boxes, None, "pass@k", "1", "x",
                                        *values)
    assert "could not convert" not in message and "`confidence` must be a number" in message


def test_tables_put_the_decisive_columns_first(app, modules):
    controls, values = defaults(app, modules["pass_at_k_bayes"])
    _, table, _ = app.run(modules["pass_at_k_bayes"], controls, app.example_text(), None, "1",
                          *values)
    assert list(table.columns)[:8] == ["metric", "k", "estimate", "se", "mean", "cred_lo",
                                       "cred_hi", "sd"]
    _, compared, _ = compare_tab(app, modules["pass_at_k_bayes"], *app.example_pair(), "1")
    assert list(compared.columns)[:5] == ["metric", "k", "A - B", "p-value", "P(A better)"]


# ----------------------------------------------------------------------------- report_table


R = kpass.BinaryCounts([4, 4, 4], [4, 1, 0])


def _table():
    return kpass.report_table(R, metrics="pass@k", k=1)


@pytest.mark.parametrize("call,name,error,value", [
    (lambda: kpass.report_table(R, k="12"), "k", TypeError, "'12'"),
    (lambda: kpass.report_table(R, k=[2.7]), "k", TypeError, "2.7"),
    (lambda: kpass.report_table(R, k=True), "k", TypeError, "True"),
    (lambda: kpass.report_table(R, k=0), "k", ValueError, "0"),
    (lambda: kpass.report_table(R, k=[]), "k", ValueError, "[]"),
    (lambda: kpass.report_table(R, tau="0.5"), "tau", TypeError, "'0.5'"),
    (lambda: kpass.report_table(R, tau=1.5), "tau", ValueError, "1.5"),
    (lambda: kpass.report_table(R, tau=[]), "tau", ValueError, "[]"),
    (lambda: kpass.report_table(R, tau=[0.5, float("nan")]), "tau", ValueError, "nan"),
    (lambda: kpass.report_table(R, metrics=123), "metrics", TypeError, "123"),
    (lambda: kpass.report_table(R, metrics=["pass@k", 1]), "metrics", TypeError,
     "['pass@k', 1]"),
    (lambda: kpass.report_table(R, metrics=""), "metrics", ValueError, "''"),
    (lambda: kpass.report_table(R, confidence="0.9"), "confidence", TypeError, "'0.9'"),
    (lambda: kpass.report_table(R, confidence=1.0), "confidence", ValueError, "1.0"),
    (lambda: kpass.report_table(R, short="drop"), "short", ValueError, "'drop'"),
    (lambda: _table().render(digits=-1), "digits", ValueError, "-1"),
    (lambda: _table().render(digits=2.5), "digits", TypeError, "2.5"),
    (lambda: _table().render(digits="3"), "digits", TypeError, "'3'"),
    (lambda: _table().render(digits=True), "digits", TypeError, "True"),
    (lambda: _table().render(format=None), "format", ValueError, "None"),
])
def test_report_table_refuses_bad_arguments_naming_argument_value_and_expectation(
        call, name, error, value):
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    # "`name` must be ...; got name=value": the argument, what was expected, the value.
    assert message.startswith(f"`{name}` must be "), message
    assert f"got {name}={value}" in message, message
    assert "\n" not in message


def test_report_table_labels_tau_minus_zero_as_zero():
    table = kpass.report_table(kpass.BinaryCounts([4, 4], [1, 3]), metrics="g-pass@k", k=4,
                               tau=-0.0)
    assert [row["label"] for row in table.rows] == ["G-Pass@4_0"]
    assert table.rows[0]["tau"] == 0.0 and str(table.rows[0]["tau"]) == "0.0"


def test_report_table_speaks_python_and_the_cli_speaks_flags(tmp_path, capsys):
    counts = kpass.BinaryCounts([4, 2], [1, 1])
    with pytest.raises(ValueError) as caught:
        kpass.report_table(counts, k=4)
    assert 'pass short="skip"' in str(caught.value) and "--" not in str(caught.value)


def test_report_table_equals_the_cli_json(tmp_path, capsys):
    rows = [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0], [1, 0, 1, 1]]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"outcomes": row}) + "\n" for row in rows))
    code, out, _ = cli(capsys, "report", str(path), "--metrics", "pass@k,g-pass@k", "--k", "1,4",
                       "--tau", "0.5", "--format", "json")
    assert code == 0
    from_cli = json.loads(out)["results"]
    table = kpass.report_table(kpass.binary_counts(rows), metrics="pass@k,g-pass@k", k=[1, 4],
                               tau=0.5)
    assert len(table.rows) == len(from_cli) > 0
    for python_row, cli_row in zip(table.rows, from_cli, strict=True):
        for field in ("label", "k", "estimate", "se", "mean", "sd", "lo", "hi"):
            assert python_row[field] == pytest.approx(cli_row[field]), field


# ----------------------------------------------------------------------------- the CLI's words


@pytest.fixture()
def two_files(tmp_path):
    (tmp_path / "a.csv").write_text("id,correct\nq1,1\nq1,0\nq2,0\nq2,0\nq3,1\n")
    (tmp_path / "b.csv").write_text("id,correct\nq1,1\nq1,1\nq2,0\nq2,1\nq3,1\n")
    return str(tmp_path / "a.csv"), str(tmp_path / "b.csv")


@pytest.mark.parametrize("k,needle", [
    ("2", "--k 2: 1 of 3 questions have fewer than 2 samples (smallest n=1); choose --k up to "
          "1, or pass --short skip"),
    ("5", "--k 5 is larger than every question's number of samples"),
])
def test_leaderboard_errors_speak_the_cli_flags(capsys, two_files, k, needle):
    code, out, err = cli(capsys, "leaderboard", *two_files, "--id", "id", "--k", k)
    assert code == 1 and out == ""
    assert needle in err, err
    assert "short='skip'" not in err and "[1, n]" not in err and "`k`" not in err


def test_cli_words_translates_the_core_vocabulary():
    from kpass.report.output import cli_words

    assert cli_words("use the Bayesian interval (*_ci) or more questions") == \
        "use the Bayesian columns (mean, sd and the credible interval) or more questions"
    assert cli_words("pass shared=True to rank on the 3 questions") == \
        "pass --shared to rank on the 3 questions"
    assert cli_words("nothing to translate") == "nothing to translate"


def test_markdown_keeps_the_notes_of_the_table(capsys, two_files):
    code, table, _ = cli(capsys, "report", two_files[0], "--id", "id", "--k", "1",
                         "--metrics", "pass@k")
    code_md, markdown, _ = cli(capsys, "report", two_files[0], "--id", "id", "--k", "1",
                               "--metrics", "pass@k", "--format", "markdown")
    assert code == code_md == 0
    notes = re.findall(r"^note: .*", table, re.MULTILINE)
    assert notes
    flat = " ".join(markdown.split())
    for note in re.split(r"\nnote", table.split("\nnote", 1)[1]):
        assert " ".join(("note" + note).split()) in flat
    code, table, _ = cli(capsys, "leaderboard", *two_files, "--id", "id", "--k", "1")
    code_md, markdown, _ = cli(capsys, "leaderboard", *two_files, "--id", "id", "--k", "1",
                               "--format", "markdown")
    told = re.search(r"^told apart: .*", table, re.MULTILINE)
    assert told and told.group(0) in markdown


@pytest.mark.parametrize("command", ["report", "leaderboard"])
def test_plot_says_which_file_it_wrote(capsys, two_files, tmp_path, command):
    pytest.importorskip("matplotlib")
    target = tmp_path / f"{command}.png"
    files = [two_files[0]] if command == "report" else list(two_files)
    code, _, err = cli(capsys, command, *files, "--id", "id", "--k", "1", "--plot", str(target))
    assert code == 0 and target.stat().st_size > 0
    assert f"kpass {command}: wrote {target}" in err.splitlines()


def test_one_short_question_capping_the_default_k_is_said(capsys, tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("id,correct\nq1,1\nq1,0\nq1,1\nq1,1\nq2,0\nq2,0\nq2,1\nq2,1\nq3,1\n")
    code, out, _ = cli(capsys, "report", str(path), "--id", "id", "--metrics", "pass@k")
    assert code == 0
    assert ("k stops at 1 by default: question 'q3' has only n=1 samples (--explain)"
            in out.splitlines())  # one short line; in full with --explain
    code, out, _ = cli(capsys, "report", str(path), "--id", "id", "--metrics", "pass@k",
                       "--explain")
    flat = " ".join(out.split())
    assert "k stops at 1 by default: " in flat and "question 'q3' has only n=1 samples" in flat
    assert "--k 4 and --short skip" in flat
    # Equal numbers of samples: nothing to say.
    code, out, _ = cli(capsys, "report", "--metrics", "pass@k")
    assert "k stops at" not in out


# ----------------------------------------------------------------------------- modules and docs


def test_add_with_a_batch_keyword_names_the_right_one():
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(REPO / "metrics" / "pass_at_k_bayes" / "pass_at_k_bayes.py"))
    with pytest.raises(TypeError, match=r"add\(\) adds one question: pass prediction=\[\.\.\.\]"):
        metric.add(predictions=[1, 0, 1])
    with pytest.raises(TypeError, match=r"a batch takes predictions=\[\[\.\.\.\], \.\.\.\]"):
        metric.add_batch(prediction=[1, 0])
    metric.add(prediction=[1, 0, 1])
    metric.add(prediction=[0, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        results = metric.compute(k=1)
    assert results["pass@1"] == pytest.approx(0.5)  # (2/3 + 1/3) / 2, the two questions added


def test_readme_first_screen_names_setup_and_shows_evaluate_load():
    first = "\n".join((REPO / "README.md").read_text(encoding="utf-8").splitlines()[:80])
    assert "make demo" in first and "make test" in first
    assert re.search(r"^metric = evaluate\.load\(", first, re.MULTILINE)


def test_readme_says_which_metrics_print_by_default():
    from kpass.report.table import FAMILIES

    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    sentence = text.split("A file of yours gets ", 1)[1].split(";", 1)[0]
    labels = {"pass@k": "Pass@k", "pass^k": "Pass^k", "g-pass@k": "G-Pass@k",
              "mg-pass@k": "mG-Pass@k", "maj@k": "Maj@k", "auc@k": "AUC@k", "avg@n": "Avg@n",
              "cons@k": "cons@k", "vote@k": "Vote@k", "geo-spectrum*@k": "GeoSpectrum*@k"}
    printed = {labels[f.key] for f in FAMILIES if f.default}
    named = set(re.findall(r"[\w*^@-]+@[kn]|Pass\^k", sentence))
    assert named == printed, (named, printed)


def test_docs_spaces_names_the_leaderboard_tab_and_no_wrong_count():
    text = (REPO / "docs" / "how-to" / "spaces.md").read_text(encoding="utf-8")
    assert "**Leaderboard** tab" in text and "nine" not in text
    assert len([p for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file()]) == 10


def test_the_suite_filters_only_the_expected_small_sample_notes():
    """The pyproject filter hides the three notes of tiny inputs, and nothing else."""
    from _pytest.warnings import parse_warning_filter

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    filters = config["tool"]["pytest"]["ini_options"]["filterwarnings"]
    expected = [
        "kpass.compare(pass_at_k): only 5 questions (fewer than 30): intervals use Student's t",
        "kpass.standard_error(pass_at_k): only 3 clusters (fewer than 30): intervals use t",
        "kpass.standard_error(mg_pass_at_k): a standard error of 0: every question agrees",
        "kpass.standard_error(pass_hat_k): an estimate (0.04) within 5 questions' worth of 0 "
        "or 1: its standard error is unreliable",
    ]
    other = ["kpass.plan(pass_at_k): the pilot's per-question counts do not fit a "
             "beta-binomial population"]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for entry in filters:
            warnings.filterwarnings(*parse_warning_filter(entry, escape=False))
        for text in expected + other:
            warnings.warn(text, kpass.SmallSampleWarning, stacklevel=1)
        warnings.warn(expected[0], UserWarning, stacklevel=1)  # another class: shown
    assert sorted(str(w.message) for w in seen) == sorted(other + expected[:1])
