"""``kpass compare --margin / --equivalence / --sequential-null`` (issue 40, items 1 and 4)."""

import json

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

import kpass
from kpass.report.cli import main


def write_runs(tmp_path, shift, questions=150, n=8, seed=12):
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1.5, questions)
    paths = []
    for name, s in (("a", shift), ("b", 0.0)):
        path = tmp_path / f"{name}.jsonl"
        with path.open("w") as f:
            for q in range(questions):
                row = rng.binomial(1, expit(theta[q] + s), n).tolist()
                f.write(json.dumps({"id": f"q{q}", "outcomes": row}) + "\n")
        paths.append(str(path))
    return paths


def rows_of(path):
    return np.array([json.loads(line)["outcomes"] for line in open(path)])


def test_margin_states_the_claim_and_its_p(tmp_path, capsys):
    a, b = write_runs(tmp_path, 0.0)
    assert main(["compare", a, b, "--id", "id", "--metrics", "pass@k", "--k", "1,4",
                 "--margin", "0.1"]) == 0
    out = capsys.readouterr().out.splitlines()
    d = rows_of(a).mean(axis=1) - rows_of(b).mean(axis=1)
    p = stats.ttest_1samp(d - 0.1, 0.0, alternative="less").pvalue
    words = "p < 0.001" if p < 0.001 else f"p = {p:.3f}"
    assert out[1].startswith(f"primary: B is not worse than A by more than 0.1 on Pass@1 "
                             f"(one-sided, 95%, {words}); difference A - B")
    assert out[2].startswith("secondary: ") and "max-T p" in out[2]
    assert "p margin" in out[4]
    assert main(["compare", a, b, "--id", "id", "--metrics", "pass@k", "--k", "1",
                 "--margin", "0.1", "--equivalence", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)["results"][0]
    assert record["margin"] == 0.1 and record["equivalence"] is True
    assert record["verdict"] in ("shown", "not shown")
    reference = max(p, stats.ttest_1samp(d + 0.1, 0.0, alternative="greater").pvalue)
    assert record["p_margin"] == pytest.approx(reference, rel=1e-9)


def test_margin_not_shown_says_so(tmp_path, capsys):
    a, b = write_runs(tmp_path, 1.0)  # A far better: B is worse by more than 0.02
    assert main(["compare", a, b, "--id", "id", "--metrics", "pass@k", "--k", "1",
                 "--margin", "0.02"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith("not shown: B is not worse than A by more than 0.02 on Pass@1")


@pytest.mark.parametrize("extra, named", [
    (["--margin", "-0.1"], "--margin"), (["--margin", "0"], "--margin"),
    (["--margin", "1"], "--margin"), (["--margin", "nan"], "--margin"),
    (["--margin", "two"], "--margin"), (["--equivalence"], "--equivalence"),
    (["--sequential-null", "bounded"], "--sequential-null"),
    (["--sequential", "--sequential-null", "symmetric"], "--sequential-null")])
def test_bad_margins_and_nulls_are_one_line(tmp_path, capsys, extra, named):
    a, b = write_runs(tmp_path, 0.0, questions=20)
    assert main(["compare", a, b, "--id", "id", *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured.err
    assert named in captured.err


def test_sequential_null_and_margin(tmp_path, capsys):
    a, b = write_runs(tmp_path, 0.0, questions=300, n=16)
    for null in ("exchangeable", "bounded"):
        assert main(["compare", a, b, "--id", "id", "--metrics", "pass@k", "--k", "1",
                     "--sequential", "--sequential-null", null, "--margin", "0.1"]) == 0
        out = capsys.readouterr().out.splitlines()
        cs = kpass.confidence_sequence(kpass.pass_at_k, rows_of(a), rows_of(b), 1, null=null,
                                       margin=0.1)
        assert ("exchangeable on each question" in out[0]) == (null == "exchangeable")
        assert out[0].endswith("deciding whether B is not worse than A by more than 0.1 "
                               "(B the new model)")
        assert out[1] == f"Pass@1  {cs.summary()}"
        assert cs.verdict == "B is not worse than A by more than 0.1"
    assert main(["compare", a, b, "--id", "id", "--metrics", "pass@k", "--k", "1",
                 "--sequential", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)[0]
    assert record["null"] == "exchangeable" and record["margin"] is None
