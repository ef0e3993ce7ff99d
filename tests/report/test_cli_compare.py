"""`kpass compare A B`: the paired table against kpass.compare on the same questions, matching by
id whatever the row order, clusters, every output format, the plot, and clear errors."""

import csv
import io
import json

import numpy as np
import pytest

import kpass
from kpass.report.cli import main

RNG = np.random.default_rng(2026)
M = 40
LOGITS = RNG.normal(0.0, 1.5, M)
A = [(RNG.random(6) < 1 / (1 + np.exp(-x))).astype(int).tolist() for x in LOGITS]
B = [(RNG.random(6) < 1 / (1 + np.exp(-(x - 0.7)))).astype(int).tolist() for x in LOGITS]
IDS = [f"q{i:02d}" for i in range(M)]
TOPICS = [f"topic{i // 5}" for i in range(M)]


def write_jsonl(path, rows, ids=None, topics=None, order=None):
    order = range(len(rows)) if order is None else order
    with open(path, "w") as handle:
        for i in order:
            record = {"outcomes": rows[i]}
            if ids is not None:
                record["id"] = ids[i]
            if topics is not None:
                record["topic"] = topics[i]
            handle.write(json.dumps(record) + "\n")
    return str(path)


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def records(out):
    return {(r["metric"], r["k"]): r for r in json.loads(out)["results"]}


def test_questions_are_matched_by_id_whatever_the_row_order(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", A, IDS, TOPICS)
    b = write_jsonl(tmp_path / "b.jsonl", B, IDS, order=RNG.permutation(M))
    code, out, err = run(capsys, "compare", a, b, "--id", "id", "--k", "1,4",
                         "--metrics", "pass@k,maj@k", "--format", "json")
    assert code == 0, err
    found = records(out)
    for metric, point in (("pass@k", kpass.pass_at_k), ("maj@k", kpass.maj_at_k)):
        for k, expected in zip((1, 4), kpass.compare(point, A, B, [1, 4]), strict=True):
            got = found[(metric, k)]
            for field in ("a", "b", "difference", "se", "lo", "hi", "p_value", "prob_a_better",
                          "mde", "se_unpaired", "questions"):
                assert got[field] == pytest.approx(getattr(expected, field), rel=1e-12), field
    assert json.loads(out)["matched_by"] == "id"


def test_row_order_needs_equal_question_counts(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", A)
    b = write_jsonl(tmp_path / "b.jsonl", B[:-1])
    code, _, err = run(capsys, "compare", a, b, "--k", "1")
    assert code == 1
    assert err.count("\n") == 1 and "--id COLUMN" in err and "39 questions against 40" in err
    same = write_jsonl(tmp_path / "same.jsonl", B)
    code, out, _ = run(capsys, "compare", a, same, "--k", "2", "--metrics", "pass^k",
                       "--format", "csv")
    assert code == 0
    row, = list(csv.DictReader(io.StringIO(out)))
    assert float(row["difference"]) == pytest.approx(
        kpass.compare(kpass.pass_hat_k, A, B, 2).difference, rel=1e-12)


def test_clusters_give_the_clustered_standard_error(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", A, IDS, TOPICS)
    b = write_jsonl(tmp_path / "b.jsonl", B, IDS)
    code, out, err = run(capsys, "compare", a, b, "--id", "id", "--clusters", "topic",
                         "--k", "2", "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    expected = kpass.compare(kpass.pass_at_k, A, B, 2, clusters=TOPICS)
    assert records(out)[("pass@k", 2)]["se"] == pytest.approx(expected.se, rel=1e-12)
    assert expected.se != pytest.approx(kpass.compare(kpass.pass_at_k, A, B, 2).se)


def test_table_markdown_and_plot(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", A, IDS)
    b = write_jsonl(tmp_path / "b.jsonl", B, IDS)
    code, out, _ = run(capsys, "compare", a, b, "--id", "id", "--k", "1,2,4", "--metrics",
                       "pass@k", "--plot", tmp_path / "diff.png")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].endswith(": 40 questions paired by id (id)")
    header = next(line for line in lines if line.startswith("metric "))
    assert header.split()[:5] == ["metric", "A", "B", "difference", "se"]
    pass_one = next(line for line in lines if line.startswith("Pass@1 ")).split()
    expected = kpass.compare(kpass.pass_at_k, A, B, 1)
    assert pass_one[3] == f"{expected.difference:.3f}" and pass_one[4] == f"{expected.se:.3f}"
    assert not any("P(A>B)" in line for line in lines)  # terse: P(A>B) with --explain
    code, out, _ = run(capsys, "compare", a, b, "--id", "id", "--k", "1,2,4", "--metrics",
                       "pass@k", "--explain")
    assert any("P(A>B): posterior probability" in line for line in out.splitlines())
    from PIL import Image

    with Image.open(tmp_path / "diff.png") as image:  # one panel: one metric
        assert image.size == (1000, 370)
    code, _, _ = run(capsys, "compare", a, b, "--id", "id", "--k", "1,2,4", "--metrics",
                     "pass@k,pass^k,maj@k,auc@k", "--plot", tmp_path / "four.png")
    with Image.open(tmp_path / "four.png") as image:  # small multiples: 3 + 1 panels
        assert code == 0 and image.size == (1000, 660)
    code, out, _ = run(capsys, "compare", a, b, "--k", "1", "--metrics", "pass@k",
                       "--format", "markdown", "--explain")
    table = [line for line in out.splitlines() if line.startswith("|")]
    header, align, body = table  # one row: no Holm column; 40 questions: no exact column
    assert header.count("|") == align.count("|") == body.count("|") == 11
    assert "difference = A - B" in out and "P(A>B): posterior" in out  # the legend is kept


@pytest.mark.parametrize("args, message", [
    ([], "exactly two files"),
    (["--id", "nope"], "no column `nope` (--id); the columns are `outcomes`, `id`"),
    (["--clusters", "id", "--skip-bad", "--id", "id"], "--skip-bad cannot be combined"),
])
def test_bad_arguments_are_one_line(tmp_path, capsys, args, message):
    a = write_jsonl(tmp_path / "a.jsonl", A, IDS)
    b = write_jsonl(tmp_path / "b.jsonl", B, IDS)
    files = [] if message == "exactly two files" else [a, b]
    code, out, err = run(capsys, "compare", *files, *args)
    assert code in (1, 2) and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_duplicate_and_unmatched_ids_are_refused(tmp_path, capsys):
    a = write_jsonl(tmp_path / "a.jsonl", A, IDS[:-1] + [IDS[0]])
    b = write_jsonl(tmp_path / "b.jsonl", B, IDS)
    code, _, err = run(capsys, "compare", a, b, "--id", "id", "--k", "1")
    assert code == 1 and "'q00' is repeated: line 1 and line 40" in err
    c = write_jsonl(tmp_path / "c.jsonl", B, IDS[:-1] + ["other"])
    code, _, err = run(capsys, "compare", b, c, "--id", "id", "--k", "1")
    assert code == 1 and "ids of A are not in B" in err and err.count("\n") == 1


def test_primary_names_a_tau_as_printed_and_one_row_says_it_was_not_adjusted(tmp_path, capsys):
    """Issue 38 item 10: `--primary G-Pass@4_0.50` (two decimals) and METRIC:K:TAU match the
    row with tau 0.5 numerically; `--primary none` on one row reports no adjustment."""
    import json as _json

    rng = np.random.default_rng(3)
    paths = []
    for name, rate in (("a", 0.6), ("b", 0.4)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(_json.dumps({"id": i, "outcomes": (rng.random(4) < rate)
                                             .astype(int).tolist()}) + "\n" for i in range(40)))
        paths.append(str(path))
    chosen = []
    for primary in ("G-Pass@4_0.50", "g-pass@k:4:0.500000001", "G-Pass@4_0.5"):
        assert main(["compare", *paths, "--metrics", "pass@k,g-pass@k", "--k", "4", "--tau",
                     "0.5,1.0", "--primary", primary, "--format", "json"]) == 0
        results = _json.loads(capsys.readouterr().out)["results"]
        chosen.append([(r["metric"], r["tau"]) for r in results if r["role"] == "primary"])
    assert chosen == [[("g-pass@k", 0.5)]] * 3
    assert main(["compare", *paths, "--metrics", "pass@k", "--k", "1", "--primary", "none",
                 "--format", "json"]) == 0
    document = _json.loads(capsys.readouterr().out)
    assert document["adjust"] is None
    assert document["results"][0]["p_adjusted"] == document["results"][0]["p_value"]
