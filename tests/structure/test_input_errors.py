"""One ``except kpass.InputError`` catches kpass's bad-input errors from every layer."""

import subprocess
import sys

import numpy as np
import pytest

import kpass
from kpass._core.counting.checks import ArgumentTypeError, InputError
from kpass.hf.keywords import check_options
from kpass.io.errors import ReportError
from kpass.io.formats.readers import load_counts

R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1], [0, 0, 1, 1, 1]])
R_B = np.array([[1, 1, 1, 0, 1], [1, 0, 0, 1, 1], [1, 0, 1, 1, 1]])


def test_the_base_class_is_exported_once_and_is_a_value_error():
    assert kpass.InputError is InputError and issubclass(InputError, ValueError)
    assert not issubclass(InputError, TypeError)  # only the wrong-type error is both
    for error in (ArgumentTypeError, ReportError):
        assert issubclass(error, InputError)
    assert issubclass(ArgumentTypeError, TypeError)


BAD = {
    # _core: counting and the moments
    "non-binary outcome": lambda: kpass.pass_at_k([[0, 2, 1]], 1),
    "k above n": lambda: kpass.pass_at_k(R, 9),
    "k not an int": lambda: kpass.pass_at_k(R, 1.5),
    "empty question": lambda: kpass.binary_counts([[]]),
    "confidence out of (0, 1)": lambda: kpass.pass_at_k_ci(R, 1, confidence=1.5),
    "unknown prior": lambda: kpass.pass_at_k_ci(R, 1, prior="flat"),
    "bad categorical reward": lambda: kpass.avg([[0, 1, 5]], [0.0, 1.0]),
    # families
    "vote references of the wrong length": lambda: kpass.vote_at_k_ci([["a"]], ["a", "b"], 1),
    "tailpass eta": lambda: kpass.tailpass(R, 2, eta=-1.0),
    # stats
    "compare: runs of different questions": lambda: kpass.compare(R, R_B[:2], kpass.pass_at_k, 1),
    "standard_error: bad confidence": lambda: kpass.standard_error(R, kpass.pass_at_k, 1,
                                                                   confidence=2.0),
    "leaderboard: one model": lambda: kpass.leaderboard({"a": R}, kpass.pass_at_k, 1),
    "confidence_sequence: bad confidence": lambda: kpass.confidence_sequence(
        kpass.pass_at_k, R, R_B, 1, confidence=0.0),
    # report (Python side of the CLI)
    "report_table: unknown metric": lambda: kpass.report_table(R, metrics=["nope@k"]),
    # hf: the evaluate modules' keyword checks
    "evaluate module: unknown keyword": lambda: check_options("pass_at_k", {"kk": 1},
                                                             when="compute"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_in_every_layer_is_an_input_error(case):
    with pytest.raises(InputError):
        BAD[case]()


def test_a_reader_error_is_an_input_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"correct": [0, 1]}\n{"correct": [0, "x"]}\n')
    with pytest.raises(InputError) as caught:
        load_counts(str(path))
    assert "bad.jsonl" in str(caught.value)


def test_the_cli_still_reports_an_input_error_in_one_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"correct": [0, 2]}\n')
    done = subprocess.run([sys.executable, "-m", "kpass.report.cli", "report", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


# ----------------------------------------------------------------------------- who is blamed

FORWARDING = {
    "compare": lambda metric, **kw: kpass.compare(metric, R, R_B, 2, **kw),
    "standard_error": lambda metric, **kw: kpass.standard_error(metric, R, 2, **kw),
    "leaderboard": lambda metric, **kw: kpass.leaderboard(metric, {"a": R, "b": R_B}, 2, **kw),
    "plan": lambda metric, **kw: kpass.plan(metric, R, 2, **kw),
    "allocate": lambda metric, **kw: kpass.allocate(metric, R, 2, 6, **kw),
    "confidence_sequence": lambda metric, **kw: kpass.confidence_sequence(metric, R, R_B, 2,
                                                                           **kw),
}


@pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")
@pytest.mark.parametrize("caller", sorted(FORWARDING))
def test_a_mistyped_keyword_names_the_public_function_called_not_the_metric(caller):
    with pytest.raises(ArgumentTypeError) as caught:
        FORWARDING[caller](kpass.pass_at_k, kk=1)
    message = str(caught.value)
    assert message.startswith(f"kpass.{caller}() ") and "'kk'" in message, message
    assert "pass_at_k()" not in message  # Python's own wording blamed the inner function


@pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")
@pytest.mark.parametrize("caller", sorted(FORWARDING))
def test_a_metric_is_named_by_its_function_its_name_or_its_registry_key(caller):
    def plain(value):  # the numbers, whatever object holds them
        if hasattr(value, "tolist"):
            return value.tolist()
        return repr(value) if not isinstance(value, (int, float)) else value

    results = [plain(FORWARDING[caller](metric)) for metric in
               (kpass.pass_hat_k, "pass_hat_k", "pass^k")]
    assert results[0] == results[1] == results[2]
    with pytest.raises(ArgumentTypeError, match="registry key"):
        FORWARDING[caller]("pass^q")


def test_the_tables_and_the_monitor_take_a_function_as_well_as_a_name():
    from kpass import SequentialMonitor

    counts = kpass.binary_counts(R)
    by_name = kpass.report_table(counts, metrics="pass^k", k=2)
    by_function = kpass.report_table(counts, metrics=[kpass.pass_hat_k], k=2)
    assert str(by_name) == str(by_function)
    assert str(kpass.compare_table(R, R_B, metrics="pass@k", k=1)) == str(
        kpass.compare_table(R, R_B, metrics=kpass.pass_at_k, k=1))
    assert SequentialMonitor(kpass.pass_hat_k, 2).key == SequentialMonitor("pass^k", 2).key \
        == "pass^2"
