"""``kpass next --budget N --cost-question C``: one line on stderr per metric saying whether
the budget buys a smaller SE as new questions or as the allocated samples, and by how much.

The line's numbers are recomputed here from their definitions: the new-questions SE by a
brute-force search over samples per new question (Pass@1: within(n) = within(1) / n), the
more-samples SE from the written split and the posterior-expected within variance.
"""

from __future__ import annotations

import csv
import io
import math
import re

import numpy as np
import pytest

import kpass
from kpass.data import sample_path, tau_bench_outcomes
from kpass.report.cli import main
from kpass.stats.allocation import expected_within_variance

SAMPLE = str(sample_path())


def run(capsys, *args):
    code = main(["next", SAMPLE, "--id", "task_id", *[str(a) for a in args]])
    out, err = capsys.readouterr()
    return code, out, err


def _line(err):
    lines = [line for line in err.splitlines() if "SE" in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("budget, cost_question", [(200, 0.0), (200, 10.0), (600, 30.0)])
def test_the_line_says_which_choice_gives_the_smaller_se(capsys, budget, cost_question):
    code, out, err = run(capsys, "--budget", budget, "--k", 1, "--metrics", "pass@k",
                         "--cost-question", cost_question)
    assert code == 0, err
    line = _line(err)
    R = np.array(tau_bench_outcomes())
    plan = kpass.plan(kpass.pass_at_k, R, 1)
    a, b = plan.populations[0]
    # new questions: every n' by hand
    w1, m = plan.within_at(1), 50
    now = plan.between + plan.within
    best = (now / m, 0, 0)
    for n in range(1, budget + 1):
        added = math.floor(budget / (cost_question + n) + 1e-9)
        if added < 1:
            break
        variance = (m * now + added * (plan.between + w1 / n)) / (m + added) ** 2
        if variance < best[0] * (1 - 1e-12):
            best = (variance, added, n)
    se_new = math.sqrt(best[0])
    # more samples: the split written on stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    split = np.array([int(r["extra_samples"]) for r in rows])
    assert split.sum() == budget
    se_more = math.sqrt(plan.between / m + expected_within_variance(
        kpass.pass_at_k, R, 1, split, prior=(a, b)))
    found = re.match(r"kpass next: pass@k: ([\d,]+) new questions x (\d+) samples: SE "
                     r"([\d.]+); ([\d,]+) more samples on these 50: SE ([\d.]+); (new "
                     r"questions|more samples) give a (\d+)% smaller SE than", line)
    assert found, line
    assert (int(found[1].replace(",", "")), int(found[2])) == best[1:]
    assert float(found[3]) == pytest.approx(se_new, abs=5e-5)
    assert float(found[5]) == pytest.approx(se_more, abs=5e-5)
    winner = "new questions" if se_new < se_more else "more samples"
    assert found[6] == winner
    assert int(found[7]) == round(100 * (1 - min(se_new, se_more) / max(se_new, se_more)))


def test_dear_questions_make_more_samples_win_and_cheap_ones_new_questions(capsys):
    """Pass^4 on tau-bench: at cost 0 new questions win; at 20 samples a question, more
    samples do (the within-question part of Pass^4 is large)."""
    _, _, err = run(capsys, "--budget", 400, "--k", 4, "--metrics", "pass^k",
                    "--cost-question", 0)
    assert "new questions give" in _line(err)
    _, _, err = run(capsys, "--budget", 400, "--k", 4, "--metrics", "pass^k",
                    "--cost-question", 20)
    assert "more samples give" in _line(err)


def test_a_budget_too_small_for_a_question_says_so(capsys):
    code, _, err = run(capsys, "--budget", 5, "--k", 4, "--cost-question", 20)
    assert code == 0 and "buys no new question" in _line(err)


def test_cost_sample_makes_the_budget_money(capsys):
    code, out, err = run(capsys, "--budget", 300, "--k", 4, "--cost-sample", 3)
    assert code == 0, err
    assert sum(int(r["extra_samples"]) for r in csv.DictReader(io.StringIO(out))) == 100
    assert "100 more samples on these 50" in _line(err)


def test_without_costs_stderr_stays_quiet(capsys):
    code, _, err = run(capsys, "--budget", 50, "--k", 4)
    assert code == 0 and err == ""


@pytest.mark.parametrize("args, needle", [(["--cost-question", -1], "--cost-question"),
                                          (["--cost-sample", "nan"], "--cost-sample"),
                                          (["--cost-sample", 0], "--cost-sample")])
def test_bad_costs_are_one_line(capsys, args, needle):
    code, out, err = run(capsys, "--budget", 50, "--k", 4, *args)
    assert code != 0 and out == "" and needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.filterwarnings("ignore:prior=:UserWarning")  # the all-0 run's degenerate fit
def test_a_run_it_cannot_plan_from_says_why_in_one_line(tmp_path, capsys):
    short = tmp_path / "short.jsonl"
    short.write_text('{"outcomes": [1, 0]}\n{"outcomes": [1, 0, 1, 1]}\n'
                     '{"outcomes": [0, 0, 0, 1]}\n')
    code = main(["next", str(short), "--budget", "20", "--k", "4", "--cost-question", "2"])
    _, err = capsys.readouterr()
    assert code == 0 and "cannot say until every question has k=4 samples (1 not yet" in err
    zero = tmp_path / "zero.jsonl"
    zero.write_text('{"outcomes": [0, 0, 0, 0]}\n' * 3)
    code = main(["next", str(zero), "--budget", "20", "--k", "1", "--cost-question", "2"])
    _, err = capsys.readouterr()
    assert code == 0 and "cannot say (every outcome so far is 0" in err
