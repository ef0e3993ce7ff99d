"""Hub Space demo shared by every kpass metric module.

The same file is copied into each Space next to the metric script
``<name>.py``; the app finds that script beside itself (or takes
``KPASS_METRIC``: a script path, a folder or a name under ``metrics/``),
loads it with ``evaluate.load`` and computes everything through it. No metric
math lives here: the app only parses input, calls the module and lays out
what comes back.

Run locally with ``python app.py``; the server honours ``GRADIO_SERVER_NAME``
and ``GRADIO_SERVER_PORT`` (Spaces set them).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import evaluate
import gradio as gr
import pandas as pd

HERE = Path(__file__).resolve().parent
# Modules shipped beside app.py (spaces/build.py copies them): the Leaderboard and Plan tabs, the
# reading of pasted or uploaded input, the tables, plots, formulas and page texts shown,
# the controls and comparisons each module offers, and the child process with a deadline.
TAB_MODULES = ("leaderboard_tab.py", "plan_tab.py", "space_input.py", "space_output.py",
               "space_controls.py", "space_failures.py", "space_page.py")
NOT_SCRIPTS = {"app.py", "setup.py", "conftest.py", *TAB_MODULES}


# The page's modules are this module's submodules: ``__path__`` makes the folder beside it
# (the Space, or the repository's spaces/) their package, so each copy of the page loads its
# own (``<this module>.space_input``, ...) and they import one another relatively. Loaded by
# path, not through ``sys.path``: the repository's ``spaces/`` folder also holds
# ``build.py``, which must not shadow the ``build`` package.
__path__ = [str(HERE)]
space_input = importlib.import_module(f"{__name__}.space_input")  # pasted and uploaded input
space_output = importlib.import_module(f"{__name__}.space_output")  # tables, plots, formulas
space_controls = importlib.import_module(f"{__name__}.space_controls")  # controls, comparisons
space_failures = importlib.import_module(f"{__name__}.space_failures")  # messages, the child
space_page = importlib.import_module(f"{__name__}.space_page")  # the page's Blocks
leaderboard_tab = importlib.import_module(f"{__name__}.leaderboard_tab")  # the Leaderboard tab

MESSAGE_ID = "kpass-message"
COMPUTE_LOCK = threading.Lock()

# Limits: every request runs under one lock, so one paste must not hold the Space for long.
# Sizes alone do not bound the time (vote@k intervals grow with k and the number of
# distinct answers), so each computation also runs in a child process with a deadline.
MAX_SECONDS = 20.0
LIMITS = (f"Limits: {space_input.MAX_CHARS // 1000:,} kB of input, "
          f"{space_input.MAX_QUESTIONS:,} questions, {space_input.MAX_OUTCOMES:,} outcomes, "
          f"{space_input.MAX_KS} values of k up to {space_input.MAX_K:,}, categories "
          f"0..{space_input.MAX_CATEGORY}, {MAX_SECONDS:g} s of computing. For more, use "
          "`kpass report` or `evaluate.load` locally.")


# ----------------------------------------------------------------------------- the module


def find_metric_script(folder: Path = HERE) -> Path:
    """The metric script this app serves: ``KPASS_METRIC`` or the one script beside app.py."""
    chosen = os.environ.get("KPASS_METRIC")
    if chosen:
        path = Path(chosen)
        if path.is_dir():
            path = path / f"{path.name}.py"
        elif not path.suffix and not path.exists():
            path = folder.parent / "metrics" / chosen / f"{chosen}.py"
        if not path.is_file():
            raise FileNotFoundError(f"KPASS_METRIC={chosen!r}: no metric script at {path}")
        return path
    named = folder / f"{folder.name}.py"
    if named.is_file():
        return named
    scripts = sorted(p for p in folder.glob("*.py") if p.name not in NOT_SCRIPTS)
    if len(scripts) != 1:
        raise FileNotFoundError(
            f"expected one metric script beside {Path(__file__).name} in {folder}; "
            f"found {[p.name for p in scripts]} (set KPASS_METRIC to choose)"
        )
    return scripts[0]


def parse_ks(text: Any) -> list[int]:
    """``"1, 2, 4"`` -> ``[1, 2, 4]``; the module checks the range against the data."""
    tokens = [t for t in re.split(r"[,\s;]+", str(text or "")) if t]
    if not tokens:
        raise ValueError("`k` is empty: enter one or more k values, e.g. 1, 2, 4")
    for token in tokens:
        if not re.fullmatch(r"[+-]?[0-9]+", token):  # ASCII digits: "٣" is not a k
            raise ValueError(f"`k` must be integers separated by commas; got {token!r}")
    if len(tokens) > space_input.MAX_KS:
        raise ValueError(f"`k`: at most {space_input.MAX_KS} values on this page; "
                         f"got {len(tokens)}")
    ks = [int(token) for token in tokens]
    if max(ks) > space_input.MAX_K:
        raise ValueError(f"`k` must be at most {space_input.MAX_K:,} on this page; "
                         f"got k={max(ks)}")
    return ks


# ----------------------------------------------------------------------------- compute


def example_text(kind: str = "binary") -> str:
    """The bundled tau-bench sample (50 tasks x 4 trials of GPT-4o), one task a line.

    For answer-string modules each trial is the answer "1" (solved) or "0", gold "1".
    """
    from kpass.data import tau_bench_outcomes

    lines = [" ".join(str(x) for x in row) for row in tau_bench_outcomes()]
    return "\n".join(f"{line} | 1" for line in lines) if kind == "answers" else "\n".join(lines)


def within_deadline(function: Any, *args: Any, seconds: float | None = None, **kwargs: Any
                    ) -> Any:
    """``function(*args, **kwargs)`` under the page's lock, stopped after ``seconds``.

    It runs in a forked child that is killed at the deadline (default MAX_SECONDS):
    one lock serves every visitor, so no request may hold it for long.

    Raises:
        ValueError / TypeError: the function's own message for bad input.
        TimeoutError: it needs more than ``seconds``.
        ComputationError: any other failure (an ArithmeticError, a crash of the child,
            a bug), as one readable line.
    """
    seconds = MAX_SECONDS if seconds is None else seconds
    with COMPUTE_LOCK:
        return space_failures.run_in_child(function, args, kwargs, seconds)


def compute_results(module: evaluate.EvaluationModule, inputs: dict[str, Any],
                    options: dict[str, Any]) -> dict[str, Any]:
    """One stateless computation through the module, within the page's deadline.

    ``_compute`` validates and counts its inputs and returns the results without
    storing anything, so a failed request leaves nothing behind for the next one.
    """
    return within_deadline(module._compute, **inputs, **options)


def stamp() -> str:
    """The time of a computation, for the page's message: ``09:14:03 UTC``.

    The page opens already computed, so pressing Compute on the same input changes nothing
    else: the time says that it ran.
    """
    return datetime.now(timezone.utc).strftime("%H:%M:%S UTC")


def empty_table() -> pd.DataFrame:
    return pd.DataFrame(columns=[c for c in space_output.COLUMNS if c != "se"])


def run(module: evaluate.EvaluationModule, controls: list[space_controls.Control], text: str,
        upload: str | None, ks_text: str, *values: Any):
    """Compute through the module; any bad input becomes a message, never a traceback."""
    names, kind = space_controls.input_names(module), space_controls.module_kind(module)
    source, questions = "the text box", []
    try:
        if upload:  # named before reading, so a refused row points at the file
            source = f"the file {Path(upload).name}"
        uploaded = space_input.read_upload(upload, names, kind)
        if uploaded is not None:
            questions = uploaded
        else:
            questions = space_input.parse_questions(text, names, kind)
        options = {c.name: space_controls.parse_control(c, v)
                   for c, v in zip(controls, values, strict=True)}
        options = {name: value for name, value in options.items() if value is not None}
        if space_controls.uses_k(module):
            options["k"] = parse_ks(ks_text)
        columns = space_input.columns_of(questions, names)
        table = space_output.results_table(compute_results(module, columns, options))
    except RecursionError:
        return ("**Input error:** the input is nested too deeply; give one flat list of "
                "outcomes per question", empty_table(), None)
    except (ValueError, TypeError, TimeoutError) as error:
        message = space_failures.unquoted(space_failures.readable(error))
        where = source if source.startswith("the file") else "text box"
        message = space_input.locate(message, questions, where)
        return f"**Input error:** {message}", empty_table(), None
    except Exception as error:  # noqa: BLE001 (any other failure: one readable line, no traceback)
        return f"**Input error:** {space_failures.failure_message(error)}", empty_table(), None
    space_output.questions_used(table, questions, options.get("short"))
    note = (f"Computed at {stamp()}: {len(table)} value(s) over {len(questions)} question(s) "
            f"from {source}.")
    if options.get("short") == "skip":
        note += " With short = skip, each k uses only the questions with at least k samples."
    return note, space_output.shown(table), space_output.results_plot(table)


# ----------------------------------------------------------------------------- compare


def compare_models(family: str, kind: str, a: dict[str, Any], b: dict[str, Any],
                   ks: list[int] | None, options: dict[str, Any],
                   ids: dict[str, list[Any]] | None = None, margin: float | None = None,
                   equivalence: bool = False) -> pd.DataFrame:
    """Model A against model B on the same questions, each metric and k a row (see
    :func:`compare_rows`: ``kpass.compare`` on the paired per-question values, matched
    by question id when ``ids`` are given; with a ``margin``, its claim's columns)."""
    rows = space_controls.compare_rows(family, kind, a, b, ks, options, ids, margin,
                                       equivalence)
    columns = (space_output.COMPARE_COLUMNS if margin is None
               else space_output.MARGIN_COLUMNS)
    return pd.DataFrame(rows, columns=columns)


def example_pair(kind: str = "binary") -> tuple[str, str]:
    """Trials 1-2 against trials 3-4 of the bundled tau-bench run: two runs of one model."""
    from kpass.data import tau_bench_outcomes

    rows = tau_bench_outcomes()
    gold = " | 1" if kind == "answers" else ""
    first, second = ("\n".join(" ".join(str(x) for x in row[half]) + gold for row in rows)
                     for half in (slice(0, 2), slice(2, 4)))
    return first, second


#: Every failure of a comparison becomes a located one-line message (compare_failure).
COMPARE_ERRORS = (Exception,)


def compare_failure(error: BaseException, side: str, sides: dict[str, list[space_input.Question]]):
    """The page's outputs for a failed comparison: the message located in its box and line."""
    if isinstance(error, RecursionError):
        return ("**Input error:** the input is nested too deeply; give one flat list of "
                "outcomes per question", pd.DataFrame(columns=space_output.COMPARE_COLUMNS), None)
    if isinstance(error, (ValueError, TypeError, TimeoutError)):
        message = space_failures.unquoted(space_failures.readable(error))
    else:
        message = space_failures.failure_message(error)
    named = re.match(r"model ([AB]): ", message)
    if named:
        side, message = named[1], message[named.end():]
    where = f"model {side} box" if side else "input"
    message = space_input.locate(message, sides.get(side, []), where) if side else message
    return f"**Input error:** {message}", pd.DataFrame(columns=space_output.COMPARE_COLUMNS), None


def run_compare(module: evaluate.EvaluationModule, controls: list[space_controls.Control],
                text_a: str, text_b: str, ks_text: str, *values: Any, margin: Any = None,
                equivalence: bool = False, sequential_null: str = "exchangeable"):
    """Compare two models through kpass.compare; bad input becomes a located message.

    ``values`` are the Compute tab's options (``controls``). ``margin`` (the tab's box;
    empty: none) and ``equivalence`` test "B is not worse than A by more than margin"
    (or |A - B| < margin) on every row, and the sequential verdict decides the same claim
    under ``sequential_null`` (``"exchangeable"`` or ``"bounded"``).
    """
    names, kind = space_controls.input_names(module), space_controls.module_kind(module)
    family = space_controls.module_family(module)
    sides: dict[str, list[space_input.Question]] = {"A": [], "B": []}
    side = "A"
    try:
        sides["A"] = space_input.parse_questions(text_a, names, kind)
        side = "B"
        sides["B"] = space_input.parse_questions(text_b, names, kind)
        side = ""
        sides, ids = space_controls.paired(sides, kind)
        a = space_input.columns_of(sides["A"], names)
        b = space_input.columns_of(sides["B"], names)
        if "R0" in a or "R0" in b:
            raise ValueError("the comparison takes no prior outcomes (R0): remove the '| ...' "
                             "part of the lines")
        options = {c.name: space_controls.parse_control(c, v)
                   for c, v in zip(controls, values, strict=True)}
        options = {name: value for name, value in options.items() if value is not None}
        ks = parse_ks(ks_text) if space_controls.uses_k(module) else None
        margin = space_controls.parse_margin(margin)
        equivalence = bool(equivalence)
        if equivalence and margin is None:
            raise ValueError("equivalence needs a margin (the largest |A - B| that counts as "
                             "equivalent, e.g. 0.02)")
        if sequential_null not in ("exchangeable", "bounded"):
            raise ValueError(f"the sequential null must be exchangeable or bounded; got "
                             f"{sequential_null!r}")
        table = within_deadline(compare_models, family, kind, a, b, ks, options, ids, margin,
                                equivalence)
    except (RecursionError, *COMPARE_ERRORS) as error:
        return compare_failure(error, side, sides)
    matched = "matched by question id" if ids is not None else "in line order"
    if margin is None:
        note = (f"Compared at {stamp()}: {len(table)} value(s) over {len(sides['A'])} paired "
                f"question(s) ({matched}): A - B with its SE over questions; P(A better) "
                "from the two posteriors.")
    else:
        note = (f"Compared at {stamp()}: {len(table)} value(s) over {len(sides['A'])} paired "
                f"question(s) ({matched}).")
        note += space_output.margin_note(table, margin, equivalence,
                                         float(options.get("confidence", 0.95)))
    from kpass.stats.monitor import space_line  # the sequential verdict, a second paragraph
    note += space_line(space_controls.COMPARED[family], kind, a, b, ks, options, ids,
                       null=sequential_null, margin=margin, equivalence=equivalence)
    return (note, space_output.shown_compare(table),
            space_output.compare_plot(table, margin, equivalence))


# ----------------------------------------------------------------------------- leaderboard


def run_leaderboard(module: evaluate.EvaluationModule, controls: list[space_controls.Control],
                    boxes: list[tuple[str, str]], uploads: list[str] | None, metric: str,
                    ks_text: str, confidence: Any, *values: Any,
                    filter: str | None = None,  # noqa: A002 - lm-eval's word
                    by: str | None = None):
    """The Leaderboard tab: ``kpass.leaderboard`` of the models; bad input becomes a message.

    Args:
        module: the loaded metric module.
        controls: the Compute tab's controls, whose ``values`` follow (their point options
            apply, as on the Compare tab).
        boxes: ``(name, text)`` of each model box (empty boxes are skipped).
        uploads: paths of uploaded files, one model each (an Inspect log named by its
            model, another file by its file name); with files, boxes still holding the
            example are left out.
        metric: one of the module's compared metrics (``pass@k``, ...).
        ks_text: one k.
        confidence: level of the intervals and of the joint rank sets.
        filter: the lm-eval filter that counts in uploaded lm-eval samples files.
        by: the split-by-column box: uploaded tables holding it give one model per value.

    Returns:
        (message, table, forest plot); on bad input the message is one located line
        ("**Input error:** model 'sft' box, line 3, column 5: ...") and no table.
    """
    return leaderboard_tab.run_board(sys.modules[__name__], module, controls, boxes, uploads,
                                     metric, ks_text, confidence, *values, filter=filter,
                                     by=by)


# ----------------------------------------------------------------------------- the page


def comparison_table(module: evaluate.EvaluationModule, a: list[list[int]], b: list[list[int]],
                     ks: list[int], metric: str, confidence: float,
                     margin: float | None = None, equivalence: bool = False) -> pd.DataFrame:
    """The comparison module's flat results for ``metric`` at every k, as the compare table
    (with a ``margin``: the margin's columns, from the module's ``margin=`` results)."""
    claim = {} if margin is None else {"margin": margin, "equivalence": equivalence}
    results = module.compute(predictions1=a, predictions2=b, k=ks, metric=metric,
                             confidence=confidence, **claim)
    from kpass.hf.keywords import COMPARED as MODULE_COMPARED

    template = MODULE_COMPARED[metric][0]
    rows = []
    for k in ks:
        key = template.format(k=k, tau="")
        rows.append({"metric": metric, "k": k, "A": results[f"{key}_a"],
                     "B": results[f"{key}_b"], "A - B": results[f"{key}_difference"],
                     "se": results[f"{key}_se"], "lo": results[f"{key}_lo"],
                     "hi": results[f"{key}_hi"], "p-value": results[f"{key}_p_value"],
                     "P(A better)": results[f"{key}_prob_a_better"],
                     "questions": int(results[f"{key}_questions"])})
        if margin is not None:
            p = results[f"{key}_p_margin"]
            rows[-1].update({"verdict": "shown" if p < 1.0 - confidence else "not shown",
                             "p margin": p, "p margin exact": results[f"{key}_p_margin_exact"]})
    return pd.DataFrame(rows, columns=space_output.COMPARE_COLUMNS if margin is None
                        else space_output.MARGIN_COLUMNS)


def paired_runs(sides: dict[str, list[space_input.Question]], runs: dict[str, list[Any]]
                ) -> tuple[list[Any], list[Any], bool]:
    """Both boxes' outcome lists on the same questions, in box A's order.

    The module pairs its inputs row by row, so the page pairs them first, by the rule
    every surface uses (``kpass.stats.align.align_runs``): by question id when every line
    names one (the Compare tab's check names the box and line of a refusal), else by line.

    Returns:
        A's and B's outcome lists, and whether they were matched by id.
    """
    import kpass
    from kpass.stats.align import align_runs

    found, ids = space_controls.match_ids(sides, space_controls.BOXES)
    if ids is None:
        space_controls.check_paired(found)
        return runs["A"], runs["B"], False
    counts = [kpass.BinaryCounts(own.n_samples, own.n_correct, ids=ids[side])
              for side, own in (("A", kpass.binary_counts(runs["A"])),
                                ("B", kpass.binary_counts(runs["B"])))]
    alignment = align_runs(counts, ["model A", "model B"], verb="")
    return alignment.take(0, runs["A"]), alignment.take(1, runs["B"]), True


def run_comparison_module(module: evaluate.EvaluationModule, text_a: str, text_b: str,
                          ks_text: str, metric: str, confidence: Any, margin: Any = None,
                          equivalence: bool = False):
    """The comparison module's page: parse both boxes, compute, or a located message.

    ``margin`` (empty: none) and ``equivalence`` go to the module (its ``margin=``,
    ``equivalence=``): every k tests "B is not worse than A by more than margin".
    """
    sides: dict[str, list[space_input.Question]] = {"A": [], "B": []}
    side = "A"
    try:
        import kpass

        runs = {}
        for side in ("A", "B"):  # each box alone first, so a bad value names its box and line
            sides[side] = space_input.parse_questions(text_a if side == "A" else text_b,
                                                      ["predictions"], "binary")
            runs[side] = space_input.columns_of(sides[side], ["predictions"])["predictions"]
            kpass.binary_counts(runs[side], name="predictions")
        side = ""
        a, b, by_id = paired_runs(sides, runs)
        level = space_controls.number(confidence, "confidence")
        margin = space_controls.parse_margin(margin)
        equivalence = bool(equivalence)
        if equivalence and margin is None:
            raise ValueError("equivalence needs a margin (the largest |A - B| that counts as "
                             "equivalent, e.g. 0.02)")
        table = within_deadline(comparison_table, module, a, b, parse_ks(ks_text), metric,
                                level, margin, equivalence)
    except (RecursionError, *COMPARE_ERRORS) as error:
        return compare_failure(error, side, sides)
    matched = "matched by question id" if by_id else "in line order"
    if margin is None:
        note = (f"Compared at {stamp()}: {len(a)} paired question(s) ({matched}): A - B "
                "with its SE over questions; P(A better) from the two posteriors.")
    else:
        note = (f"Compared at {stamp()}: {len(a)} paired question(s) ({matched})."
                + space_output.margin_note(table, margin, equivalence, level))
    return (note, space_output.shown_compare(table),
            space_output.compare_plot(table, margin, equivalence))


def build_comparison_demo(module: evaluate.EvaluationModule) -> gr.Blocks:
    """The page of a comparison module (``kpass_compare``): two models, one metric, every k."""
    return space_page.build_comparison_page(sys.modules[__name__], module)


def build_demo(script: Path | None = None, module: evaluate.EvaluationModule | None = None
               ) -> gr.Blocks:
    """The Blocks page for one metric script (or an already loaded module).

    A comparison module (``module_type == "comparison"``) gets its own page
    (:func:`build_comparison_demo`). Serve it with ``.launch(css=space_output.CSS)``: gradio
    takes page styles at launch.
    """
    if module is None:
        script = script or find_metric_script()
        module = evaluate.load(str(script))
    if module.module_type == "comparison":
        return build_comparison_demo(module)
    return space_page.build_page(sys.modules[__name__], module)


def main() -> None:
    """Serve the demo (``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` choose the address)."""
    demo = build_demo()
    demo.launch(css=space_output.CSS)


if __name__ == "__main__":
    main()
