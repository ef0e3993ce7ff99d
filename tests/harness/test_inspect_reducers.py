"""kpass.inspect inside a real Inspect run: epoch reducers and the interval metric.

``inspect_ai.eval`` runs a task offline with the built-in ``mockllm`` model, whose answers
follow a fixed per-question plan of 8 epochs (each ModelOutput carries a ``usage``, so no
tokenizer is downloaded). The log's reduced values are checked against exact Fraction
formulas over the planned outcomes and against Inspect's own ``pass_at`` reducer; the
interval against the textbook mean, sample SD / sqrt(M) and Student's t from scipy.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from math import ceil, comb

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Epochs, Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import match, stderr  # noqa: E402
from inspect_ai.scorer import pass_at as inspect_pass_at  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402
from scipy import stats  # noqa: E402

import kpass  # noqa: E402
import kpass.inspect  # noqa: E402

EPOCHS = 8
PLAN = {"a": [1, 1, 1, 1, 1, 1, 1, 1], "b": [0, 0, 0, 0, 0, 0, 0, 0],
        "c": [1, 0, 1, 0, 1, 0, 1, 0], "d": [1, 0, 0, 0, 0, 0, 0, 0],
        "e": [1, 1, 1, 1, 1, 1, 1, 0], "f": [0, 0, 1, 1, 0, 0, 0, 1],
        "g": [1, 1, 0, 1, 1, 0, 1, 1], "h": [0, 0, 0, 0, 0, 1, 1, 0]}


def _mock():
    calls: dict[str, int] = defaultdict(int)

    def outputs(input, tools, tool_choice, config):  # noqa: A002 - mockllm's names
        prompt = input[-1].text
        qid = prompt.split()[1].rstrip(":")
        answer = "4" if PLAN[qid][calls[prompt] % EPOCHS] else "5"
        calls[prompt] += 1
        out = ModelOutput.from_content(model="mockllm/model", content=answer)
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return outputs


def _evaluate(epochs, log_dir, metrics=None):
    dataset = [Sample(id=q, input=f"question {q}: 2+2?", target="4") for q in PLAN]
    task = Task(dataset=dataset, solver=generate(), scorer=match(), epochs=epochs,
                metrics=metrics)
    (log,) = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=_mock()),
                          display="none", log_dir=str(log_dir))
    assert log.status == "success", log.error
    return log


def _exact_pass_at(v, k):
    n, c = len(v), sum(v)
    return 1 - Fraction(comb(n - c, k), comb(n, k))


def _exact_pass_hat(v, k):
    n, c = len(v), sum(v)
    return Fraction(comb(c, k), comb(n, k))


def _exact_g_pass(v, k, tau):
    n, c = len(v), sum(v)
    return sum((Fraction(comb(c, j) * comb(n - c, k - j), comb(n, k))
                for j in range(ceil(tau * k), k + 1)), Fraction(0))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    reducers = [kpass.inspect.pass_at(4), kpass.inspect.pass_hat(2),
                kpass.inspect.g_pass_at(4, 0.5), kpass.inspect.g_pass_at(4, 1.0),
                inspect_pass_at(4)]
    folder = tmp_path_factory.mktemp("reduced")
    log = _evaluate(Epochs(EPOCHS, reducers), folder / "logs",
                    metrics=[kpass.inspect.interval(), stderr()])
    path = folder / "run.eval"
    from inspect_ai.log import write_eval_log

    write_eval_log(log, str(path))
    return log, path


def _reduced(log, name):
    (reduction,) = [r for r in log.reductions if r.reducer == name]
    return {s.sample_id: s.value for s in reduction.samples}


@pytest.mark.parametrize("name, exact", [
    ("kpass_pass_at_4", lambda v: _exact_pass_at(v, 4)),
    ("kpass_pass_hat_2", lambda v: _exact_pass_hat(v, 2)),
    ("kpass_g_pass_at_tau0.5_4", lambda v: _exact_g_pass(v, 4, 0.5)),
    ("kpass_g_pass_at_tau1.0_4", lambda v: _exact_g_pass(v, 4, 1.0)),  # its own name
])
def test_reduced_values_are_the_exact_per_question_estimators(run, name, exact):
    log, _ = run
    values = _reduced(log, name)
    assert set(values) == set(PLAN)
    for qid, outcomes in PLAN.items():
        assert values[qid] == pytest.approx(float(exact(outcomes)), abs=1e-12), qid


def test_pass_at_agrees_with_inspects_own_reducer(run):
    log, _ = run
    ours, theirs = _reduced(log, "kpass_pass_at_4"), _reduced(log, "pass_at_4")
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_interval_metric_is_the_interval_over_questions(run):
    log, _ = run
    (score,) = [s for s in log.results.scores if s.reducer == "kpass_pass_at_4"]
    got = {name: metric.value for name, metric in score.metrics.items()}
    values = [float(_exact_pass_at(v, 4)) for v in PLAN.values()]
    m = len(values)
    mean = math.fsum(values) / m
    se = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (m - 1) / m)
    q = stats.t.ppf(0.975, m - 1)
    assert got["estimate"] == pytest.approx(mean, abs=1e-12)
    assert got["se"] == pytest.approx(se, abs=1e-12)
    # kpass report's interval over questions (pinned against scipy in test_intervals.py):
    # the textbook t interval wherever it stays inside [0, 1]
    from kpass.stats.intervals import interval

    ends = interval(mean, se, m - 1, m)
    assert (got["lo"], got["hi"]) == pytest.approx((ends.lo, ends.hi), abs=1e-12)
    if ends.method == "t":
        assert got["lo"] == pytest.approx(mean - q * se, abs=1e-9)
        assert got["hi"] == pytest.approx(mean + q * se, abs=1e-9)
    assert got["questions"] == m
    # the same numbers as kpass on the counts the log holds (read back by kpass.read_inspect)
    counts = kpass.read_inspect(run[1])
    assert kpass.pass_at_k(counts, 4) == pytest.approx(mean, abs=1e-12)


def test_interval_for_pass_hat_and_g_pass(run):
    log, _ = run
    for name, exact in (("kpass_pass_hat_2", lambda v: _exact_pass_hat(v, 2)),
                        ("kpass_g_pass_at_tau0.5_4", lambda v: _exact_g_pass(v, 4, 0.5))):
        (score,) = [s for s in log.results.scores if s.reducer == name]
        mean = float(sum((exact(v) for v in PLAN.values()), Fraction(0)) / len(PLAN))
        assert score.metrics["estimate"].value == pytest.approx(mean, abs=1e-12)


def test_too_few_epochs_give_inspects_unscored_value():
    reducer = kpass.inspect.pass_at(4)
    from inspect_ai.scorer import Score

    reduced = reducer([Score(value="C"), Score(value="I")])
    assert math.isnan(reduced.value)
    assert reduced.metadata["kpass"] == {"metric": "pass_at_k", "k": 4, "tau": None,
                                         "n": 2, "c": 1}


@pytest.mark.parametrize("make, message", [
    (lambda: kpass.inspect.pass_at(0), "positive integer"),
    (lambda: kpass.inspect.pass_hat(2.5), "positive integer"),
    (lambda: kpass.inspect.g_pass_at(4, 1.5), r"tau must be in \(0, 1\]"),
    (lambda: kpass.inspect.interval(confidence=95), r"level in \(0, 1\)"),
])
def test_bad_arguments_are_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_interval_over_inspects_own_reducer_values(run):
    """Inspect's pass_at values (no kpass counts): the same estimate and se over questions."""
    log, _ = run
    scores = {s.reducer: s.metrics for s in log.results.scores}
    ours, theirs = scores["kpass_pass_at_4"], scores["pass_at_4"]
    for name in ("estimate", "se", "lo", "hi", "questions"):
        assert theirs[name].value == pytest.approx(ours[name].value, abs=1e-12), name


def test_se_is_inspects_stderr_of_the_reduced_values(run):
    """docs/how-to/harnesses.md: kpass's se over questions is what Inspect's stderr() prints."""
    log, _ = run
    for score in log.results.scores:
        assert score.metrics["se"].value == pytest.approx(score.metrics["stderr"].value,
                                                          abs=1e-12), score.reducer
