"""Issue 18: the CLI readers and ``kpass compare`` under adversarial input.

Each test names the defect class it guards (1-6 of the issue). Expected numbers come
from the raw files read with the standard library (json, csv) and numpy, never from
kpass's readers. Malformed harness files are derived from the real fixtures of
``tests/fixtures`` by the edit documented in each test; no harness output is written
by hand.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kpass.report.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures"
(LM_GEN,) = (FIXTURES / "lm-eval").glob("samples_kp_gen_*.jsonl")
(LM_MC,) = (FIXTURES / "lm-eval").glob("samples_kp_mc_*.jsonl")
OPENCOMPASS = FIXTURES / "opencompass" / "kp_tiny.json"
INT_TEXT = re.compile(r"-?(0|[1-9][0-9]*)")


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line(code, out, err, *fragments, command="report"):
    """Exit 1 or 2, nothing on stdout, one line on stderr holding every fragment."""
    assert code in (1, 2), (code, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"kpass {command}: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_rows(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def report_json(capsys, *args):
    code, out, err = run(capsys, "report", *args, "--k", "1", "--metrics", "pass@k",
                         "--format", "json")
    assert code == 0, err
    (result,) = [r for r in json.loads(out)["results"] if r["metric"] == "pass@k"]
    return result


def pass1(per_question: dict) -> float:
    """Pass@1 over questions: the mean of each question's fraction correct (numpy only)."""
    return float(np.mean([np.mean(values) for values in per_question.values()]))


# ------------------------------------------------------------ 1. --skip-bad


def test_compare_skip_bad_without_ids_is_refused_naming_id(tmp_path, capsys):
    # Two identical runs whose bad rows differ: pairing what is left by row order compared
    # question 2 of A with question 3 of B (the issue measured se 0.351, P(A>B) 0.13).
    rng = np.random.default_rng(18)
    rows = rng.integers(0, 2, size=(12, 4)).tolist()
    lines = [json.dumps({"outcomes": row}) for row in rows]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join(lines[:1] + ["{broken"] + lines[2:]) + "\n")
    b.write_text("\n".join(lines[:6] + ["{broken"] + lines[7:]) + "\n")
    code, out, err = run(capsys, "compare", a, b, "--skip-bad", "--k", "1")
    assert_one_line(code, out, err, "--skip-bad cannot be combined", "row order", "--id",
                    command="compare")
    assert code == 2


# ------------------------------------------------------------ 2. filters under --id


def _by_filter(path: Path, metric: str) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for row in rows_of(path):
        found.setdefault(row["filter"], {}).setdefault(row["doc_id"], []).append(row[metric])
    return found


def test_id_on_a_multi_filter_lm_eval_file_needs_filter(capsys):
    # Before: --id doc_id counted the maj@4 row and the first row of a document as two samples.
    code, out, err = run(capsys, "report", LM_GEN, "--id", "doc_id", "--column", "exact_match",
                         "--k", "1")
    assert_one_line(code, out, err, "2 filters", "--filter")
    for name, per_doc in _by_filter(LM_GEN, "exact_match").items():
        result = report_json(capsys, LM_GEN, "--id", "doc_id", "--filter", name)
        assert result["questions"] == len(per_doc)
        assert result["estimate"] == pytest.approx(pass1(per_doc), rel=1e-12)
        again = report_json(capsys, LM_GEN, "--id", "doc_id", "--column", "exact_match",
                            "--from", "lm-eval", "--filter", name)
        assert again["estimate"] == result["estimate"]


def test_compare_with_id_honours_from_and_filter(capsys):
    per_doc = _by_filter(LM_GEN, "exact_match")
    code, out, err = run(capsys, "compare", LM_GEN, LM_GEN, "--id", "doc_id", "--from",
                         "lm-eval", "--filter", "first", "--k", "1", "--metrics", "pass@k",
                         "--format", "json")
    assert code == 0, err
    (line,) = json.loads(out)["results"]
    assert line["questions"] == len(per_doc["first"])
    assert line["a"] == pytest.approx(pass1(per_doc["first"]), rel=1e-12)
    code, out, err = run(capsys, "compare", LM_GEN, LM_GEN, "--id", "doc_id", "--k", "1")
    assert_one_line(code, out, err, "--filter", command="compare")


def test_lm_eval_rows_listing_metrics_in_another_order_are_not_mixed(tmp_path, capsys):
    # Derived from the real kp_mc file: each row gains `acc_norm` = 1 - acc, and every other
    # row lists it first in `metrics` (as a task whose rows differ would).
    rows = rows_of(LM_MC)
    for index, row in enumerate(rows):
        row["acc_norm"] = 1.0 - row["acc"]
        row["metrics"] = ["acc_norm", "acc"] if index % 2 else ["acc", "acc_norm"]
    path = write_rows(tmp_path / "samples_kp_mc_mixed.jsonl", rows)
    acc = {row["doc_id"]: [row["acc"]] for row in rows}
    for extra in ([], ["--id", "doc_id"]):
        result = report_json(capsys, path, "--from", "lm-eval", *extra)
        assert result["estimate"] == pytest.approx(pass1(acc), rel=1e-12)
    # a row without the first row's metric is refused with its line, never replaced
    del rows[3]["acc"]
    path = write_rows(tmp_path / "samples_kp_mc_missing.jsonl", rows)
    code, out, err = run(capsys, "report", path, "--from", "lm-eval", "--k", "1")
    assert_one_line(code, out, err, "line 4", "`acc`")


# ------------------------------------------------------------ 3. empty lists, soft range


def test_an_empty_metric_list_in_a_harness_row_is_refused(tmp_path, capsys):
    # Derived from the real kp_mc file: line 3's `acc` becomes [] (it used to vanish).
    rows = rows_of(LM_MC)
    rows[2]["acc"] = []
    path = write_rows(tmp_path / "samples_kp_mc_empty.jsonl", rows)
    for extra in ([], ["--id", "doc_id"]):
        code, out, err = run(capsys, "report", path, "--from", "lm-eval", "--k", "1", *extra)
        assert_one_line(code, out, err, str(path), "line 3", "empty list")


def test_an_empty_correct_list_in_opencompass_is_refused(tmp_path, capsys):
    # Derived from the real kp_tiny.json: details[1].correct becomes [].
    document = json.loads(OPENCOMPASS.read_text())
    document["details"][1]["correct"] = []
    path = tmp_path / "kp_tiny.json"
    path.write_text(json.dumps(document, indent=4))
    code, out, err = run(capsys, "report", path, "--from", "opencompass", "--k", "1")
    assert_one_line(code, out, err, str(path), "details[1]", "empty list")


@pytest.mark.parametrize("name", ["soft.csv", "soft.jsonl"])
def test_soft_scores_outside_unit_interval_are_refused_with_line(tmp_path, capsys, name):
    path = tmp_path / name
    scores = [("q1", 0.2), ("q1", 1.7), ("q2", 0.9), ("q2", 1.3)]
    if name.endswith(".csv"):
        path.write_text("id,score\n" + "".join(f"{q},{s}\n" for q, s in scores))
    else:
        write_rows(path, [{"id": q, "score": s} for q, s in scores])
    code, out, err = run(capsys, "report", path, "--id", "id", "--column", "score",
                         "--threshold", "0.5", "--k", "1")
    assert_one_line(code, out, err, str(path), "line 3" if name.endswith(".csv") else "line 2",
                    "1.7", "outside [0, 1]")


def test_soft_scores_inside_unit_interval_still_read(tmp_path, capsys):
    path = tmp_path / "soft.csv"
    scores = {"q1": [0.2, 1.0, 0.5], "q2": [0.9, 0.0]}
    path.write_text("id,score\n" + "".join(f"{q},{s}\n" for q, v in scores.items() for s in v))
    result = report_json(capsys, path, "--id", "id", "--column", "score", "--threshold", "0.5")
    hard = {q: [float(s > 0.5) for s in v] for q, v in scores.items()}
    assert result["estimate"] == pytest.approx(pass1(hard), rel=1e-12)


# ------------------------------------------------------------ 4. nesting


@pytest.mark.parametrize("name", ["deep.jsonl", "deep.jsonl.gz"])
def test_a_line_nested_20000_deep_is_refused_not_a_segfault(tmp_path, name):
    # pyarrow's JSON reader segfaulted here (exit 139, no message): run it in a child.
    import gzip

    path = tmp_path / name
    data = ('{"outcomes": [1, 0]}\n{"outcomes": [1, 1], "x": ' + "[" * 20000 + "]" * 20000
            + "}\n").encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    done = subprocess.run([sys.executable, "-m", "kpass.report.cli", "report", str(path),
                           "--k", "1"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("kpass report: error: ") and "line 2" in line
    assert "nested 20001 levels deep" in line


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


DEEP = 1000  # a RecursionError traceback in Python's json before


@pytest.mark.parametrize("case", ["wide-jsonl", "wide-json", "long-jsonl", "long-json",
                                  "harness-jsonl", "harness-json", "clusters", "state"])
def test_every_reader_bounds_nesting_before_parsing(tmp_path, capsys, case):
    args = ["--k", "1"]
    deep_row = {"id": 2, "outcomes": [1], "x": "@"}
    rows = [{"id": 1, "outcomes": [1, 0], "topic": "a"}, deep_row]
    if case in ("wide-jsonl", "long-jsonl", "clusters"):
        path = tmp_path / "deep.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in rows).replace('"@"', _deep(DEEP)) + "\n")
        where = "line 2"
    elif case in ("wide-json", "long-json"):
        path = tmp_path / "deep.json"
        path.write_text(json.dumps(rows, indent=1).replace('"@"', _deep(DEEP)))
        where = "line "
    elif case == "harness-jsonl":  # derived from the real kp_mc file: a nested field in line 2
        lm_rows = rows_of(LM_MC)
        lm_rows[1]["doc"]["deep"] = "@"
        path = tmp_path / "samples_kp_mc_deep.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in lm_rows).replace('"@"', _deep(DEEP)))
        where = "line 2"
    elif case == "harness-json":  # derived from the real kp_tiny.json: details[2] nested deep
        document = json.loads(OPENCOMPASS.read_text())
        document["details"][2]["deep"] = "@"
        path = tmp_path / "kp_tiny.json"
        path.write_text(json.dumps(document, indent=4).replace('"@"', _deep(DEEP)))
        where = "line "
    else:  # a saved datasets folder whose state.json nests deep
        path = tmp_path / "ds"
        path.mkdir()
        (path / "state.json").write_text('{"_data_files": ' + _deep(DEEP) + "}")
        where = "state.json"
    if case.startswith("long"):
        args += ["--id", "id"]
    if case == "clusters":
        other = write_rows(tmp_path / "b.jsonl", [{"id": 1, "outcomes": [1]},
                                                 {"id": 2, "outcomes": [0]}])
        ok = write_rows(tmp_path / "a.jsonl", [{"id": 1, "outcomes": [1]},
                                              {"id": 2, "outcomes": [0], "topic": "b"}])
        rows_a = rows_of(ok)
        rows_a[0]["topic"] = "a"
        rows_a[1]["topic"] = "@"
        path.write_text("\n".join(json.dumps(r) for r in rows_a).replace('"@"', _deep(DEEP)))
        code, out, err = run(capsys, "compare", path, other, "--id", "id", "--clusters",
                             "topic", "--k", "1")
        assert_one_line(code, out, err, str(path), "line 2", "nested", command="compare")
        return
    code, out, err = run(capsys, "report", path, *args)
    assert_one_line(code, out, err, str(path), where, "nested")


# ------------------------------------------------------------ 5. tracebacks


@pytest.mark.parametrize(("field", "value", "fragment"), [
    ("id", [1, 2], "question id [1, 2] (list)"),
    ("id", {"a": 1}, "question id {'a': 1} (dict)"),
    ("id", 0.5, "question id 0.5 (float)"),
    ("id", True, "question id True (bool)"),
    ("sample", [0], "sample id [0] (list)"),
    ("sample", {"s": 0}, "sample id {'s': 0} (dict)"),
])
def test_list_or_dict_ids_and_samples_in_long_files_are_one_line(tmp_path, capsys, field, value,
                                                                  fragment):
    rows = [{"id": "q1", "sample": 0, "correct": 1}, {"id": "q1", "sample": 1, "correct": 0},
            {"id": "q2", "sample": 0, "correct": 1}]
    rows[1][field] = value
    path = write_rows(tmp_path / "l.jsonl", rows)
    code, out, err = run(capsys, "report", path, "--id", "id", "--sample", "sample", "--k", "1")
    assert_one_line(code, out, err, str(path), "line 2", fragment)


def test_a_5000_digit_integer_in_a_long_row_is_one_line(tmp_path, capsys):
    path = tmp_path / "l.jsonl"
    path.write_text('{"id": "q1", "correct": 1}\n{"id": "q1", "correct": ' + "1" * 5000 + "}\n")
    code, out, err = run(capsys, "report", path, "--id", "id", "--k", "1")
    assert_one_line(code, out, err, str(path), "line 2", "4300 digits")
    json_path = tmp_path / "l.json"
    json_path.write_text('[{"id": "q1", "correct": ' + "1" * 5000 + "}]")
    code, out, err = run(capsys, "report", json_path, "--id", "id", "--k", "1")
    assert_one_line(code, out, err, str(json_path), "4300 digits")


@pytest.mark.parametrize(("state", "fragment"), [
    ("{broken", "state.json of the dataset is not valid JSON"),
    ('{"_data_files": []}', "lists no data files"),
    ('{"_data_files": [{"filename": 3}]}', "lists no data files"),
    ('["a list"]', "expected a JSON object"),
])
def test_a_broken_datasets_folder_on_the_long_path_is_one_line(tmp_path, capsys, state,
                                                               fragment):
    folder = tmp_path / "ds"
    folder.mkdir()
    (folder / "state.json").write_text(state)
    code, out, err = run(capsys, "report", folder, "--id", "id", "--k", "1")
    assert_one_line(code, out, err, str(folder), fragment)


@pytest.mark.parametrize(("doc_id", "fragment"), [
    (None, "question id None (NoneType)"),
    (0.5, "question id 0.5 (float)"),
    ([1, 2], "question id [1, 2] (list)"),
    ({"a": 1}, "question id {'a': 1} (dict)"),
])
def test_harness_ids_that_are_not_labels_are_one_line(tmp_path, capsys, doc_id, fragment):
    # Derived from the real kp_mc file: line 2's doc_id replaced.
    rows = rows_of(LM_MC)
    rows[1]["doc_id"] = doc_id
    path = write_rows(tmp_path / "samples_kp_mc_ids.jsonl", rows)
    for extra in ([], ["--id", "doc_id"]):
        code, out, err = run(capsys, "report", path, "--from", "lm-eval", "--k", "1", *extra)
        assert_one_line(code, out, err, str(path), "line 2", fragment)


# ------------------------------------------------------------ 6. identities, BOM, messages


@pytest.mark.parametrize(("first", "second"), [(0, "0"), ("0", " 0"), (" 1", 1)])
def test_sample_ids_differing_by_type_or_spaces_are_one_sample(tmp_path, capsys, first, second):
    # The rule: sample ids are compared as question ids are (spaces stripped, integer text as
    # the integer), so these two rows are the same (question, sample): a repeat, refused.
    rows = [{"id": "q1", "sample": first, "correct": 1}, {"id": "q2", "sample": 0, "correct": 1},
            {"id": "q1", "sample": second, "correct": 0}]
    path = write_rows(tmp_path / "l.jsonl", rows)
    code, out, err = run(capsys, "report", path, "--id", "id", "--sample", "sample", "--k", "1")
    assert_one_line(code, out, err, str(path), "is repeated", "line 1 and line 3")
    csv_path = tmp_path / "l.csv"
    csv_path.write_text("id,sample,correct\n" + "".join(
        f'{r["id"]},"{r["sample"]}",{r["correct"]}\n' for r in rows))
    code, out, err = run(capsys, "report", csv_path, "--id", "id", "--sample", "sample",
                         "--k", "1")
    assert_one_line(code, out, err, str(csv_path), "is repeated", "line 2 and line 4")


def test_different_sample_ids_still_count_as_samples(tmp_path, capsys):
    rows = [{"id": "q1", "sample": 0, "correct": 1}, {"id": "q1", "sample": "01", "correct": 0},
            {"id": "q1", "sample": "s1", "correct": 0}, {"id": "q2", "sample": 0, "correct": 1}]
    path = write_rows(tmp_path / "l.jsonl", rows)
    result = report_json(capsys, path, "--id", "id", "--sample", "sample")
    assert result["estimate"] == pytest.approx(pass1({"q1": [1, 0, 0], "q2": [1]}), rel=1e-12)


@pytest.mark.parametrize("name", ["l.csv", "l.tsv", "l.csv.gz"])
def test_a_bom_in_a_long_csv_is_not_part_of_the_first_name(tmp_path, capsys, name):
    import gzip

    sep = "\t" if ".tsv" in name else ","
    values = {"q1": [1, 0, 1], "q2": [0, 0]}
    text = "\ufeff" + f"id{sep}correct\n" + "".join(
        f"{q}{sep}{v}\n" for q, vs in values.items() for v in vs)
    path = tmp_path / name
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    result = report_json(capsys, path, "--id", "id")
    assert result["questions"] == 2
    assert result["estimate"] == pytest.approx(pass1(values), rel=1e-12)


def test_ids_7_and_text_7_match_under_compare_clusters(tmp_path, capsys):
    rng = np.random.default_rng(7)
    a_rows = rng.integers(0, 2, size=(10, 4)).tolist()
    b_rows = rng.integers(0, 2, size=(10, 4)).tolist()
    a = write_rows(tmp_path / "a.jsonl", [{"id": i, "outcomes": r, "topic": i // 3}
                                          for i, r in enumerate(a_rows)])
    # B spells the ids as text, in another order, one with spaces (a CSV export would)
    order = rng.permutation(10)
    b = write_rows(tmp_path / "b.jsonl", [{"id": f" {i}" if i == 3 else str(i),
                                           "outcomes": b_rows[i]} for i in order])
    code, out, err = run(capsys, "compare", a, b, "--id", "id", "--clusters", "topic", "--k",
                         "1", "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    (line,) = json.loads(out)["results"]
    assert line["questions"] == 10
    per_a = np.mean(a_rows, axis=1)
    per_b = np.mean(b_rows, axis=1)
    assert line["difference"] == pytest.approx(float(np.mean(per_a - per_b)), abs=1e-12)
    # the same comparison with B's ids spelt as integers: the same numbers, to the bit
    same = write_rows(tmp_path / "b_int.jsonl", [{"id": int(i), "outcomes": b_rows[i]}
                                                 for i in order])
    code, out, err = run(capsys, "compare", a, same, "--id", "id", "--clusters", "topic", "--k",
                         "1", "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    (reference,) = json.loads(out)["results"]
    assert {key: line[key] for key in ("difference", "se", "p_value")} == {
        key: reference[key] for key in ("difference", "se", "p_value")}


def test_a_missing_file_with_filter_says_no_such_file(tmp_path, capsys):
    missing = tmp_path / "missing.jsonl"
    for extra in (["--filter", "x"], ["--from", "lm-eval"], ["--from", "lm-eval", "--id", "x"]):
        code, out, err = run(capsys, "report", missing, *extra, "--k", "1")
        assert_one_line(code, out, err, str(missing), "no such file")


def _brute_depth(text: str, limit: int = 100):
    """Nesting depth by walking the characters: a quote after an odd run of backslashes
    is escaped; brackets inside strings do not count. ``(deepest, line)`` or None."""
    depth = deepest = run = 0
    inside = False
    at = None
    for index, char in enumerate(text):
        if char == '"' and run % 2 == 0:
            inside = not inside
        elif not inside and char in "[{":
            depth += 1
        elif not inside and char in "]}":
            depth -= 1
        run = run + 1 if char == "\\" else 0
        deepest = max(deepest, depth)
        if at is None and depth > limit:
            at = index
    return None if at is None else (deepest, text.count("\n", 0, at) + 1)


@pytest.mark.parametrize("block", [1, 2, 3, 64, 1 << 20])
@pytest.mark.slow
def test_nesting_depth_matches_a_character_walk_across_block_edges(monkeypatch, block):
    import random

    from kpass.io import rows

    monkeypatch.setattr(rows, "_DEPTH_BLOCK", block)
    rng = random.Random(block)
    alphabet = ["[", "{", "]", "}", '"', "\\", "\\", "a", "\n", ","]
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        if rng.random() < 0.5:
            text = "[" * rng.randint(90, 130) + text
        assert rows.too_deep(text) == _brute_depth(text), text


@pytest.mark.parametrize("block", [1, 3, 7, 256 << 10])
def test_the_fast_path_scan_bounds_every_line_across_block_edges(tmp_path, monkeypatch, block):
    import random

    from kpass.io.formats import fast

    monkeypatch.setattr(fast, "_SCAN_BYTES", block)
    rng = random.Random(block)
    for trial in range(200):
        lines = ["".join(rng.choice("[{]}a,") for _ in range(rng.randint(0, 40)))
                 for _ in range(rng.randint(1, 6))]
        text = "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")
        path = tmp_path / f"scan{trial}.jsonl"
        path.write_text(text)
        limit = rng.randint(0, 12)
        most = max(line.count("[") + line.count("{") for line in text.split("\n"))
        assert fast._may_nest_deeper(path, limit) == (most > limit), (text, limit)


def test_leaderboard_with_id_honours_from_and_filter(capsys):
    per_doc = _by_filter(LM_GEN, "exact_match")
    code, out, err = run(capsys, "leaderboard", f"a={LM_GEN}", f"b={LM_GEN}", "--id", "doc_id",
                         "--from", "lm-eval", "--filter", "first", "--format", "json")
    assert code == 0, err
    (board,) = json.loads(out)["results"]
    assert board["questions"] == len(per_doc["first"])
    assert board["rows"][0]["estimate"] == pytest.approx(pass1(per_doc["first"]), rel=1e-12)
    code, out, err = run(capsys, "leaderboard", LM_GEN, f"b={LM_GEN}", "--id", "doc_id")
    assert_one_line(code, out, err, "--filter", command="leaderboard")
