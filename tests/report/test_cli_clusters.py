"""`kpass report --clusters` reads the labels `kpass compare --clusters` reads (issue 38 item 10):
long files (one label per question id, not per row) and Hive partition folders (`topic=...`),
with the CR2 standard error checked against exact arithmetic."""

import json
from fractions import Fraction

import numpy as np
import pytest

from kpass.report.cli import main

RNG = np.random.default_rng(3810)
M, N = 20, 4
TOPICS = [f"t{i // 5}" for i in range(M)]
IDS = [f"q{i:02d}" for i in range(M)]
ROWS = (RNG.random((M, N)) < RNG.random((M, 1))).astype(int)


def cr2_se(rows, topics):
    """CR2 SE of a mean of per-question rates: for an intercept-only model the CR2 adjustment of
    cluster g scales its residual sum by (1 - n_g / n)^(-1/2), so
    V = sum_g S_g^2 / (1 - n_g / n) / n^2, exactly (Bell and McCaffrey 2002)."""
    rates = [Fraction(int(sum(row)), len(row)) for row in rows]
    n = len(rates)
    mean = sum(rates) / n
    variance = Fraction(0)
    for topic in sorted(set(topics)):
        members = [rate for rate, label in zip(rates, topics, strict=True) if label == topic]
        total = sum(rate - mean for rate in members)
        variance += total * total / (1 - Fraction(len(members), n))
    return float(variance / (n * n)) ** 0.5


def write_long(path):
    with open(path, "w") as handle:
        handle.write("id,topic,correct\n")
        for question, row in enumerate(ROWS):
            for value in row:
                handle.write(f"{IDS[question]},{TOPICS[question]},{value}\n")
    return path


def write_hive(folder):
    for topic in sorted(set(TOPICS)):
        part = folder / f"topic={topic}"
        part.mkdir(parents=True)
        with open(part / "part-0.csv", "w") as handle:
            handle.write("id,correct\n")
            for question, row in enumerate(ROWS):
                if TOPICS[question] == topic:
                    handle.writelines(f"{IDS[question]},{value}\n" for value in row)
    return folder


def pass_one(capsys, source):
    code = main(["report", str(source), "--id", "id", "--clusters", "topic", "--k", "1",
                 "--metrics", "pass@k", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    record, = json.loads(out)["results"]
    return record


@pytest.mark.parametrize("layout", ["long", "hive"])
def test_report_reads_the_clusters_compare_reads(tmp_path, capsys, layout):
    source = (write_long(tmp_path / "long.csv") if layout == "long"
              else write_hive(tmp_path / "hive"))
    record = pass_one(capsys, source)
    assert record["questions"] == M
    assert record["estimate"] == pytest.approx(ROWS.mean(), rel=1e-12)
    assert record["se"] == pytest.approx(cr2_se(ROWS.tolist(), TOPICS), rel=1e-9)
    assert record["se"] != pytest.approx(cr2_se(ROWS.tolist(), IDS), rel=1e-3)
    code = main(["compare", str(source), str(source), "--id", "id", "--clusters", "topic",
                 "--k", "1", "--metrics", "pass@k", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["clusters"] == "topic"
