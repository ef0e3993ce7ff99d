"""The fine print of issue 38, item 13: a metric constant by definition (mG-Pass@1 = 0) is
marked so by ``kpass report`` (no interval), as ``kpass compare`` leaves it out; and
``kpass.lighteval`` names and errors for a float k, tau = -0.0 and a missing lighteval."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest

import kpass.lighteval as kl
from kpass.report.cli import main


def test_report_marks_mg_pass_at_1_constant_without_an_interval(capsys):
    assert main(["report", "--k", "1,2", "--metrics", "mg-pass", "--format", "csv"]) == 0
    rows = {row["label"]: row for row in csv.DictReader(io.StringIO(capsys.readouterr().out))}
    assert rows["mG-Pass@1"]["se_method"] == "constant"
    assert rows["mG-Pass@1"]["se"] == rows["mG-Pass@1"]["lo"] == ""
    assert float(rows["mG-Pass@1"]["estimate"]) == 0.0
    assert rows["mG-Pass@2"]["se_method"] == "t" and rows["mG-Pass@2"]["se"] != ""
    assert main(["report", "--k", "1,2", "--metrics", "mg-pass", "--format", "json"]) == 0
    (one,) = [r for r in json.loads(capsys.readouterr().out)["results"]
              if r["label"] == "mG-Pass@1"]
    assert one["se"] is None and one["lo"] is None and one["hi"] is None
    assert main(["report", "--k", "1,2", "--metrics", "mg-pass", "--explain"]) == 0
    out = capsys.readouterr().out
    (line,) = [text for text in out.splitlines() if text.startswith("mG-Pass@1 ")]
    assert "constant" in line and "[0.000, 0.071]" not in line
    assert "mG-Pass@1 is 0 by definition" in out


@pytest.mark.parametrize("k", [2.0, [1, 2.0], "4", None])
def test_lighteval_a_k_that_is_not_an_integer_is_named(k):
    with pytest.raises(ValueError, match=r"kpass\.lighteval: k must be an integer >= 1; got "):
        kl.measures(k)


def test_lighteval_minus_zero_tau_is_named_as_zero():
    names = [m.name for m in kl.measures(2, ("g-pass@k_tau",), tau=-0.0)]
    assert names == ["kpass_g-pass@2_tau0.0"]
    assert names == [m.name for m in kl.measures(2, ("g-pass@k_tau",), tau=0)]


def test_lighteval_sampler_without_lighteval_is_one_clear_error(monkeypatch):
    for name in [m for m in sys.modules if m == "lighteval" or m.startswith("lighteval.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "lighteval", None)
    monkeypatch.setattr(kl, "_SAMPLER", [])
    with pytest.raises(ImportError, match=r"needs lighteval: pip install lighteval"):
        kl.KpassPassFamily  # noqa: B018
