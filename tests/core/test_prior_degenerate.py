"""Issue 38 item 12: a degenerate empirical-Bayes fit (one question, no spread, a fitted
bound) warns in one line, and the report's legend names the prior it used."""

import json
import warnings

import numpy as np
import pytest

import kpass
from kpass._core.moments.prior import LOG_BOUNDS, fit_beta_prior
from kpass.report.cli import main


@pytest.mark.parametrize("n, c, reason", [
    ([4], [4], "one question"),
    ([4, 4, 4], [2, 2, 2], "same share correct"),
    ([4] * 6, [4, 4, 4, 0, 0, 0], "bound"),  # all or nothing: a and b at exp(-7)
])
def test_a_degenerate_fit_warns_with_its_reason(n, c, reason):
    counts = kpass.BinaryCounts(np.array(n), np.array(c))
    with pytest.warns(UserWarning, match=f"degenerate.*{reason}"):
        a, b = fit_beta_prior(counts)
    if reason == "bound":  # the fit really sits at a bound (independent check)
        assert min(abs(np.log([a, b])[:, None] - np.array(LOG_BOUNDS)[None, :]).ravel()) < 1e-6


def test_a_spread_run_fits_without_a_warning():
    rng = np.random.default_rng(0)
    c = rng.binomial(8, rng.beta(2, 3, 60))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        fit_beta_prior(kpass.BinaryCounts(np.full(60, 8), c))


def test_report_names_the_prior_in_its_legend_and_warns_once(tmp_path, capsys):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"outcomes": [1, 1, 1, 1]}) + "\n")
    assert main(["report", str(path), "--prior", "empirical", "--explain"]) == 0
    out, err = capsys.readouterr()
    text = " ".join((out + err).split())
    assert text.count("is degenerate (one question)") == 1
    assert "posterior under the Beta prior fitted to each run" in text
    assert "posterior under a uniform Beta(1,1) prior" not in text
    assert "UserWarning" not in err
    assert main(["report", str(path), "--explain"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "posterior under a uniform Beta(1,1) prior" in text
