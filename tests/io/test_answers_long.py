"""``kpass report --answers`` with --id / --sample / --threshold, and empty references (issue 18).

--answers used to ignore --id, --sample and --threshold: each long row (one answer)
became a question. Now --id groups one-answer rows by question wherever they lie,
--sample refuses a repeated (id, sample) pair with both lines, and --threshold is
refused (an answer is right when it equals its reference: there is no score to
threshold). An empty CSV reference cell is an error naming the file, line and column,
not the answer "". Expected values: a brute-force plurality vote over every k-subset.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest

from kpass.report.cli import main

# question id -> (reference, answers in sample order)
QUESTIONS = {
    "q1": ("7", ["7", "8", "7", "9", "8"]),
    "q2": ("12", ["12.0", "11", "11", "x"]),
    "q3": ("a", ["b", "b", "a"]),
}


def brute_vote(answers: list[str], reference: str, k: int) -> Fraction:
    def key(a):
        try:
            return Fraction(a)
        except ValueError:
            return a.strip()

    total = Fraction(0)
    for subset in combinations([key(a) for a in answers], k):
        tally = Counter(subset)
        top = max(tally.values())
        if tally.get(key(reference), 0) == top:
            total += Fraction(1, sum(1 for c in tally.values() if c == top))
    return total / comb(len(answers), k)


def long_rows(order=None):
    """(id, sample, answer, reference) rows, interleaved across questions."""
    rows = [(qid, s, answer, ref) for qid, (ref, answers) in QUESTIONS.items()
            for s, answer in enumerate(answers)]
    return sorted(rows, key=lambda r: (r[1], r[0])) if order is None else order(rows)


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def results(out: str) -> dict:
    return {(r["metric"], r["k"]): r["estimate"] for r in json.loads(out)["results"]}


def expected(k: int) -> tuple[float, float]:
    vote = sum(brute_vote(a, r, k) for r, a in QUESTIONS.values()) / len(QUESTIONS)
    pass1 = sum(Fraction(sum(brute_vote([x], r, 1) for x in a), len(a))
                for r, a in QUESTIONS.values()) / len(QUESTIONS)
    return float(vote), float(pass1)


def write_csv(path, rows, header="qid,sample,answer,gold"):
    path.write_text(header + "\n" + "".join(",".join(map(str, row)) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "json"])
def test_long_answers_grouped_by_id(tmp_path, capsys, fmt):
    rows = long_rows()
    if fmt == "csv":
        path = write_csv(tmp_path / "long.csv", rows)
    elif fmt == "jsonl":
        path = tmp_path / "long.jsonl"
        path.write_text("".join(json.dumps({"qid": q, "sample": s, "answer": a, "gold": r}) + "\n"
                                for q, s, a, r in rows))
    elif fmt == "json":
        path = tmp_path / "long.json"
        path.write_text(json.dumps({"qid": [r[0] for r in rows], "sample": [r[1] for r in rows],
                                    "answer": [r[2] for r in rows], "gold": [r[3] for r in rows]}))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = tmp_path / "long.parquet"
        pq.write_table(pa.table({"qid": [r[0] for r in rows], "sample": [r[1] for r in rows],
                                 "answer": [r[2] for r in rows], "gold": [r[3] for r in rows]}),
                       path)
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--sample",
                         "sample", "--column", "answer", "--k", "1,3", "--format", "json",
                         "--metrics", "vote@k,pass@k")
    assert code == 0, err
    got = results(out)
    for k in (1, 3):
        vote, _ = expected(k)
        assert got[("vote@k", k)] == pytest.approx(vote, abs=1e-12)
    assert got[("pass@k", 1)] == pytest.approx(expected(1)[1], abs=1e-12)
    document = json.loads(out)["inputs"][0]
    assert (document["questions"], document["n_min"], document["n_max"]) == (3, 3, 5)


def test_long_answers_without_sample_column_and_in_any_order(tmp_path, capsys):
    path = write_csv(tmp_path / "long.csv", [(q, a, r) for q, _, a, r in
                                             long_rows(lambda rows: rows[::-1])],
                     header="qid,answer,gold")
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column",
                         "answer", "--k", "3", "--format", "json", "--metrics", "vote@k")
    assert code == 0, err
    assert results(out)[("vote@k", 3)] == pytest.approx(expected(3)[0], abs=1e-12)


def test_repeated_id_sample_pair_names_both_lines(tmp_path, capsys):
    rows = long_rows()
    rows.insert(5, ("q2", 1, "11", "12"))  # q2 sample 1 again
    path = write_csv(tmp_path / "long.csv", rows)
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--sample", "sample",
                         "--column", "answer")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"{path}: (id, sample) = ('q2', 1) is repeated: line " in err


def test_rows_of_one_question_must_agree_on_the_reference(tmp_path, capsys):
    rows = long_rows() + [("q1", 9, "7", "8")]
    path = write_csv(tmp_path / "long.csv", rows)
    code, _, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column", "answer")
    assert code == 1 and "question id 'q1' has two references: '7' (line 2) and '8'" in err
    assert f"line {len(rows) + 1}" in err
    # the same reference spelt differently is one reference
    rows = long_rows() + [("q2", 9, "12", "12.0")]
    path = write_csv(tmp_path / "long.csv", rows)
    code, _, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column", "answer")
    assert code == 0, err


def test_threshold_is_refused_with_answers(tmp_path, capsys):
    path = write_csv(tmp_path / "long.csv", long_rows())
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column", "answer",
                         "--threshold", "0.5")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--threshold applies to soft scores, not to --answers" in err


@pytest.mark.parametrize("option", [["--from", "lm-eval"], ["--filter", "strict-match"]])
def test_harness_options_are_refused_with_answers(tmp_path, capsys, option):
    path = write_csv(tmp_path / "long.csv", long_rows())
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column", "answer",
                         *option)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{option[0]} reads a harness's 0/1 outcomes; --answers reads answers" in err


def test_sample_needs_id_and_normalize_needs_answers(tmp_path, capsys):
    path = write_csv(tmp_path / "long.csv", long_rows())
    code, _, err = run(capsys, "report", path, "--answers", "--sample", "sample", "--column",
                       "answer")
    assert code == 1 and "--sample needs --id COLUMN" in err
    code, _, err = run(capsys, "report", path, "--normalize", "os:fspath")
    assert code == 2 and "--normalize applies to sampled answers: add --answers" in err


def test_missing_id_column_and_skip_bad(tmp_path, capsys):
    path = write_csv(tmp_path / "long.csv", long_rows())
    code, _, err = run(capsys, "report", path, "--answers", "--id", "question", "--column",
                       "answer")
    assert code == 1 and "no column `question` (--id); the columns are `qid`, `sample`" in err
    code, _, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column", "answer",
                       "--skip-bad")
    assert code == 1 and "--skip-bad is not available with --id" in err


def test_wide_rows_with_id_and_a_repeated_id(tmp_path, capsys):
    path = tmp_path / "wide.jsonl"
    lines = [{"qid": qid, "answers": answers, "gold": ref}
             for qid, (ref, answers) in QUESTIONS.items()]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--k", "3",
                         "--format", "json", "--metrics", "vote@k")
    assert code == 0, err
    assert results(out)[("vote@k", 3)] == pytest.approx(expected(3)[0], abs=1e-12)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines + lines[:1]))
    code, _, err = run(capsys, "report", path, "--answers", "--id", "qid")
    assert code == 1 and "question id 'q1' is repeated: line 1 and line 4" in err


def test_long_csv_answers_are_text_as_written(tmp_path, capsys):
    # In a long file (first answers cell not a list) "[1, 2]" is an answer, not a list.
    path = tmp_path / "long.csv"
    path.write_text('qid,answer,gold\nq1,7,"[1, 2]"\nq1,"[1, 2]","[1, 2]"\n'
                    'q1," [1, 2] ","[1, 2]"\n')
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column", "answer",
                         "--k", "1", "--format", "json", "--metrics", "pass@k")
    assert code == 0, err
    assert results(out)[("pass@k", 1)] == pytest.approx(2 / 3, abs=1e-12)


def test_long_empty_answer_cell_is_no_answer(tmp_path, capsys):
    path = write_csv(tmp_path / "long.csv", [("q1", 0, "7", "7"), ("q1", 1, "", "7"),
                                             ("q1", 2, " ", "7")])
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column", "answer",
                         "--k", "1,3", "--format", "json", "--metrics", "pass@k,vote@k")
    assert code == 0, err
    got = results(out)
    assert got[("pass@k", 1)] == pytest.approx(1 / 3) and got[("vote@k", 3)] == 1.0


@pytest.mark.parametrize("long", [False, True])
def test_empty_csv_reference_cell_names_file_line_and_column(tmp_path, capsys, long):
    if long:
        path = write_csv(tmp_path / "a.csv", [("q1", 0, "7", "7"), ("q2", 0, "", "")])
        extra = ["--id", "qid", "--column", "answer"]
    else:
        path = tmp_path / "a.csv"
        path.write_text('answers,gold\n"[""7"", """"]",7\n"[""x"", """"]",\n')
        extra = []
    code, out, err = run(capsys, "report", path, "--answers", *extra)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert f"{path}: line 3: the reference cell (column `gold`) is empty" in err


def test_answers_column_is_never_the_default_reference(tmp_path, capsys):
    # columns id, answer, target: --column answer must not also be taken as the reference
    path = write_csv(tmp_path / "a.csv", [("q1", "7", "7"), ("q1", "8", "7")],
                     header="qid,answer,target")
    code, out, err = run(capsys, "report", path, "--answers", "--id", "qid", "--column", "answer",
                         "--k", "1", "--format", "json", "--metrics", "pass@k")
    assert code == 0, err
    assert results(out)[("pass@k", 1)] == pytest.approx(0.5)


@pytest.mark.parametrize("name, text", [
    ("deep.jsonl", '{"answers": ' + "[" * 20000 + "]" * 20000 + ', "reference": "1"}\n'),
    ("ref.jsonl", '{"answers": ["1", "2"], "reference": ' + "[" * 1000 + "]" * 1000 + "}\n"),
    ("deep.json", '[{"answers": ' + "[" * 5000 + "]" * 5000 + ', "reference": "1"}]'),
    ("deep.csv", 'answers,reference\n"' + "[" * 5000 + "]" * 5000 + '",1\n'),
])
def test_answer_files_nested_too_deeply_are_one_line_errors(tmp_path, capsys, name, text):
    from kpass.report.cli import main

    path = tmp_path / name
    path.write_text(text)
    code = main(["report", str(path), "--answers"])
    _, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert name in err and ("nested" in err) and ("line 1" in err or "line 2" in err), err
