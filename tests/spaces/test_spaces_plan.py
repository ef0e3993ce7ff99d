"""The Space's Plan tab without a browser (see test_spaces_browser.py for the page).

What it shows equals ``kpass plan`` / ``kpass.plan`` without a pilot on the same numbers;
each row of its table has the paired t test's power (scipy.stats.nct) at the difference it
names; bad input is a message naming the box, never an exception; every metric page has
the tab; the curve's axes are labelled.
"""

import math
import re
from pathlib import Path
from typing import Any

import pytest
from scipy import stats as sps

import kpass
from kpass.report.cli import main

REPO = Path(__file__).resolve().parents[2]

app: Any = None
tab: Any = None


@pytest.fixture(scope="module", autouse=True)
def _space_page(space_app):
    """The Space's modules as this file's names, bound when its first test runs (the
    shared loader, tests/conftest.py: gradio is not imported while collecting)."""
    global app, tab
    app = space_app
    tab = app.plan_tab


DEFAULTS = ("pass@k", 1, 0.6, 0.05, 4, 2.0, 0.5, 0.8, 0.95)


def t_power(m, delta, sd, alpha=0.05):
    df = m - 1
    q = sps.t.ppf(1 - alpha / 2, df)
    nc = delta * math.sqrt(m) / sd
    return sps.nct.sf(q, df, nc) + sps.nct.cdf(-q, df, nc)


def test_defaults_equal_the_command_line(capsys):
    message, table, figure = tab.run_plan(*DEFAULTS)
    assert main(["plan", "--baseline", "0.6", "--difference", "0.05", "--samples", "4",
                 "--format", "json"]) == 0
    import json

    fields = json.loads(capsys.readouterr().out)
    assert message.startswith(f"**{fields['questions']:,} questions** detect Pass@1 0.600 vs "
                              "0.650")
    yours = table[table["questions"].str.endswith("(yours)")]
    assert yours["questions"].tolist() == [f"{fields['questions']:,} (yours)"]
    assert yours["detectable"].tolist() == ["0.050"]
    assert figure is not None and figure.axes[0].get_xlabel() == "questions"
    assert figure.axes[0].get_ylabel() == "difference in Pass@1"


def test_the_tab_stamps_its_message_with_the_time():
    message, _, _ = tab.run_tab(app, *DEFAULTS)
    assert re.match(r"Planned at \d\d:\d\d:\d\d UTC: \*\*[\d,]+ questions\*\*", message)
    values = list(DEFAULTS)
    values[2] = 2.0
    assert tab.run_tab(app, *values)[0].startswith("**Input error:**")


@pytest.mark.parametrize("metric, k, samples", [("pass^k", 4, 8), ("maj@k", 3, 5),
                                                ("auc@k", 2, 4)])
def test_each_row_has_the_power_asked_for(metric, k, samples):
    values = (metric, k, 0.4, 0.08, samples, 1.5, 0.7, 0.9, 0.9)
    message, table, _ = tab.run_plan(*values)
    assert message.startswith("**"), message
    point = getattr(kpass, dict(tab.metric_choices())[metric])
    design = kpass.plan(point, k=k, baseline=0.4, difference=0.08, samples=samples,
                        spread=1.5, correlation=0.7, power=0.9, confidence=0.9)
    assert len(table) >= 8
    for text, detectable in zip(table["questions"], table["detectable"], strict=True):
        m = int(text.split()[0].replace(",", ""))
        d = float(detectable)
        # shown to 3 decimals: the power at the shown value is within rounding of 0.9
        low = t_power(m, d - 0.0005, design._sd_at(d - 0.0005), 0.1)
        high = t_power(m, d + 0.0005, design._sd_at(d + 0.0005), 0.1)
        assert low <= 0.9 <= high, (m, d)


def test_the_metrics_offered_are_the_binary_credit_ones():
    offered = dict(tab.metric_choices())
    assert list(offered)[0] == "pass@k"
    assert {"pass_at_k", "pass_hat_k", "maj_at_k", "auc_at_k", "g_pass_at_k",
            "mg_pass_at_k"} <= set(offered.values())
    assert "avg" not in offered.values() and "vote_at_k" not in offered.values()


@pytest.mark.parametrize("change, needle", [
    ({2: 1.2}, "baseline"), ({3: 0.5}, "baseline + difference"), ({4: 0}, "samples"),
    ({4: "four"}, "samples"), ({1: 8}, "k"), ({6: 2}, "correlation"), ({7: 1}, "power"),
    ({8: None}, "confidence"), ({0: "bogus"}, "metric"), ({5: float("nan")}, "spread"),
    ({3: 0}, "difference"), ({4: 5000}, "samples"),
])
def test_bad_input_is_a_message(change, needle):
    values = list(DEFAULTS)
    for index, value in change.items():
        values[index] = value
    message, table, figure = tab.run_plan(*values)
    assert message.startswith("**Input error:**") and needle in message, message
    assert table.empty and figure is None


def test_every_metric_page_has_the_plan_tab():
    import evaluate

    module = evaluate.load(str(REPO / "metrics" / "pass_at_k_bayes" / "pass_at_k_bayes.py"))
    ids = {block.elem_id for block in app.build_demo(module=module).blocks.values()}
    assert {"kpass-tab-plan", "kpass-plan-run", "kpass-plan-table", "kpass-plan-plot",
            "kpass-plan-baseline", "kpass-plan-spread", "kpass-plan-correlation"} <= ids
