"""``kpass plan``: without a pilot (assumed numbers) and with pilot files, text and JSON, errors.

The numbers are checked against the t test's power from scipy.stats.nct at the printed
sizes, and the pilot plans against kpass.plan on the same outcomes read in Python.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats as sps

import kpass
from kpass.data import sample_path, tau_bench_outcomes
from kpass.report.cli import main

SAMPLE = str(sample_path())


def run(capsys, *args):
    code = main(["plan", *[str(a) for a in args]])
    out, err = capsys.readouterr()
    return code, out, err


def t_power(m, delta, sd, alpha=0.05):
    df = m - 1
    q = sps.t.ppf(1 - alpha / 2, df)
    nc = delta * math.sqrt(m) / sd
    return sps.nct.sf(q, df, nc) + sps.nct.cdf(-q, df, nc)


def test_questions_needed_first_line_is_the_answer(capsys):
    code, out, err = run(capsys, "--baseline", 0.6, "--difference", 0.03, "--samples", 4)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 2
    design = kpass.plan(kpass.pass_at_k, k=1, baseline=0.6, difference=0.03, samples=4)
    assert lines[0] == (f"Questions needed: {design.questions:,} (Pass@1 0.600 vs 0.630, 80% "
                        "power, 95% confidence, paired two-sided t test)")
    m = design.questions
    assert t_power(m, 0.03, design.sd) >= 0.8 > t_power(m - 1, 0.03, design.sd)


def test_detectable_difference_and_json(capsys):
    code, out, _ = run(capsys, "--baseline", 0.3, "--questions", 300, "--samples", 8,
                       "--metric", "pass^k", "--k", 4, "--power", 0.9, "--confidence", 0.99,
                       "--spread", 1.5, "--correlation", 0.8, "--format", "json")
    assert code == 0
    fields = json.loads(out)
    assert fields["solved"] == "difference" and fields["questions"] == 300
    assert fields["metric"] == "pass_hat_k" and fields["label"] == "Pass^4"
    assert (fields["spread"], fields["correlation"], fields["power"]) == (1.5, 0.8, 0.9)
    assert t_power(300, fields["difference"], fields["sd"], 0.01) == pytest.approx(0.9,
                                                                                    abs=1e-6)
    code, text, _ = run(capsys, "--baseline", 0.3, "--questions", 300, "--samples", 8,
                        "--metric", "pass^k", "--k", 4, "--power", 0.9, "--confidence",
                        0.99, "--spread", 1.5, "--correlation", 0.8)
    assert text.startswith(f"Detectable difference: {fields['difference']:.3f} with 300 "
                           "questions (Pass^4 0.300 vs")


@pytest.mark.parametrize("metric, k, extra", [("g-pass@k", 4, ["--tau", "0.75"]),
                                              ("maj@k", 3, []), ("auc@k", 4, [])])
def test_other_metrics(capsys, metric, k, extra):
    code, out, _ = run(capsys, "--baseline", 0.5, "--difference", 0.1, "--samples", 8,
                       "--metric", metric, "--k", k, *extra, "--format", "json")
    fields = json.loads(out)
    assert code == 0 and fields["questions"] > 2 and fields["k"] == k


def test_a_pilot_plans_as_kpass_plan(capsys):
    R = np.array(tau_bench_outcomes())
    pilot = kpass.plan(kpass.pass_hat_k, R, 4)
    code, out, _ = run(capsys, SAMPLE, "--difference", 0.05, "--metric", "pass^k", "--k", 4)
    assert code == 0
    assert out.splitlines()[0].startswith(f"Questions needed: {pilot.questions_for(0.05)} ")
    code, out, _ = run(capsys, SAMPLE, "--questions", 400, "--format", "json")
    fields = json.loads(out)
    one = kpass.plan(kpass.pass_at_k, R, 1)
    sd = math.sqrt(one.between + one.within)
    assert t_power(400, fields["difference"], sd) == pytest.approx(0.8, abs=1e-6)
    assert fields["pilot"] == [SAMPLE] and fields["paired"] is False


def test_budget_prints_the_split_of_kpass_plan_split(capsys):
    R = np.array(tau_bench_outcomes())
    split = kpass.plan(kpass.pass_at_k, R, 4).split(3000, cost_question=5.0)
    code, out, err = run(capsys, SAMPLE, "--k", 4, "--budget", 3000, "--cost-question", 5)
    assert code == 0, err
    assert out.splitlines()[0] == (
        f"Best split of a budget of 3,000: {split.questions:,} questions x {split.samples} "
        f"samples (cost {split.spent:,g}); SE of the Pass@4 value {split.se:.4f}")
    code, out, _ = run(capsys, SAMPLE, "--k", 4, "--budget", 3000, "--cost-question", 5,
                       "--format", "json")
    fields = json.loads(out)
    assert (fields["questions"], fields["samples"], fields["se"]) == (
        split.questions, split.samples, split.se)
    assert fields["cost_question"] == 5.0 and fields["cost_sample"] == 1.0


def test_two_pilots_are_paired(tmp_path, capsys):
    rng = np.random.default_rng(3)
    rates = rng.beta(2, 2, 60)
    paths = []
    for name, shift in (("a", 0.0), ("b", 0.1)):
        rows = rng.random((60, 4)) < np.clip(rates + shift, 0, 1)[:, None]
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"outcomes": [int(x) for x in row]}) + "\n"
                                for row in rows))
        paths.append(path)
    code, out, _ = run(capsys, *paths, "--difference", 0.05, "--format", "json")
    fields = json.loads(out)
    R = [[json.loads(line)["outcomes"] for line in p.read_text().splitlines()] for p in paths]
    expected = kpass.plan(kpass.pass_at_k, R[0], 1, R_b=R[1]).questions_for(0.05)
    assert code == 0 and fields["paired"] is True and fields["questions"] == expected


@pytest.mark.parametrize("args, needle, status", [
    (["--baseline", 1.5, "--difference", 0.1, "--samples", 4], "--baseline", 2),
    (["--baseline", 0.6, "--difference", 0.1], "--samples", 2),
    (["--difference", 0.1, "--samples", 4], "--baseline", 2),
    (["--baseline", 0.6, "--samples", 4], "one of --difference", 2),
    (["--baseline", 0.6, "--samples", 4, "--difference", 0.1, "--questions", 9],
     "one of --difference", 2),
    (["--baseline", 0.6, "--samples", 4, "--difference", 0.5], "baseline + difference", 2),
    (["--baseline", 0.6, "--samples", 4, "--difference", 0.1, "--correlation", 2],
     "--correlation", 2),
    (["--baseline", 0.6, "--samples", 4, "--difference", 0.1, "--power", 1], "--power", 2),
    (["--baseline", 0.6, "--samples", 2, "--difference", 0.1, "--k", 4], "--samples", 2),
    (["--baseline", 0.6, "--samples", 4, "--difference", 0.1, "--metric", "avg@n"],
     "--metric", 2),
    (["--baseline", 0.6, "--samples", 4, "--difference", 0.1, "--metric", "bogus"],
     "bogus", 2),
    (["--baseline", 0.6, "--samples", 4, "--difference", "nan"], "--difference", 2),
    (["--baseline", 0.6, "--samples", 4, "--questions", 1], "--questions", 2),
    ([SAMPLE, "--baseline", 0.6, "--difference", 0.1], "--baseline", 2),
    ([SAMPLE, "--difference", 0.1, "--confidence", 1.5], "--confidence", 2),
    ([SAMPLE, SAMPLE, SAMPLE, "--difference", 0.1], "at most two", 2),
    (["--baseline", 0.6, "--samples", 4, "--budget", 100], "leave --samples out", 2),
    (["--budget", 100], "needs --baseline", 2),
    (["--baseline", 0.3, "--half-width", 0.02], "needs --samples", 2),
    (["--baseline", 0.3, "--samples", 4, "--half-width", 0], "--half-width", 2),
    (["--baseline", 0.3, "--samples", 4, "--half-width", 0.05, "--correlation", 0.5],
     "--correlation", 2),
    (["--baseline", 0.3, "--budget", 100, "--spread", 20], "--spread", 2),
    (["--baseline", 1.2, "--budget", 100], "--baseline", 2),
    (["--baseline", 0.3, "--samples", 4, "--half-width", 0.05, "--budget", 100],
     "--budget and --half-width", 2),
    ([SAMPLE, "--half-width", 1.5], "--half-width", 2),
    ([SAMPLE, "--budget", 100, "--difference", 0.1], "--difference and --budget", 2),
    ([SAMPLE, "--difference", 0.1, "--cost-question", 3], "give --budget too", 2),
    ([SAMPLE, "--budget", 100, "--samples", 4], "--samples", 2),
    ([SAMPLE, "--budget", 7, "--k", 4], "--budget", 2),
    ([SAMPLE, "--budget", 100, "--cost-sample", 0], "--cost-sample", 2),
    (["missing.jsonl", "--difference", 0.1], "missing.jsonl", 1),
])
def test_bad_input_is_one_line(capsys, args, needle, status):
    code, out, err = run(capsys, *args)
    assert code == status and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err
    assert "Traceback" not in err


# ----------------------------------------------------------------------------- no pilot, one model


def test_half_width_without_a_pilot_is_plan_assume(capsys):
    """The questions printed give a t interval of at most +-0.02 at the assumed sd, one fewer
    does not (scipy's t quantile), and the cautious count is that of sd^2 = 0.3 x 0.7."""
    code, out, err = run(capsys, "--baseline", 0.3, "--metric", "pass@k", "--k", 4,
                         "--samples", 8, "--half-width", 0.02)
    assert code == 0, err
    first, second = out.splitlines()
    plan = kpass.Plan.assume(kpass.pass_at_k, 4, baseline=0.3, samples=8)
    sd = math.sqrt(plan.between + plan.within)
    m = int(first.split()[2].replace(",", ""))
    assert sps.t.ppf(0.975, m - 1) * sd / math.sqrt(m) <= 0.02
    assert sps.t.ppf(0.975, m - 2) * sd / math.sqrt(m - 1) > 0.02
    assert first == f"Questions needed: {m:,} (Pass@4 value -/+ 0.02, 95% interval; SE " \
                    f"{sd / math.sqrt(m):.4f})"
    worst = int(second.rsplit("at most ", 1)[1].split()[0].replace(",", ""))
    assert sps.t.ppf(0.975, worst - 1) * math.sqrt(0.21 / worst) <= 0.02
    assert sps.t.ppf(0.975, worst - 2) * math.sqrt(0.21 / (worst - 1)) > 0.02
    assert second.startswith("Assumed: Pass@4 0.300, 8 samples per question, spread 2 ")


def test_budget_without_a_pilot_is_plan_assume_split(capsys):
    plan = kpass.Plan.assume(kpass.pass_hat_k, 4, baseline=0.3, spread=1.5)
    split = plan.split(5000, cost_question=8.0)
    code, out, err = run(capsys, "--baseline", 0.3, "--metric", "pass^k", "--k", 4,
                         "--spread", 1.5, "--budget", 5000, "--cost-question", 8)
    assert code == 0, err
    first, second = out.splitlines()
    assert first == (f"Best split of a budget of 5,000: {split.questions:,} questions x "
                     f"{split.samples} samples (cost {split.spent:,g}); SE of the Pass^4 value "
                     f"{split.se:.4f}")
    assert second.endswith(f"SE at most {math.sqrt(0.21 / split.questions):.4f}")
    code, out, _ = run(capsys, "--baseline", 0.3, "--metric", "pass^k", "--k", 4, "--spread",
                       1.5, "--budget", 5000, "--cost-question", 8, "--format", "json")
    fields = json.loads(out)
    assert (fields["questions"], fields["samples"], fields["se"]) == (
        split.questions, split.samples, split.se)
    assert (fields["pilot"], fields["distribution"], fields["spread"]) == (
        None, "logit-normal", 1.5)


def test_half_width_with_a_pilot(capsys):
    R = np.array(tau_bench_outcomes())
    plan = kpass.plan(kpass.pass_at_k, R, 4)
    code, out, err = run(capsys, SAMPLE, "--k", 4, "--half-width", 0.05, "--format", "json")
    assert code == 0, err
    fields = json.loads(out)
    assert fields["questions"] == plan.questions_for_half_width(0.05)
    assert fields["se"] == pytest.approx(plan.se(fields["questions"]), rel=1e-12)
