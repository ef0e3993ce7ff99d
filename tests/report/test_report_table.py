"""kpass.report_table: the report from counts in Python equals what `kpass report` prints for
the same outcomes, in every format, for counts from arrays, long frames and several inputs."""

import json

import numpy as np
import pytest

import kpass
from kpass.report.cli import main

R = np.random.default_rng(31).integers(0, 2, size=(25, 6))


def cli(capsys, *args):
    assert main([str(a) for a in args]) == 0
    return capsys.readouterr().out


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps({"outcomes": row.tolist()}) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json"])
def test_every_format_equals_the_command_line(tmp_path, capsys, fmt):
    path = write_jsonl(tmp_path / "runs.jsonl", R)
    printed = cli(capsys, "report", path, "--k", "1,3,6", "--format", fmt)
    table = kpass.report_table({"runs.jsonl": R}, k=[1, 3, 6])
    rendered = table.render(fmt)
    if fmt == "json":  # the CLI's document names the file's path and column
        ours, theirs = json.loads(rendered), json.loads(printed)
        assert ours["results"] == theirs["results"]
    elif fmt == "table":  # the first line describes the input (its column, for a file)
        assert rendered.splitlines()[1:] == printed.splitlines()[1:]
    else:
        assert rendered == printed


def test_rows_are_the_numbers_of_the_core():
    counts = kpass.BinaryCounts(R.shape[1] * np.ones(len(R), int), R.sum(axis=1))
    table = kpass.report_table(counts, metrics="pass@k,pass^k", k=[1, 2])
    found = {(row["metric"], row["k"]): row for row in table.rows}
    for (metric, function) in (("pass@k", kpass.pass_at_k), ("pass^k", kpass.pass_hat_k)):
        for k in (1, 2):
            row = found[(metric, k)]
            assert row["estimate"] == pytest.approx(function(R, k), rel=1e-14)
            assert row["se"] == pytest.approx(kpass.standard_error(function, R, k), rel=1e-12)
            mean, sd = kpass.pass_at_k_ci(R, k)[:2] if metric == "pass@k" else \
                kpass.pass_hat_k_ci(R, k)[:2]
            assert (row["mean"], row["sd"]) == pytest.approx((mean, sd), rel=1e-12)
    assert str(table).startswith("counts: 25 questions, 6 samples each")


def test_counts_grouped_in_an_engine_give_the_file_report(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("narwhals")
    long = pd.DataFrame([{"q": f"q{i}", "s": j, "ok": int(R[i, j])}
                         for i in range(len(R)) for j in range(R.shape[1])]).sample(
        frac=1.0, random_state=0)
    counts = kpass.BinaryCounts.from_long(long, id="q", outcome="ok")
    long.to_csv(tmp_path / "long.csv", index=False)
    printed = cli(capsys, "report", tmp_path / "long.csv", "--id", "q", "--column", "ok",
                  "--metrics", "pass@k,maj@k", "--k", "1,5", "--format", "csv")
    rendered = kpass.report_table({"long.csv": counts}, metrics=["pass@k", "maj@k"],
                                  k=[1, 5]).render("csv")
    assert rendered == printed


def test_bad_arguments_name_what_is_wrong():
    with pytest.raises(ValueError, match="k=7 is larger than every question's number"):
        kpass.report_table(R, k=7)
    with pytest.raises(ValueError, match="`format` must be one of"):
        kpass.report_table(R, k=1).render("html")
    with pytest.raises(ValueError, match=r"`short` must be one of 'error', 'skip'"):
        kpass.report_table(R, k=1, short="drop")
    with pytest.raises(ValueError, match="unknown metric"):
        kpass.report_table(R, metrics="pass@q")
    with pytest.raises(ValueError, match=r"`counts\['x'\]`"):
        kpass.report_table({"x": [[1, 2]]}, k=1)
    with pytest.raises(ValueError, match="maps no input"):
        kpass.report_table({}, k=1)
