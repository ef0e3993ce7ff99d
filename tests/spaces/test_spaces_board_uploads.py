"""The Leaderboard tab fed by uploaded logs (issue 39, item 4), without a browser.

Real logs only: the ``inspect eval-set`` folder of tests/fixtures/inspect (2 mock models) and
the lm-eval ``samples_*.jsonl`` of tests/fixtures/lm-eval; their outcomes are recomputed here
from what the fixtures' READMEs say the runs scored (Inspect's scorer: sample q correct in
epoch e iff (q + e) % 3 != 0) or from the JSON rows read plainly, never by kpass. Uploaded
files replace the example boxes (a box the visitor edited ranks beside them), a bad file is
one line naming it, and an Inspect log is named by the model it records.
"""

import json
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
EVAL_SET = sorted((FIXTURES / "inspect" / "eval-set").glob("*.eval"))
BROKEN = next((FIXTURES / "inspect").glob("*_kp-broken_*.eval"))
EASY = sorted((FIXTURES / "inspect" / "eval-set-2x3").glob("*_kp-easy_*.eval"))
HARD = sorted((FIXTURES / "inspect" / "eval-set-2x3").glob("*_kp-hard_*.eval"))
LM_GEN = next((FIXTURES / "lm-eval").glob("samples_kp_gen_*.jsonl"))

app: Any = None
tab: Any = None
space_controls: Any = None


@pytest.fixture(scope="module", autouse=True)
def _space_page(space_app):
    global app, tab, space_controls
    pytest.importorskip("inspect_ai")
    app = space_app
    tab = app.leaderboard_tab
    space_controls = app.space_controls


@pytest.fixture(scope="module")
def module():
    import evaluate

    return evaluate.load(str(REPO / "metrics" / "pass_at_k_bayes" / "pass_at_k_bayes.py"))


def rank(module, boxes, uploads, k="1", filter=None, by=None):  # noqa: A002
    controls = space_controls.module_controls(module)
    values = [space_controls.control_value(c) for c in controls]
    return app.run_leaderboard(module, controls, boxes, [str(p) for p in uploads], "pass@k", k,
                               0.95, *values, filter=filter, by=by)


def as_page_opens():
    """The model boxes as the page opens: the example, then empty boxes."""
    example = tab.example_models()
    return example + [("", "")] * (tab.MAX_MODELS - len(example))


def planned(epochs=4, questions=6):
    """Pass@1 of the eval-set's scorer: sample q correct in epoch e iff (q + e) % 3 != 0."""
    return sum(Fraction(sum((q + e) % 3 != 0 for e in range(1, epochs + 1)), epochs)
               for q in range(1, questions + 1)) / questions


def lm_eval_outcomes(path, filter):  # noqa: A002
    """doc_id -> the row's first metric under ``filter``, read plainly from the JSONL."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["doc_id"]: int(r[r["metrics"][0]]) for r in rows if r["filter"] == filter}


def test_two_inspect_logs_rank_named_by_their_models(module):
    message, table, figure = rank(module, as_page_opens(), EVAL_SET)
    assert message.startswith("Ranked at ") and figure is not None, message
    assert "2 models on 6 question(s) (matched by id)" in message, message
    assert sorted(table["model"]) == ["mockllm/model-a", "mockllm/model-b"]
    assert table["estimate"].tolist() == pytest.approx([float(planned())] * 2, abs=5e-5)
    # the two mock models score alike: neither is told apart, both may be first
    assert table["rank set"].tolist() == ["1-2", "1-2"]
    assert "No pair is told apart" in message


def grouped(skill, easy, questions=5, epochs=3):
    """Pass@1 of model skill s in eval-set-2x3 (its README): question q correct in epoch e
    iff (7 q + 3 e + s) % 6 < s + b, b = 1 on kp_easy and 0 on kp_hard."""
    b = 1 if easy else 0
    return Fraction(sum((7 * q + 3 * e + skill) % 6 < skill + b
                        for q in range(1, questions + 1) for e in range(1, epochs + 1)),
                    questions * epochs)


def test_three_inspect_logs_of_one_task_rank_by_their_scores(module):
    assert len(EASY) == 3
    message, table, _ = rank(module, as_page_opens(), EASY)
    assert message.startswith("Ranked at ") and "3 models on 5 question(s)" in message, message
    want = {f"mockllm/model-{name}": grouped(skill, True)
            for name, skill in (("a", 1), ("b", 2), ("c", 3))}
    assert sorted(want.values()) == [Fraction(5, 15), Fraction(8, 15), Fraction(9, 15)]
    assert table["model"].tolist() == sorted(want, key=want.get, reverse=True)
    assert table["estimate"].tolist() == pytest.approx(sorted(map(float, want.values()),
                                                              reverse=True), abs=5e-5)
    assert table["rank"].tolist() == [1, 2, 3]


def test_logs_of_two_tasks_are_refused_naming_both_files(module):
    message, table, _ = rank(module, as_page_opens(), [EASY[0], HARD[0]])
    assert message.startswith(f"**Input error:** the file {HARD[0].name} is an Inspect log of "
                              "task 'kp_hard', but the file " f"{EASY[0].name} is of task "
                              "'kp_easy'"), message
    assert "--any-task" not in message and "\n" not in message and len(table) == 0


def test_uploads_replace_the_example_and_say_so_in_one_line(module):
    message, table, _ = rank(module, as_page_opens(), EVAL_SET)
    assert len(table) == 2 and "base" not in set(table["model"])
    note = "The 5 example boxes were left out: uploaded files replace the example"
    assert note in message and "\n" not in message, message
    # a box the visitor edited is kept, not ignored: here it cannot pair with the logs'
    # question ids, and the message names it (nothing typed is dropped unseen)
    boxes = as_page_opens()
    boxes[1] = ("mine", boxes[1][1])
    message, table, _ = rank(module, boxes, EVAL_SET)
    assert message.startswith("**Input error:** ") and "box 2 (model 'mine')" in message, message
    # without files the example ranks as before, with no note
    message, table, _ = rank(module, as_page_opens(), [])
    assert len(table) == 5 and "left out" not in message, message


def test_an_edited_box_with_ids_ranks_with_the_logs(module):
    boxes = as_page_opens()
    # model-c solves every epoch of questions 1-3 and none of 4-6 (4 epochs each)
    boxes[0] = ("model-c", "\n".join(json.dumps({"id": q, "correct": [int(q <= 3)] * 4})
                                     for q in range(1, 7)))
    message, table, _ = rank(module, boxes, EVAL_SET)
    assert message.startswith("Ranked at ") and "3 models on 6 question(s)" in message, message
    shown = dict(zip(table["model"], table["estimate"], strict=True))
    assert shown["model-c"] == pytest.approx(0.5, abs=5e-5)
    assert shown["mockllm/model-a"] == pytest.approx(float(planned()), abs=5e-5)
    assert "The 4 example boxes were left out" in message


def test_lm_eval_samples_and_a_parquet_table_rank_with_the_filter_given(module, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    gen = lm_eval_outcomes(LM_GEN, "first")
    # a second model as a long Parquet table (one row per sample, a model column of one value)
    other = {q: [1, 1, 0, 1] if q % 2 else [0, 0, 1, 0] for q in gen}
    table = pa.table({"model": ["other"] * 20, "id": [q for q in other for _ in range(4)],
                      "correct": [x for q in other for x in other[q]]})
    pq.write_table(table, tmp_path / "other.parquet")
    uploads = [LM_GEN, tmp_path / "other.parquet"]
    message, shown, _ = rank(module, as_page_opens(), uploads)
    assert message.startswith(f"**Input error:** the file {LM_GEN.name}: ") and \
        "choose one in the box lm-eval filter" in message, message
    assert "\n" not in message and len(shown) == 0
    message, shown, _ = rank(module, as_page_opens(), uploads, filter="first")
    assert message.startswith("Ranked at ") and "2 models on 5 question(s)" in message, message
    want = {LM_GEN.stem: Fraction(sum(gen.values()), len(gen)),
            "other": sum(Fraction(sum(r), 4) for r in other.values()) / len(other)}
    got = dict(zip(shown["model"], shown["estimate"], strict=True))
    assert got == pytest.approx({m: float(v) for m, v in want.items()}, abs=5e-5)


@pytest.mark.parametrize("make,needle", [
    (lambda tmp: BROKEN, "every epoch errored (12 of 12"),
    (lambda tmp: tmp / "cut.eval", "cut.eval"),
    (lambda tmp: tmp / "cut.parquet", "cut.parquet"),
])
def test_a_bad_upload_is_one_line_naming_the_file(module, tmp_path, make, needle):
    (tmp_path / "cut.eval").write_bytes(EVAL_SET[0].read_bytes()[:300])
    (tmp_path / "cut.parquet").write_bytes(b"PAR1 not a parquet file")
    bad = make(tmp_path)
    partner = tmp_path / "partner.eval"  # a readable log of the same task, read after it
    shutil.copy(EVAL_SET[0] if bad != BROKEN else BROKEN, partner)
    message, table, figure = rank(module, as_page_opens(), [bad, partner])
    assert message.startswith(f"**Input error:** the file {Path(bad).name}"), message
    assert needle in message and "\n" not in message and "Traceback" not in message, message
    assert str(tmp_path) not in message.replace(f"the file {Path(bad).name}", "")
    assert len(table) == 0 and figure is None


def test_two_logs_of_one_model_and_task_are_named_by_their_files(module, tmp_path):
    copy = tmp_path / "again.eval"
    shutil.copy(EVAL_SET[0], copy)
    message, table, _ = rank(module, as_page_opens(), [EVAL_SET[0], copy])
    assert message.startswith("Ranked at "), message
    assert sorted(table["model"]) == sorted(["again", EVAL_SET[0].stem])


def test_long_file_names_are_shortened_on_the_plot_only(module, tmp_path):
    names = ["a-very-long-run-name-from-a-warehouse-export-1",
             "a-very-long-run-name-from-a-warehouse-export-2"]
    uploads = []
    for name, rows in zip(names, ([1, 0, 1], [0, 0, 1]), strict=True):
        path = tmp_path / f"{name}.csv"
        path.write_text("id,correct\n" + "".join(f"q{i},{x}\n" for i, x in enumerate(rows)))
        uploads.append(path)
    message, table, figure = rank(module, as_page_opens(), uploads)
    assert message.startswith("Ranked at "), message
    assert sorted(table["model"]) == names  # the table shows them whole
    shown = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert all(len(label) <= len("1. ") + tab.PLOT_NAME and "\u2026" in label for label in shown)
    assert {label[-1] for label in shown} == {"1", "2"}  # the ends that tell them apart
    import warnings

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tight_layout found room for the names
        figure.tight_layout(pad=0.6)
    FigureCanvasAgg(figure).draw()


def test_a_table_holding_several_models_is_refused_not_pooled(module, tmp_path):
    two = tmp_path / "runs.csv"
    two.write_text("model,id,correct\na,q1,1\na,q2,0\nb,q1,1\nb,q2,1\n")
    one = tmp_path / "c.csv"
    one.write_text("model,id,correct\nc,q1,1\nc,q2,0\n")
    message, table, _ = rank(module, as_page_opens(), [two, one])
    assert message == ("**Input error:** the file runs.csv: column `model` holds several "
                       "values ('a', 'b'): read as one model, their rows would be pooled; "
                       "give the column in the box split by column (or upload one file per "
                       "model)"), message
    assert len(table) == 0
    # one model per file, named by the file: c.csv beside a second one-model table
    (tmp_path / "d.csv").write_text("model,id,correct\nd,q2,1\nd,q1,1\nd,q1,0\n")
    message, table, _ = rank(module, as_page_opens(), [one, tmp_path / "d.csv"])
    assert message.startswith("Ranked at ") and "matched by id" in message, message
    got = dict(zip(table["model"], table["estimate"], strict=True))
    assert got == pytest.approx({"c": 0.5, "d": 0.75}, abs=5e-5)  # d: q1 1/2, q2 1


def warehouse(seed=3, questions=20, samples=4):
    """Rows (model, id, sample, correct) of three models, drawn with a seed, in shuffled
    order (as a warehouse export interleaves runs)."""
    import random

    draw = random.Random(seed)
    rows = [(model, f"q{q}", s, int(draw.random() < p))
            for model, p in (("small", 0.3), ("medium", 0.5), ("large", 0.8))
            for q in range(questions) for s in range(samples)]
    draw.shuffle(rows)
    return rows


def pass_at_1(rows):
    """Pass@1 per model, exactly: the mean over questions of each question's share right."""
    per: dict[str, dict[str, list[int]]] = {}
    for model, q, _, x in rows:
        per.setdefault(model, {}).setdefault(q, []).append(x)
    return {m: sum(Fraction(sum(v), len(v)) for v in qs.values()) / len(qs)
            for m, qs in per.items()}


def test_a_table_of_many_models_is_split_by_the_column_given(module, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    import kpass

    rows = warehouse()
    pq.write_table(pa.table({name: [row[i] for row in rows] for i, name in
                             enumerate(("model", "id", "sample", "correct"))}),
                   tmp_path / "runs.parquet")
    message, table, _ = rank(module, as_page_opens(), [tmp_path / "runs.parquet"], by="model")
    assert message.startswith("Ranked at ") and "3 models on 20 question(s)" in message, message
    want = pass_at_1(rows)
    got = dict(zip(table["model"], table["estimate"], strict=True))
    assert got == pytest.approx({m: float(v) for m, v in want.items()}, abs=5e-5)
    assert table["model"].tolist() == sorted(want, key=want.get, reverse=True)
    # the same board as three one-model files ranked side by side (matched by id)
    files = []
    for model in want:
        path = tmp_path / f"{model}.csv"
        path.write_text("id,sample,correct\n" + "".join(
            f"{q},{s},{x}\n" for m, q, s, x in rows if m == model))
        files.append(path)
    _, apart, _ = rank(module, as_page_opens(), files)
    assert apart.to_dict("list") == table.to_dict("list")
    runs = {m: {q: [x for mm, qq, _, x in rows if mm == m and qq == q]
                for q in sorted({row[1] for row in rows})} for m in want}
    board = kpass.leaderboard(kpass.pass_at_k, {m: list(v.values()) for m, v in runs.items()}, 1)
    assert table["rank set"].tolist() == [
        str(r.rank_lo) if r.rank_lo == r.rank_hi else f"{r.rank_lo}-{r.rank_hi}"
        for r in board.rows]


def test_split_tables_rank_beside_one_model_files_and_logs_stay_whole(module, tmp_path):
    two = tmp_path / "runs.csv"
    two.write_text("model,id,correct\na,q1,1\na,q2,0\nb,q1,1\nb,q2,1\n")
    one = tmp_path / "c-run.csv"  # one value of the column: one model, named by it
    one.write_text("model,id,correct\nc,q1,0\nc,q2,0\n")
    plain = tmp_path / "d.csv"  # no such column: one model, named by the file
    plain.write_text("id,correct\nq1,1\nq2,0\n")
    message, table, _ = rank(module, as_page_opens(), [two, one, plain], by="model")
    assert message.startswith("Ranked at ") and "4 models on 2 question(s)" in message, message
    got = dict(zip(table["model"], table["estimate"], strict=True))
    assert got == pytest.approx({"a": 0.5, "b": 1.0, "c": 0.0, "d": 0.5}, abs=5e-5)


@pytest.mark.parametrize("content,by,needle", [
    ("model,id,correct\na,q1,1\nb,q1,0\n", "run",
     "split by column: no uploaded table has a column `run`"),
    ("model,correct\na,1\nb,0\n", "model",
     "the file runs.csv: split by `model` reads a long table, one row per sample, with a "
     "question id column (id, question_id, task_id, problem_id, ...); the file has model, "
     "correct"),
    ("model,id,correct\na,q1,1\n,q1,0\n", "model",
     "the file runs.csv: line 3: the `model` value (split by column) is empty"),
])
def test_a_bad_split_is_one_line(module, tmp_path, content, by, needle):
    (tmp_path / "runs.csv").write_text(content)
    message, table, _ = rank(module, as_page_opens(), [tmp_path / "runs.csv"], by=by)
    assert message.startswith(f"**Input error:** {needle}"), message
    assert "\n" not in message and "Traceback" not in message and len(table) == 0
