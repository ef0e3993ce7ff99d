"""Inspect AI logs read by kpass: logs written by inspect_ai itself, offline.

Every log here is made by ``inspect_ai.eval`` with its built-in ``mockllm`` model and a
callable ``custom_outputs`` whose answers follow a plan fixed in this file; each
ModelOutput carries a ``usage``, so mockllm never counts tokens with tiktoken (which would
download an encoding). The expected counts come from the plan, never from kpass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from fractions import Fraction
from math import comb

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import Score, Target, accuracy, includes, match, mean, scorer  # noqa: E402
from inspect_ai.solver import Generate, TaskState, generate, solver  # noqa: E402

import kpass  # noqa: E402
from kpass.io.errors import ReportError
from kpass.io.harness.inspect_files import expand_inspect_logs  # noqa: E402
from kpass.io.harness.inspect_log import inspect_labels, load_inspect  # noqa: E402
from kpass.report.cli import main  # noqa: E402

EPOCHS = 4
# Per question, the outcome of each epoch (1: the model answers "4", the target).
PLAN_A = {"q0": [1, 1, 1, 1], "q1": [0, 0, 0, 0], "q2": [1, 0, 1, 0], 7: [1, 1, 0, 0],
          "q4": [0, 0, 0, 1], "q5": [1, 1, 1, 0]}
PLAN_B = {"q0": [1, 0, 0, 0], "q1": [0, 0, 1, 0], "q2": [1, 1, 1, 1], 7: [0, 0, 0, 0],
          "q4": [1, 1, 0, 1], "q5": [0, 0, 0, 0]}
# Raw score values, as a custom scorer returns them (Inspect's C/I/P/N constants, words,
# numbers); with value_to_float: C -> 1, I -> 0, P -> 0.5, N -> 0, yes -> 1, 0.7 -> 0.7.
VALUES = {"v0": ["C", "I", "P", "N"], "v1": ["yes", "no", "C", "C"], "v2": [0.7, 0.2, "1", "0"]}
FLOATS = {"v0": [1, 0, 0.5, 0], "v1": [1, 0, 1, 1], "v2": [0.7, 0.2, 1, 0]}


class _Mock:
    """custom_outputs: the i-th call for a prompt answers the i-th entry of its plan."""

    def __init__(self, plans: dict[str, list]) -> None:
        self.plans = plans
        self.calls: dict[str, int] = defaultdict(int)

    def __call__(self, input, tools, tool_choice, config):  # noqa: A002 - mockllm's names
        prompt = input[-1].text
        answers = self.plans[prompt]
        answer = answers[self.calls[prompt] % len(answers)]
        self.calls[prompt] += 1
        if isinstance(answer, int) and not isinstance(answer, bool) and answer in (0, 1):
            answer = "4" if answer else "5"
        out = ModelOutput.from_content(model="mockllm/model", content=str(answer))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out


@scorer(metrics=[accuracy()])
def raw_value():
    """The model's text is the score value (a number when it reads as one)."""

    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion
        try:
            value: object = float(text)
        except ValueError:
            value = text
        return Score(value=value)  # type: ignore[arg-type]

    return score


@scorer(metrics={"a": [mean()], "b": [mean()]})
def two_keys():
    """A dict-valued score: key ``a`` is the outcome, ``b`` its opposite."""

    async def score(state: TaskState, target: Target) -> Score:
        right = state.output.completion == "4"
        return Score(value={"a": int(right), "b": int(not right)})

    return score


@solver
def fail_first_epoch(sample_id: str):
    """Raise in epoch 1 of ``sample_id`` (an errored sample); generate otherwise."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.sample_id == sample_id and state.epoch == 1:
            raise RuntimeError("tool crashed")
        return await generate(state)

    return solve


def _samples(plan: dict, tag: str, order=None) -> tuple[list[Sample], dict[str, list]]:
    ids = list(plan) if order is None else order
    samples = [Sample(id=i, input=f"{tag} {i}: 2+2?", target="4") for i in ids]
    return samples, {f"{tag} {i}: 2+2?": plan[i] for i in ids}


def _run(tasks, plans, model, log_dir, log_format="eval"):
    mock = _Mock(plans)
    logs = inspect_eval(tasks, model=get_model(model, custom_outputs=mock), log_dir=str(log_dir),
                        log_format=log_format, display="none", max_tasks=4)
    return [log.location for log in logs], logs


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """The logs, written once by inspect_ai: name -> path."""
    root = tmp_path_factory.mktemp("inspect")
    a_samples, a_plans = _samples(PLAN_A, "plan")
    v_samples, v_plans = _samples(VALUES, "values")
    d_samples, d_plans = _samples(PLAN_A, "dict")
    t_samples, t_plans = _samples(PLAN_A, "two")
    e_samples, e_plans = _samples(PLAN_A, "err")
    tasks = [Task(name="plan", dataset=a_samples, solver=generate(), scorer=match(),
                  epochs=EPOCHS),
             Task(name="values", dataset=v_samples, solver=generate(), scorer=raw_value(),
                  epochs=EPOCHS),
             Task(name="dict", dataset=d_samples, solver=generate(), scorer=two_keys(),
                  epochs=EPOCHS),
             Task(name="two", dataset=t_samples, solver=generate(),
                  scorer=[match(), includes()], epochs=EPOCHS),
             Task(name="err", dataset=e_samples, solver=fail_first_epoch("q1"),
                  scorer=match(), epochs=EPOCHS, fail_on_error=False)]
    paths, results = _run(tasks, {**a_plans, **v_plans, **d_plans, **t_plans, **e_plans},
                          "mockllm/model-a", root / "a")
    for log in results:
        assert log.status == "success", log.error
    found = dict(zip(["plan", "values", "dict", "two", "err"], paths, strict=True))
    # model B: the same questions in another order (compare matches them by id)
    b_samples, b_plans = _samples(PLAN_B, "plan", order=["q5", 7, "q0", "q4", "q2", "q1"])
    (found["plan_b"],), _ = _run([Task(name="plan", dataset=b_samples, solver=generate(),
                                       scorer=match(), epochs=EPOCHS)],
                                 b_plans, "mockllm/model-b", root / "b")
    (found["plan_json"],), _ = _run([Task(name="plan", dataset=a_samples, solver=generate(),
                                          scorer=match(), epochs=EPOCHS)],
                                    a_plans, "mockllm/model-a", root / "json", "json")
    (found["failed"],), (failed,) = _run([Task(name="failed", dataset=e_samples,
                                               solver=fail_first_epoch("q1"), scorer=match(),
                                               epochs=EPOCHS)],
                                         e_plans, "mockllm/model-a", root / "failed")
    assert failed.status == "error"
    return found


def _want(plan: dict) -> dict:
    return {i: (len(v), sum(v)) for i, v in plan.items()}


def _got(counts) -> dict:
    return {i: (int(n), int(c)) for i, n, c in zip(counts.ids, counts.n_samples,
                                                    counts.n_correct, strict=True)}


def _pass_at(plan: dict, k: int) -> Fraction:
    """Mean over questions of 1 - C(n-c, k)/C(n, k), exactly (Chen et al. 2021)."""
    values = [1 - Fraction(comb(len(v) - sum(v), k), comb(len(v), k)) for v in plan.values()]
    return sum(values, Fraction(0)) / len(values)


@pytest.mark.parametrize("name", ["plan", "plan_json"])
def test_counts_are_the_planned_outcomes(logs, name):
    counts = kpass.read_inspect(logs[name])
    assert _got(counts) == _want(PLAN_A)
    assert set(counts.ids) == set(PLAN_A)  # sample ids as Inspect keeps them (7 stays an int)


def test_cli_report_reads_eval_log_with_model_label(logs, capsys):
    assert main(["report", logs["plan"], "--k", "1,2", "--metrics", "pass",
                 "--format", "json"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out)
    numbers = _numbers(report)
    for k in (1, 2):
        assert any(abs(x - float(_pass_at(PLAN_A, k))) < 1e-12 for x in numbers)
    assert "mockllm/model-a" in out


def test_leaderboard_of_logs_is_a_leaderboard_of_models(logs, capsys):
    folder = str(logs["plan"]).rsplit("/", 1)[0]
    # the folder holds five logs of model-a (different tasks): give two logs of two models
    assert main(["leaderboard", logs["plan"], logs["plan_b"], "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert "mockllm/model-a" in out and "mockllm/model-b" in out
    assert inspect_labels([logs["plan"], logs["plan_b"]]) == ["mockllm/model-a",
                                                               "mockllm/model-b"]
    # same model, different tasks: "model (task)"
    assert inspect_labels([logs["plan"], logs["values"]]) == ["mockllm/model-a (plan)",
                                                               "mockllm/model-a (values)"]
    assert len(expand_inspect_logs([folder])) == 5  # a folder of logs: one input per log


def test_compare_matches_questions_by_sample_id(logs, capsys):
    assert main(["compare", logs["plan"], logs["plan_b"], "--k", "1", "--metrics", "pass",
                 "--format", "json"]) == 0
    out = capsys.readouterr().out
    a = {i: Fraction(sum(v), len(v)) for i, v in PLAN_A.items()}
    b = {i: Fraction(sum(v), len(v)) for i, v in PLAN_B.items()}
    diff = float(sum(a[i] - b[i] for i in a) / len(a))
    assert any(abs(x - diff) < 1e-12 for x in _numbers(json.loads(out)))


def test_partial_and_numeric_scores_are_soft_scores(logs, capsys):
    with pytest.raises(ReportError, match=r"sample 'v[02]' epoch \d.*--threshold"):
        load_inspect(logs["values"])
    loaded = load_inspect(logs["values"], threshold=0.5)
    want = {i: (len(v), sum(x > 0.5 for x in v)) for i, v in FLOATS.items()}
    assert _got(loaded.counts) == want
    soft = sum(Fraction(sum(map(Fraction, map(str, v))), len(v)) for v in FLOATS.values()) / 3
    assert loaded.soft is not None and abs(loaded.soft.mean - float(soft)) < 1e-12
    assert main(["report", logs["values"], "--threshold", "0.5", "--k", "1"]) == 0
    assert "accuracy" in capsys.readouterr().out


def test_scorer_choice(logs):
    with pytest.raises(ReportError, match=r"2 scorers \(`match`, `includes`\).*--column"):
        load_inspect(logs["two"])
    assert _got(load_inspect(logs["two"], column="includes").counts) == _want(PLAN_A)
    with pytest.raises(ReportError, match=r"no scorer `nope`.*`match`, `includes`"):
        load_inspect(logs["two"], column="nope")
    with pytest.raises(ReportError, match=r"a dict.*`two_keys.a`, `two_keys.b`"):
        load_inspect(logs["dict"])
    assert _got(load_inspect(logs["dict"], column="two_keys.a").counts) == _want(PLAN_A)
    flipped = {i: [1 - x for x in v] for i, v in PLAN_A.items()}
    assert _got(load_inspect(logs["dict"], column="two_keys.b").counts) == _want(flipped)


def test_errored_samples_are_missing_outcomes(logs, capsys):
    loaded = load_inspect(logs["err"])
    want = _want(PLAN_A)
    # q1 errored in epoch 1: its other three epochs remain (the plan's q1 is all wrong)
    want["q1"] = (EPOCHS - 1, 0)
    assert _got(loaded.counts) == want
    assert [where for where, _ in loaded.bad_rows] == ["sample 'q1' epoch 1"]
    assert "tool crashed" in loaded.bad_rows[0][1]
    # k = 4 > 3 samples of q1: the --short policy decides; skip leaves q1 out of Pass@4
    assert main(["report", logs["err"], "--k", "4", "--short", "skip"]) == 0
    captured = capsys.readouterr()
    assert "sample 'q1' epoch 1: the sample errored" in captured.err
    assert main(["report", logs["err"], "--k", "4"]) == 1


def test_log_that_did_not_succeed_is_refused_naming_its_status(logs, capsys):
    with pytest.raises(ReportError, match=r"status is 'error'.*tool crashed"):
        load_inspect(logs["failed"])
    assert main(["report", logs["failed"]]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "status is 'error'" in err[0]


def test_without_the_extra_one_line_names_it(logs, monkeypatch, capsys):
    for name in [m for m in sys.modules if m == "inspect_ai" or m.startswith("inspect_ai.")]:
        monkeypatch.setitem(sys.modules, name, None)
    assert main(["report", logs["plan"]]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"kpass report: error: {logs['plan']}: reading Inspect AI logs needs "
                   "inspect-ai: pip install 'kpass[inspect]'"]
    with pytest.raises(ImportError, match=r"pip install 'kpass\[inspect\]'"):
        kpass.read_inspect(logs["plan"])


def test_import_kpass_does_not_import_inspect_ai():
    code = ("import sys, kpass, kpass.io.harness.load, kpass.report.cli; "
            "print('inspect_ai' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


def test_plain_json_is_not_an_inspect_log(tmp_path):
    from kpass.io.harness.inspect_files import is_inspect_log

    plain = tmp_path / "runs.json"
    plain.write_text('{"outcomes": [[1, 0], [1, 1]]}')
    assert not is_inspect_log(plain)
    assert kpass.pass_at_k([[1, 0], [1, 1]], 1) == pytest.approx(0.75)
    assert main(["report", str(plain), "--k", "1"]) == 0


def _numbers(node) -> list[float]:
    """Every number in a JSON report, to look a value up wherever the layout puts it."""
    if isinstance(node, dict):
        return [x for value in node.values() for x in _numbers(value)]
    if isinstance(node, list):
        return [x for value in node for x in _numbers(value)]
    return [node] if isinstance(node, (int, float)) and not isinstance(node, bool) else []


def test_space_upload_reads_inspect_logs(logs, space_app):
    read_upload = space_app.space_input.read_upload

    for name in ("plan", "plan_json"):
        questions = read_upload(logs[name], ["predictions"], "binary")
        got = {q.qid: (len(q.values), sum(q.values)) for q in questions}
        assert got == _want(PLAN_A)
        values = [q.values for q in questions]
        assert kpass.pass_at_k(values, 2) == pytest.approx(float(_pass_at(PLAN_A, 2)), abs=1e-12)
    with pytest.raises(ValueError, match="scored outcomes, not answers"):
        read_upload(logs["plan"], ["predictions", "references"], "answers")
    with pytest.raises(ValueError, match="status is 'error'"):
        read_upload(logs["failed"], ["predictions"], "binary")
