"""Inspect AI logs as they are on disk (issue 38, items 2, 3, 4, 6 and 8).

The logs under ``tests/fixtures/inspect/`` were written by Inspect itself (its README gives
the commands): the folder ``inspect eval-set`` writes, a log where every sample errored, a
``.json`` log. The odd score values of item 4 come from a log made here by ``inspect_ai.eval``
with the ``mockllm`` model. Expected counts come from the fixtures' plan, never from kpass.
"""

from __future__ import annotations

import json
import shutil
import warnings
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage  # noqa: E402
from inspect_ai.scorer import Score, Target, accuracy, scorer  # noqa: E402
from inspect_ai.solver import Generate, TaskState, solver  # noqa: E402

import kpass  # noqa: E402
from kpass.io.errors import ReportError  # noqa: E402
from kpass.io.harness.inspect_files import check_members, expand_inspect_logs, is_inspect_log  # noqa: E402
from kpass.io.harness.inspect_log import load_inspect  # noqa: E402
from kpass.report.cli import main  # noqa: E402

FIXTURES = Path(__file__).parents[1] / "fixtures" / "inspect"
EVAL_SET = FIXTURES / "eval-set"
BROKEN = next(FIXTURES.glob("*_kp-broken_*.eval"))
JSON_LOG = next(FIXTURES.glob("*_kp-plan_*.json"))
# kp_inspect.py.txt's plan: sample q (1..6) is correct in epoch e (1..4) iff (q + e) % 3
PLAN = {q: (4, sum(1 for e in range(1, 5) if (q + e) % 3)) for q in range(1, 7)}


def _got(counts) -> dict:
    return {i: (int(n), int(c)) for i, n, c in zip(counts.ids, counts.n_samples,
                                                    counts.n_correct, strict=True)}


# ---- item 8: the folder inspect eval-set writes, all-errored logs, re-saved .json logs

def test_eval_set_folder_is_one_input_per_log():
    logs = expand_inspect_logs([str(EVAL_SET)])
    assert len(logs) == 2 and all(log.endswith(".eval") for log in logs)
    for log in logs:
        assert _got(kpass.read_inspect(log)) == PLAN


def test_report_and_leaderboard_read_the_eval_set_folder(capsys):
    assert main(["report", str(EVAL_SET), "--k", "1", "--metrics", "pass",
                 "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "mockllm/model-a" in out and "mockllm/model-b" in out
    assert main(["leaderboard", str(EVAL_SET), "--k", "1", "--metrics", "pass"]) == 0
    out = capsys.readouterr().out
    assert "mockllm/model-a" in out and "mockllm/model-b" in out


def test_leaderboard_reads_runs_in_sub_folders(tmp_path, capsys):
    logs = sorted(EVAL_SET.glob("*.eval"))
    for index, log in enumerate(logs):
        (tmp_path / "logs" / f"run{index}").mkdir(parents=True)
        shutil.copy(log, tmp_path / "logs" / f"run{index}" / log.name)
    assert main(["leaderboard", str(tmp_path / "logs"), "--k", "1", "--metrics", "pass"]) == 0
    out = capsys.readouterr().out
    assert "mockllm/model-a" in out and "mockllm/model-b" in out


def test_every_epoch_errored_says_so(capsys):
    with pytest.raises(ReportError, match=r"every epoch errored \(12 of 12; first: sample 1 "
                                          r"epoch 1: .*the tool crashed"):
        load_inspect(str(BROKEN))
    assert main(["report", str(BROKEN)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "every epoch errored" in err[0] and "scorers" not in err[0]


@pytest.mark.parametrize("resave", ["sorted", "bom", "both"])
def test_resaved_json_log_is_recognised_and_read(tmp_path, resave):
    data = json.loads(JSON_LOG.read_text())
    text = json.dumps(data, sort_keys=resave != "bom", indent=None if resave == "both" else 2)
    raw = text.encode()
    if resave != "sorted":
        raw = b"\xef\xbb\xbf" + (JSON_LOG.read_bytes() if resave == "bom" else raw)
    path = tmp_path / "log.json"
    path.write_bytes(raw)
    assert is_inspect_log(path)
    assert _got(kpass.read_inspect(path)) == PLAN
    assert main(["report", str(path), "--k", "1"]) == 0


def test_plain_json_with_a_status_key_is_not_a_log(tmp_path):
    path = tmp_path / "runs.json"
    path.write_text('{"status": "success", "outcomes": [[1, 0], [1, 1]]}')
    assert not is_inspect_log(path)
    assert not is_inspect_log(EVAL_SET / "logs.json")


# ---- item 6: an .eval whose member inflates beyond a limit

def _bomb(path: Path, declared: int) -> Path:
    """A small zip whose central directory declares one member of ``declared`` bytes."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", b"0" * 1000)
    raw = bytearray(path.read_bytes())
    central = raw.rindex(b"PK\x01\x02")
    raw[central + 24:central + 28] = declared.to_bytes(4, "little")  # uncompressed size
    path.write_bytes(bytes(raw))
    return path


def test_eval_member_over_the_limit_is_refused_before_inspect_reads_it(tmp_path, monkeypatch,
                                                                       capsys):
    bomb = _bomb(tmp_path / "bomb.eval", 4_000_000_000)
    assert zipfile.ZipFile(bomb).infolist()[0].file_size == 4_000_000_000
    with pytest.raises(ReportError, match=r"bomb\.eval: member 'header\.json' inflates to "
                                          r"4,000,000,000 bytes, over the limit of 1024 MB.*"
                                          r"KPASS_INSPECT_MAX_MB"):
        load_inspect(str(bomb))
    assert main(["report", str(bomb)]) == 1
    assert "KPASS_INSPECT_MAX_MB" in capsys.readouterr().err
    # the limit is raised from the environment; a bad value is named
    monkeypatch.setenv("KPASS_INSPECT_MAX_MB", "5000")
    check_members(str(bomb))
    monkeypatch.setenv("KPASS_INSPECT_MAX_MB", "lots")
    with pytest.raises(ReportError, match=r"KPASS_INSPECT_MAX_MB='lots' is not a positive"):
        check_members(str(bomb))
    # a real log is far under the default limit and a tiny one refuses it
    monkeypatch.delenv("KPASS_INSPECT_MAX_MB")
    log = next(EVAL_SET.glob("*.eval"))
    check_members(str(log))
    with pytest.raises(ReportError, match=r"over the limit of 0.001 MB"):
        check_members(str(log), 0.001)


# ---- item 2: errored epochs are never dropped silently

def _with_errors(tmp_path: Path) -> tuple[str, str]:
    """The eval-set's two logs, the first with two epochs turned into errors."""
    from inspect_ai.log import EvalError, read_eval_log, write_eval_log

    a, b = sorted(EVAL_SET.glob("*.eval"))
    log = read_eval_log(str(a))
    assert log.samples is not None
    for sample in log.samples[:2]:
        sample.error = EvalError(message="the tool crashed", traceback="",
                                 traceback_ansi="")
        sample.scores = None
    out = tmp_path / a.name
    write_eval_log(log, str(out))
    return str(out), str(b)


def test_compare_leaderboard_and_read_inspect_say_errored_epochs_were_left_out(tmp_path,
                                                                               capsys):
    a, b = _with_errors(tmp_path)
    for command in ("compare", "leaderboard"):
        assert main([command, a, b, "--k", "1", "--metrics", "pass"]) == 0
        err = [line for line in capsys.readouterr().err.splitlines() if "left out" in line]
        assert len(err) == 1, err
        assert err[0].startswith(f"kpass {command}: warning: {a}: 2 errored or unscored "
                                 "epochs left out")
        assert "the tool crashed" in err[0]
    with pytest.warns(UserWarning, match=r"2 errored or unscored epochs left out"):
        counts = kpass.read_inspect(a)
    assert int(counts.n_samples.sum()) == 22
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kpass.read_inspect(b)  # nothing left out: no warning


# ---- item 4: score values Inspect cannot read, and messages that quote the value

@scorer(metrics=[accuracy()])
def as_text():
    """The answer's text, unchanged, is the score value (a float where it says float:)."""

    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion
        value: object = float(text[6:]) if text.startswith("float:") else text
        return Score(value=value)  # type: ignore[arg-type]

    return score


@solver
def say(answers: dict):
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(model="mockllm/model",
                                                content=answers[state.sample_id])
        state.output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return state

    return solve


@pytest.fixture(scope="module")
def odd_logs(tmp_path_factory):
    root = tmp_path_factory.mktemp("odd")
    cases = {"space": " yes", "underscore": "1_0", "float": "float:1.0000000000000002"}
    out = {}
    for name, answer in cases.items():
        samples = [Sample(id="q1", input="x", target="x"), Sample(id="q2", input="y", target="x")]
        task = Task(name=name, dataset=samples, solver=say({"q1": "yes", "q2": answer}),
                    scorer=as_text(), epochs=1)
        (log,) = inspect_eval(task, model="mockllm/model", log_dir=str(root / name),
                              display="none")
        assert log.status == "success"
        out[name] = log.location
    return out


def test_value_inspect_cannot_read_is_an_error(odd_logs, capsys):
    with pytest.raises(ReportError, match=r"sample 'q2' epoch 1.*cannot read the `as_text` "
                                          r"score ' yes'"):
        load_inspect(odd_logs["space"])
    assert main(["report", odd_logs["space"]]) == 1
    assert "' yes'" in capsys.readouterr().err


def test_messages_quote_the_value_as_the_log_holds_it(odd_logs):
    with pytest.raises(ReportError, match=r"score '1_0' \(read as 10\.0\) is not binary"):
        load_inspect(odd_logs["underscore"])
    with pytest.raises(ReportError, match=r"score 1\.0000000000000002 is not binary"):
        load_inspect(odd_logs["float"])
    with pytest.raises(ReportError, match=r"soft score 1\.0000000000000002 is outside"):
        load_inspect(odd_logs["float"], threshold=0.5)
