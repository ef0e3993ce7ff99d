"""`kpass compare` on logs as harnesses write them (issue 20): one row per sample (long JSONL),
ids in different orders, questions missing on one side, repeated rows, few questions.
Numbers are checked against scipy on per-question means (Pass@1), a Holm written here and a
brute-force sign-flip enumeration."""

import itertools
import json

import numpy as np
import pytest
from scipy import stats as sps

from kpass.report.cli import main

N = 8


def make_rates(m, seed, shift):
    rng = np.random.default_rng(seed)
    p = rng.beta(1.2, 1.2, m)
    return rng, p, np.clip(p + shift, 0, 1)


def write_long(path, outcomes, ids, rng, extra_rows=()):
    rows = [{"question_id": q, "sample": s, "correct": int(x)}
            for q, row in zip(ids, outcomes, strict=True) for s, x in enumerate(row)]
    rows += list(extra_rows)
    order = rng.permutation(len(rows))
    with open(path, "w") as handle:
        for i in order:
            handle.write(json.dumps(rows[i]) + "\n")
    return str(path)


def pair(tmp_path, m=60, shift=0.15, seed=0, drop_b=(), extra_b=()):
    rng, p, q = make_rates(m, seed, shift)
    A = (rng.random((m, N)) < p[:, None]).astype(int)
    B = (rng.random((m, N)) < q[:, None]).astype(int)
    ids = [f"q{i:03d}" for i in range(m)]
    keep = [i for i in range(m) if i not in set(drop_b)]
    a = write_long(tmp_path / "a.jsonl", A, ids, rng)
    b_out = [B[i] for i in keep] + [row for _, row in extra_b]
    b_ids = [ids[i] for i in keep] + [name for name, _ in extra_b]
    b = write_long(tmp_path / "b.jsonl", b_out, b_ids, rng)
    return a, b, A, B, ids, keep


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def hand_holm(p):
    m = len(p)
    order = np.argsort(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def test_verdict_names_the_better_run_in_both_directions(tmp_path, capsys):
    a, b, A, B, _, _ = pair(tmp_path)
    code, out, err = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1",
                         "--metrics", "pass@k")
    assert code == 0 and err == ""
    d = A.mean(axis=1) - B.mean(axis=1)  # B is better: the shift was +0.15
    test = sps.ttest_rel(A.mean(axis=1), B.mean(axis=1))
    low, high = test.confidence_interval(0.95)
    verdict = next(line for line in out.splitlines() if "better than" in line)
    assert verdict == (f"B is better than A on Pass@1 by {-d.mean():.3g} (95% CI {-high:.3g} "
                       f"to {-low:.3g}, p = {test.pvalue:.2g})") or verdict.startswith(
        f"B is better than A on Pass@1 by {-d.mean():.3g} (95% CI {-high:.3g} to {-low:.3g}")
    code, out, _ = run(capsys, "compare", b, a, "--id", "question_id", "--k", "1",
                       "--metrics", "pass@k")
    assert f"A is better than B on Pass@1 by {-d.mean():.3g}" in out


def test_no_detectable_difference_says_so_with_the_mde(tmp_path, capsys):
    a, b, A, B, _, _ = pair(tmp_path, shift=0.0, seed=4)
    code, out, _ = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1",
                       "--metrics", "pass@k", "--format", "json")
    document = json.loads(out)
    row, = document["results"]
    m = A.shape[0]
    d = A.mean(axis=1) - B.mean(axis=1)
    se = d.std(ddof=1) / np.sqrt(m)
    mde = (sps.t.ppf(0.975, m - 1) + sps.t.ppf(0.8, m - 1)) * se
    assert row["mde"] == pytest.approx(mde, rel=1e-9)
    assert row["p_value"] > 0.05
    # issue 28 item 21: the table's 3 decimals, never "p = <0.001"
    assert document["verdicts"] == [f"no detectable difference on Pass@1: difference A - B "
                                    f"{row['difference']:.3f}, MDE {mde:.3f} (p = "
                                    f"{row['p_value']:.3f})"]
    assert row["difference"] == pytest.approx(d.mean(), abs=1e-12)
    assert row["p_adjusted"] == row["p_value"] and row["role"] == "primary"
    assert row["verdict"] == "no detectable difference"


def test_per_model_se_df_and_p_exact_in_json_and_csv(tmp_path, capsys):
    a, b, A, B, _, _ = pair(tmp_path, m=12, seed=2)
    code, out, err = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1",
                         "--metrics", "pass@k", "--format", "json")
    assert code == 0 and err == ""  # the small-sample warning is a note, not a trace
    document = json.loads(out)
    row, = document["results"]
    sa, sb = A.mean(axis=1), B.mean(axis=1)
    assert row["se_a"] == pytest.approx(sa.std(ddof=1) / np.sqrt(12))
    assert row["se_b"] == pytest.approx(sb.std(ddof=1) / np.sqrt(12))
    assert row["df"] == 11 and row["reference"] == "t"
    d = [x for x in sa - sb if x != 0]
    brute = sum(abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= abs(sum(d)) - 1e-12
                for signs in itertools.product((1, -1), repeat=len(d))) / 2 ** len(d)
    assert row["p_exact"] == pytest.approx(brute)
    assert any("only 12 questions" in note for note in document["notes"])
    code, out, _ = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1",
                       "--metrics", "pass@k", "--format", "csv")
    header = out.splitlines()[0].split(",")
    assert {"se_a", "se_b", "df", "p_exact", "p_adjusted", "verdict"} <= set(header)
    code, out, _ = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1",
                       "--metrics", "pass@k")
    # issue 28 item 17: the CLI's words, not the Python API's
    assert "p exact" in out and "note: pass@k: only 12 questions" in out
    assert "kpass.compare(" not in out and "p_exact" not in out


def test_holm_column_and_note_when_several_rows(tmp_path, capsys):
    # issue 29: the first row is primary (its own p); the others are secondary, adjusted
    # jointly: --adjust holm is Holm over the secondary rows only.
    a, b, *_ = pair(tmp_path, shift=0.06, seed=7)
    code, out, _ = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1,2,4,8",
                       "--metrics", "pass@k,pass^k", "--format", "json", "--adjust", "holm")
    document = json.loads(out)
    rows = document["results"]
    assert len(rows) == 8 and document["adjust"] == "holm"
    shown = [row for row in rows if row["same_as"] is None]  # Pass^1 = Pass@1: one row
    assert [row["label"] for row in shown][0] == "Pass@1" and shown[0]["role"] == "primary"
    assert shown[0]["p_adjusted"] == shown[0]["p_value"]
    expected = hand_holm(np.array([row["p_value"] for row in shown[1:]]))
    assert [row["p_adjusted"] for row in shown[1:]] == pytest.approx(list(expected))
    assert next(row for row in rows if row["label"] == "Pass^1")["same_as"] == "Pass@1"
    code, out, _ = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1,2,4,8",
                       "--metrics", "pass@k,pass^k", "--format", "markdown", "--adjust", "holm",
                       "--explain")
    assert "| p adj |" in out
    assert "difference = A - B" in out and "Holm's stepdown" in out  # legend kept
    assert "(Holm p = " in out or "(Holm p < " in out


def test_many_rows_keep_the_verdicts_short(tmp_path, capsys):
    a, b, *_ = pair(tmp_path, shift=0.0, seed=3)
    code, out, _ = run(capsys, "compare", a, b, "--id", "question_id")
    verdict_lines = [line.removeprefix("primary: ").removeprefix("secondary: ")
                     for line in out.splitlines()]  # terse: one line per verdict, its role first
    verdict_lines = [line for line in verdict_lines
                     if line.startswith(("no detectable", "A is better", "B is better"))]
    table_rows = [line for line in out.splitlines() if line.startswith(("Pass", "Maj", "AUC",
                                                                        "G-Pass", "mG-Pass",
                                                                        "Avg"))]
    assert len(table_rows) > 8 and len(verdict_lines) <= 9
    assert any(line.startswith("no detectable difference on") and "rows" in line
               for line in verdict_lines)


def test_mg_pass_at_1_is_left_out_with_a_note(tmp_path, capsys):
    a, b, *_ = pair(tmp_path)
    code, out, _ = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1,2",
                       "--metrics", "mg-pass@k", "--format", "json")
    document = json.loads(out)
    assert [row["k"] for row in document["results"]] == [2]
    assert any("mG-Pass@1 left out" in note and "by definition" in note
               for note in document["notes"])


def test_shared_uses_the_questions_both_runs_have(tmp_path, capsys):
    rng = np.random.default_rng(5)
    extra = [("x1", rng.integers(0, 2, N).tolist()), ("x2", rng.integers(0, 2, N).tolist())]
    a, b, A, B, ids, keep = pair(tmp_path, drop_b=(3, 10, 11, 40, 59), extra_b=extra)
    code, _, err = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1")
    assert code == 1 and err.count("\n") == 1
    assert "5 ids of A are not in B" in err and "--shared" in err
    code, out, err = run(capsys, "compare", a, b, "--id", "question_id", "--k", "1",
                         "--metrics", "pass@k", "--shared", "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    row, = document["results"]
    assert document["questions"] == row["questions"] == 55
    assert any("5 of A's 60 and 2 of B's 57 questions left out" in note
               for note in document["notes"])
    sa, sb = A[keep].mean(axis=1), B[keep].mean(axis=1)
    assert row["difference"] == pytest.approx(float(np.mean(sa - sb)))
    assert row["p_value"] == pytest.approx(sps.ttest_rel(sa, sb).pvalue, rel=1e-9)


def test_sample_column_refuses_a_repeated_row(tmp_path, capsys):
    a, b, A, B, ids, _ = pair(tmp_path)
    code, out, err = run(capsys, "compare", a, b, "--id", "question_id", "--sample", "sample",
                         "--k", "1", "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["a"] == pytest.approx(A.mean())
    with open(b, "a") as handle:  # a log row written twice: a 9th sample without --sample
        handle.write(json.dumps({"question_id": ids[0], "sample": 3, "correct": 1}) + "\n")
    code, _, err = run(capsys, "compare", a, b, "--id", "question_id", "--sample", "sample")
    assert code == 1 and err.count("\n") == 1 and "repeated" in err and "line" in err
    code, _, err = run(capsys, "compare", a, b, "--sample", "sample")
    assert code == 1 and "--sample needs --id" in err


def test_rows_paired_by_order_are_noted(tmp_path, capsys):
    rng = np.random.default_rng(1)
    for name in ("a", "b"):
        with open(tmp_path / f"{name}.jsonl", "w") as handle:
            for _ in range(35):
                handle.write(json.dumps({"outcomes": rng.integers(0, 2, 4).tolist()}) + "\n")
    code, out, _ = run(capsys, "compare", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--k", "1",
                       "--metrics", "pass@k")
    assert code == 0 and "note: rows were paired by order (no --id)" in out


FIXTURES = __import__("pathlib").Path(__file__).parents[1] / "fixtures"


@pytest.mark.parametrize("path, options, label", [
    ("lm-eval/samples_kp_mc_2026-11-23T08-26-00.825007.jsonl", [], "acc"),
    ("lm-eval/samples_kp_gen_2026-11-23T08-26-00.825007.jsonl", ["--filter", "first"],
     "exact_match (filter first)"),
    ("lighteval/details_kp_gen_0_2026-11-23T08-39-44.002695.parquet", [], "em"),
    ("lighteval/details_kp_mc_0_2026-11-23T08-39-44.002695.parquet", [], "acc"),
])
def test_harness_files_are_labelled_by_their_own_metric(capsys, path, options, label):
    """The fixtures were written by lm-evaluation-harness and lighteval themselves (see
    their READMEs); the label is the metric the harness named first in the file."""
    import json as _json

    rows = []
    full = FIXTURES / path
    if full.suffix == ".jsonl":
        rows = [_json.loads(line) for line in full.read_text().splitlines() if line.strip()]
        counted = [r for r in rows if "--filter" not in options or r["filter"] == options[1]]
        assert label.split()[0] == counted[0]["metrics"][0]  # what lm-eval wrote first
    code, out, err = run(capsys, "report", full, "--metrics", "pass@k", "--k", "1", *options)
    assert code == 0, err
    assert f"column `{label}`" in out.splitlines()[0]
    code, out, err = run(capsys, "report", full, "--metrics", "pass@k", "--k", "1",
                         "--format", "json", *options)
    assert _json.loads(out)["inputs"][0]["column"] == label


def test_percent_tables_are_a_hundred_times_the_fractions(tmp_path, capsys):
    a, b, A, B, _, _ = pair(tmp_path)
    base = ["--id", "question_id", "--k", "1,2", "--metrics", "pass@k"]
    code, out, _ = run(capsys, "compare", a, b, *base, "--format", "json")
    fractions = json.loads(out)["results"]
    code, out, _ = run(capsys, "compare", a, b, *base, "--percent", "--digits", "4")
    rows = [line.split() for line in out.splitlines() if line.startswith("Pass@")]
    for row, record in zip(rows, fractions, strict=True):
        assert float(row[1]) == pytest.approx(100 * record["a"], abs=6e-5)
        assert float(row[3]) == pytest.approx(100 * record["difference"], abs=6e-5)
        assert float(row[4]) == pytest.approx(100 * record["se"], abs=6e-5)
        shown = record["p_value"]  # not scaled
        assert row[7] == ("<0.001" if shown < 0.001 else f"{shown:.3f}")
    assert "B is better than A on Pass@1 by " in out and " points (95% CI " in out
    assert "values in percent" in out
    code, out, _ = run(capsys, "report", a, "--id", "question_id", "--k", "1", "--metrics",
                       "pass@k", "--format", "json")
    record, = json.loads(out)["results"]
    code, out, _ = run(capsys, "report", a, "--id", "question_id", "--k", "1", "--metrics",
                       "pass@k", "--percent")
    row = next(line for line in out.splitlines() if line.startswith("Pass@1")).split()
    assert float(row[1]) == pytest.approx(100 * A.mean(), abs=0.051)  # one decimal
    assert float(row[2]) == pytest.approx(100 * record["se"], abs=0.051)


def test_answers_compare_vote_at_k_on_long_answer_logs(tmp_path, capsys):
    """One row per sampled answer, ids in different orders; Vote@1 per question is the share
    of answers equal to the reference, so the paired Vote@1 comparison is scipy's paired t
    test on those shares."""
    rng = np.random.default_rng(12)
    m, n = 40, 5
    choices = ["7", "12", "x", "99"]
    share = {}
    for name, bias in (("a", 0.6), ("b", 0.35)):
        rows = []
        for q in range(m):
            right = rng.random(n) < bias
            answers = [choices[0] if ok else str(rng.choice(choices[1:])) for ok in right]
            share.setdefault(name, []).append(np.mean([a == "7" for a in answers]))
            rows += [{"qid": f"q{q}", "s": s, "answer": a, "reference": "7"}
                     for s, a in enumerate(answers)]
        order = rng.permutation(len(rows))
        with open(tmp_path / f"{name}.jsonl", "w") as handle:
            handle.writelines(json.dumps(rows[i]) + "\n" for i in order)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    code, out, err = run(capsys, "compare", a, b, "--answers", "--id", "qid", "--sample", "s",
                         "--column", "answer", "--k", "1,3", "--metrics", "vote@k,pass@k",
                         "--format", "json")
    assert code == 0, err
    found = {(r["metric"], r["k"]): r for r in json.loads(out)["results"]}
    sa, sb = np.array(share["a"]), np.array(share["b"])
    vote = found[("vote@k", 1)]
    assert vote["difference"] == pytest.approx(float(np.mean(sa - sb)))
    assert vote["p_value"] == pytest.approx(sps.ttest_rel(sa, sb).pvalue, rel=1e-9)
    assert found[("pass@k", 1)]["difference"] == pytest.approx(float(np.mean(sa - sb)))
    for name, side in (("a", "a"), ("b", "b")):  # each side as kpass report reads it alone
        code, out, _ = run(capsys, "report", tmp_path / f"{name}.jsonl", "--answers", "--id",
                           "qid", "--column", "answer", "--k", "3", "--metrics", "vote@k",
                           "--format", "json")
        alone, = json.loads(out)["results"]
        assert found[("vote@k", 3)][side] == pytest.approx(alone["estimate"])
    code, _, err = run(capsys, "compare", a, b, "--answers", "--from", "lm-eval")
    assert code == 2 and "--from" in err
