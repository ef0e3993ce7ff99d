"""Fuzzing the Space's parser and the modules' inline compute (issue 18, item 4).

Seeded and derandomised (the suite's hypothesis profile, tests/conftest.py), with bounded
example counts so the file runs in well under a minute.

1. Random text in the boxes -- wide rows, long rows with and without ids, answers with
   ``|``, junk, deep nesting, huge numbers -- through ``run(...)`` of a binary, a
   categorical and an answers module: the page either says "Computed" with the table the
   module's own ``compute`` gives on the parsed input, or shows one "**Input error:**"
   line; it never raises.
2. A module's ``compute`` with bad inline predictions, then good ones: the good result is a
   fresh module's (nothing of the failed call is kept), for every metric module and the
   comparison module, with and without a batch added before.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
BINARY = ["pass_at_k_bayes", "g_pass_at_k_bayes", "maj_at_k_bayes", "auc_at_k_bayes",
          "geo_spectrum_bayes"]
CATEGORICAL = ["max_at_k_bayes", "bayes_at_n", "avg_at_n_bayes", "tailpass_bayes"]


app: Any = None
space_controls: Any = None
space_input: Any = None
space_output: Any = None
evaluate: Any = None


@pytest.fixture(scope="module", autouse=True)
def _space_page(space_app):
    """The Space's modules as this file's names, bound when its first test runs (the
    shared loader, tests/conftest.py: gradio is not imported while collecting)."""
    global app, space_controls, space_input, space_output, evaluate
    import evaluate
    app = space_app
    space_controls = app.space_controls
    space_input = app.space_input
    space_output = app.space_output


def load(name: str):
    if name == "kpass_compare":
        return evaluate.load(str(REPO / "comparisons" / name), module_type="comparison",
                             keep_in_memory=True)
    return evaluate.load(str(REPO / "metrics" / name), keep_in_memory=True)


MODULES: dict[str, object] = {}


def module_named(name: str):
    if name not in MODULES:
        MODULES[name] = load(name)
    return MODULES[name]


# ----------------------------------------------------------------------------- 1. the parser

WEIRD = ["2", "-1", "0.5", "1.0", "x", "nan", "inf", "-inf", "1e99999", "9" * 400,
         "1e99999999999999999999", '"1"', "'a'", "[", "]", "{", "}", "[1, 0]", "null", "true",
         "\u00e9", "0x1", "1_0", "--", "#"]
SEPARATORS = [" ", ", ", ",", ";", "\t", "  ", " ,"]
IDS = ["q1", "q2", "q3", 1, 2, "1", " q1 ", "", 1.5, None, True, [1], {"a": 1}, 10 ** 30]


def tokens(kind: str, clean: bool = False):
    """One outcome as typed: a valid one, or (unless ``clean``) anything odd."""
    if kind == "answers":
        valid = ["a", "b", "c", "7", "07", "7.0", "1/2", "0.5", "\\frac{1}{2}", "-3", "x_y"] * 2
        valid.append("1e99999999999999999999")  # gave "[<class 'decimal.InvalidOperation'>]"
    else:
        valid = ["0", "1"]  # categories above 1 need rewards `w` (the default is 0, 1)
    return st.sampled_from(valid if clean else valid * 3 + WEIRD)


@st.composite
def wide_line(draw, kind: str, clean: bool) -> str:
    values = draw(st.lists(tokens(kind, clean), min_size=1, max_size=6))
    if draw(st.integers(0, 4)) == 0:
        line = "[" + ", ".join(values if kind != "answers" else map(json.dumps, values)) + "]"
    else:
        line = draw(st.sampled_from(SEPARATORS)).join(values)
    if kind == "answers" and (clean or draw(st.integers(0, 5)) > 0):
        line += " | " + draw(tokens(kind, clean))
    if kind == "categorical" and draw(st.integers(0, 3)) == 0:
        line += " | " + " ".join(draw(st.lists(tokens(kind, clean), max_size=3)))
    if not clean and draw(st.integers(0, 5)) == 0:
        line += " | " + draw(tokens(kind))  # a part too many for most modules
    return line


@st.composite
def long_line(draw, kind: str, clean: bool) -> str:
    record: dict = {}
    if clean or draw(st.integers(0, 5)) > 0:
        # clean ids are distinct as written ("q1", 1, ...): one question per distinct id
        record["id" if clean else draw(st.sampled_from(["id", "question_id", "task_id"]))] = \
            draw(st.sampled_from(IDS[:5] if clean else IDS))
    field = draw(st.sampled_from(["correct", "outcomes", "predictions", "score"]))
    value = draw(tokens(kind, clean))
    try:
        scalar = json.loads(value) if kind != "answers" else value
    except ValueError:
        scalar = value
    record[field] = scalar if clean or draw(st.integers(0, 4)) > 0 else [scalar]
    if kind == "answers":
        # one gold answer per question id when clean, anything otherwise
        gold = "a" if clean else draw(tokens(kind))
        record[draw(st.sampled_from(["reference", "gold"]))] = gold
    return json.dumps(record)


@st.composite
def box_text(draw, kind: str) -> tuple[str, int | None]:
    """Text for a box, and how many questions it holds where that is plain (else None)."""
    shape = draw(st.sampled_from(["wide", "wide", "long", "long", "mixed", "junk", "nested",
                                  "json", "huge"]))
    if shape == "junk":
        return draw(st.text(max_size=120)), None
    if shape == "nested":
        depth = draw(st.integers(1, 3000))
        close = draw(st.sampled_from([depth, depth - 1, 0]))
        return "[" * depth + "1" * draw(st.integers(0, 1)) + "]" * close, None
    if shape == "json":
        rows = draw(st.lists(st.lists(st.sampled_from([0, 1, 1, 0, 2, 0.5, "a", None]),
                                      min_size=1, max_size=5), min_size=1, max_size=5))
        return json.dumps(rows), len(rows)
    if shape == "huge":
        return "\n".join(["1 0 1", f"{'9' * draw(st.integers(1, 5000))} 1", "0 1 1"]), 3
    clean = draw(st.integers(0, 3)) > 0 and shape != "mixed"
    line = {"wide": wide_line(kind, clean), "long": long_line(kind, clean),
            "mixed": st.one_of(wide_line(kind, clean), long_line(kind, clean))}[shape]
    lines = draw(st.lists(line, min_size=1, max_size=8))
    count = None
    if clean and shape == "wide":
        count = len(lines)  # one question a line
    elif clean and shape == "long":
        count = len({json.dumps(json.loads(line)["id"]) for line in lines})  # one an id
    if draw(st.integers(0, 4)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["", "# note", "  "])))
    return "\n".join(lines), count


def expected_table(module, text: str, ks_text: str):
    """What the page must show: the module's own compute on the page's parsed input."""
    names, kind = space_controls.input_names(module), space_controls.module_kind(module)
    questions = space_input.parse_questions(text, names, kind)
    options = {c.name: space_controls.parse_control(c, space_controls.control_value(c))
               for c in space_controls.module_controls(module)}
    options = {name: value for name, value in options.items() if value is not None}
    if space_controls.uses_k(module):
        options["k"] = app.parse_ks(ks_text)
    fresh = load(space_controls.module_family(module))
    columns = space_input.columns_of(questions, names)
    table = space_output.results_table(fresh.compute(**columns, **options))
    space_output.questions_used(table, questions, options.get("short"))
    return space_output.shown(table)


def check_page(module, case: tuple[str, int | None], ks_text: str) -> None:
    text, count = case
    controls = space_controls.module_controls(module)
    message, table, figure = app.run(module, controls, text, None, ks_text,
                                     *[space_controls.control_value(c) for c in controls])
    assert isinstance(message, str) and "\n" not in message, message
    assert "Traceback" not in message and "<class" not in message, message
    if message.startswith("Computed"):
        assert figure is not None
        expected = expected_table(module, text, ks_text)
        assert table.equals(expected), (text, table, expected)
        if count is not None:  # never merges nor splits questions
            assert f"over {count} question(s)" in message, (text, message)
    else:
        assert message.startswith("**Input error:** ") and len(table) == 0 and figure is None, \
            message


KS = st.sampled_from(["1", "1", "1", "1, 2", "2", "0", "x", "1, 1000"])


@pytest.mark.slow  # 50 pages computed per module: 8 s of CPU (tests/conftest.py's limit said so)
@pytest.mark.parametrize("name,kind", [("pass_at_k_bayes", "binary"),
                                       ("max_at_k_bayes", "categorical"),
                                       ("vote_at_k_bayes", "answers")])
def test_the_page_computes_what_the_module_computes_or_says_why_not(name, kind):
    module = module_named(name)

    @settings(max_examples=50)
    @given(case=box_text(kind), ks_text=KS)
    def check(case, ks_text):
        check_page(module, case, ks_text)

    check()


# ----------------------------------------------------------------------------- 2. the modules

BAD_VALUES = [2, -1, 0.5, "1", None, math.nan, math.inf, True, [], [1], {"a": 1}, "x", 10 ** 30]


def good_rows(kind: str):
    value = {"binary": st.integers(0, 1), "categorical": st.integers(0, 1),
             "answers": st.sampled_from(["a", "b", "c"])}[kind]
    return st.lists(st.lists(value, min_size=2, max_size=5), min_size=2, max_size=5)


@st.composite
def bad_rows(draw, kind: str):
    """Rows the module refuses: a bad value among good ones, or rows shorter than k."""
    if draw(st.booleans()):
        rows = draw(good_rows(kind))
        q, j = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, 1))
        rows[q][j] = draw(st.sampled_from(BAD_VALUES))
        return rows, {}
    short = draw(st.lists(st.lists(st.integers(0, 1) if kind != "answers" else
                                   st.sampled_from(["a", "b"]), min_size=1, max_size=2),
                          min_size=1, max_size=4))
    return short, {"k": 3, **({"w": [0.0]} if kind == "categorical" else {})}


def inputs(name: str, kind: str, rows, other=None) -> dict:
    if name == "kpass_compare":
        return {"predictions1": rows, "predictions2": other if other is not None else rows}
    if kind == "answers":
        return {"predictions": rows, "references": ["a"] * len(rows)}
    return {"predictions": rows}


def kind_of(name: str) -> str:
    return ("categorical" if name in CATEGORICAL else "answers" if name == "vote_at_k_bayes"
            else "binary")


@pytest.mark.slow  # 20 examples of three computes each, per module
@pytest.mark.parametrize("name", BINARY + CATEGORICAL + ["vote_at_k_bayes", "kpass_compare"])
def test_a_failed_inline_compute_leaves_nothing_for_the_next(name):
    kind = kind_of(name)

    @settings(max_examples=20)
    @given(bad=bad_rows(kind), good=good_rows(kind), added=st.one_of(st.none(), good_rows(kind)))
    def check(bad, good, added):
        rows, options = bad
        module = load(name)
        if added is not None:
            module.add_batch(**inputs(name, kind, added))
        try:
            module.compute(**inputs(name, kind, rows), **options)
            failed = False
        except (ValueError, TypeError):  # anything else fails the test
            failed = True
        results = module.compute(**inputs(name, kind, good), k=[1, 2])
        reference = good if added is None or not failed else added + good
        expected = load(name).compute(**inputs(name, kind, reference), k=[1, 2])
        assert results.keys() == expected.keys()
        for key, value in expected.items():
            assert results[key] == pytest.approx(value, rel=1e-12, abs=1e-14, nan_ok=True), key

    check()
