"""The Plan tab of the metric Spaces: how many questions a difference needs, with no data.

Shipped beside ``app.py`` (``spaces/build.py`` copies it) and loaded by it as one of its
modules. The calculator is ``kpass.plan`` without a pilot (the :class:`kpass.Design` that
``kpass plan --baseline ...`` prints); nothing here computes a statistic. Output: the
answer in a sentence, a table of the detectable difference at other numbers of questions,
and that curve drawn.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any

import gradio as gr
import pandas as pd
from matplotlib.figure import Figure

from .space_output import scroll_js

MESSAGE_ID = "kpass-plan-message"
TABLE_ID = "kpass-plan-table"
#: The curve's width in inches, as the other plots' (``space_output.PLOT_WIDTH``).
PLOT_WIDTH = 5.6
#: The most samples per question the tab plans for (each costs O(samples) per step).
MAX_SAMPLES = 1000
PLAN_COLUMNS = ["questions", "detectable", "B then", "power"]
#: Numbers of questions the table and curve show (with the answer among them).
LADDER = (20, 50, 100, 200, 300, 500, 1000, 2000, 5000, 10000)
HELP = (
    "Plans a **paired** comparison of two models on the same questions (the t test `kpass "
    "compare` runs, two-sided). **baseline**: model A's value of the metric (what `kpass "
    "report` prints on many questions); **difference**: B - A, in the metric's units. "
    "**spread**: how unequal the questions are, the sd of their success rates on the logit "
    "scale (default 2.0: fitted to the tau-bench airline sample, where a third of the tasks "
    "were never or always solved; 1 is a benchmark of middling questions). **correlation**: "
    "how much the two models find the same questions hard (0.5 by default, an assumption; "
    "0.9 for two checkpoints of one model). Checked by simulation through `kpass.compare`: "
    "power 0.78-0.82 where 0.80 was promised (docs/statistics.md). The same numbers on the "
    "command line: `kpass plan --baseline 0.6 --difference 0.05 --samples 4`.")


def metric_choices() -> list[tuple[str, str]]:
    """(label shown, point function's name) of every binary credit metric, Pass@k first."""
    from kpass.registry import FAMILIES, names

    credit = set(names(credit=True))
    return [(family.key, family.function) for family in FAMILIES
            if family.function in credit and "{tau}" not in family.title]


def empty_plan() -> pd.DataFrame:
    return pd.DataFrame(columns=PLAN_COLUMNS)


def _number(value: Any, name: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a number; got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"{name}: expected a finite number; got {value!r}")
    return number


def _whole(value: Any, name: str, low: int, high: int) -> int:
    number = _number(value, name)
    if number != int(number) or not low <= number <= high:
        raise ValueError(f"{name}: expected a whole number in [{low}, {high:,}]; got {value!r}")
    return int(number)


def run_plan(metric: str, k: Any, baseline: Any, difference: Any, samples: Any, spread: Any,
             correlation: Any, power: Any, confidence: Any
             ) -> tuple[str, pd.DataFrame, Figure | None]:
    """The tab's computation: (message, table, curve); bad input becomes a message.

    Args:
        metric: a key of :func:`metric_choices` (``pass@k``).
        k, baseline, difference, samples, spread, correlation, power, confidence: the
            boxes, as :func:`kpass.plan` takes them without a pilot.
    """
    import kpass
    from kpass.families import function

    functions = dict(metric_choices())
    try:
        if metric not in functions:
            raise ValueError(f"metric: expected one of {', '.join(functions)}; got {metric!r}")
        n = _whole(samples, "samples", 1, MAX_SAMPLES)
        design = kpass.plan(function(functions[metric]), k=_whole(k, "k", 1, n),
                            baseline=_number(baseline, "baseline"),
                            difference=_number(difference, "difference"), samples=n,
                            spread=_number(spread, "spread"),
                            correlation=_number(correlation, "correlation"),
                            power=_number(power, "power"),
                            confidence=_number(confidence, "confidence"))
        assert isinstance(design, kpass.Design)
        ladder = sorted({*LADDER, design.questions})
        rows = []
        for m in ladder:
            try:
                detectable = design.detectable(m)
            except ValueError:
                continue  # too few questions to detect any improvement
            rows.append((m, detectable, design.baseline + detectable,
                         design.power_at(m)))
    except (TypeError, ValueError) as error:
        message = str(error).replace("`", "")
        return f"**Input error:** {message}", empty_plan(), None
    table = pd.DataFrame(
        [[f"{m:,}" + (" (yours)" if m == design.questions else ""), f"{d:.3f}", f"{b:.3f}",
          f"{p:.0%}"] for m, d, b, p in rows], columns=PLAN_COLUMNS)
    message = (f"**{design.questions:,} questions** detect {design.label} "
               f"{design.baseline:.3f} vs {design.baseline + design.difference:.3f} "
               f"(difference {design.difference:+.3f}) with {design.power:.0%} power at "
               f"{design.confidence:.0%} confidence, {design.samples} samples per question "
               f"and model. A question's difference has sd {design.sd:.3f}.")
    return message, table, curve(design, rows)


def curve(design: Any, rows: list[tuple[int, float, float, float]]) -> Figure:
    """The detectable difference against the number of questions (log scale), yours marked.

    No title: the page's label badge sits over the figure's top left (the legend says the
    power and confidence).
    """
    figure = Figure(figsize=(PLOT_WIDTH, 3.2))
    axes = figure.subplots()
    axes.plot([r[0] for r in rows], [r[1] for r in rows], "o-", color="tab:blue",
              markersize=4, label=f"detectable ({design.power:.0%} power, "
                                  f"{design.confidence:.0%} confidence)")
    axes.axhline(abs(design.difference), color="tab:gray", linestyle="--", linewidth=1)
    axes.plot([design.questions], [abs(design.difference)], "o", color="tab:red", markersize=8,
              label=f"{design.questions:,} questions: {abs(design.difference):.3f}")
    axes.set_xscale("log")
    axes.set_xlabel("questions")
    axes.set_ylabel(f"difference in {design.label}")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8, loc="upper right")
    figure.tight_layout()
    return figure


def run_tab(app: ModuleType, *values: Any) -> tuple[str, pd.DataFrame, Figure | None]:
    """:func:`run_plan` with the time in its message (``Planned at 09:14:03 UTC: ...``).

    The page opens already planned, so pressing Plan on the same numbers changes nothing
    else: the time says that it ran (as the other tabs' messages do).
    """
    message, table, figure = run_plan(*values)
    if figure is not None:
        message = f"Planned at {app.stamp()}: {message}"
    return message, table, figure


def build_tab(app: ModuleType, demo: gr.Blocks) -> None:
    """The Plan tab, inside the page's ``gr.Tabs`` (computed when the page opens)."""
    choices = [key for key, _ in metric_choices()]
    with gr.Tab("Plan", elem_id="kpass-tab-plan"):
        with gr.Row(equal_height=False, elem_id="kpass-plan-main"):
            with gr.Column(scale=4, min_width=300):
                with gr.Row():
                    metric = gr.Dropdown(choices, value=choices[0], label="metric",
                                         min_width=110, elem_id="kpass-plan-metric")
                    k = gr.Number(value=1, label="k", precision=0, min_width=70,
                                  elem_id="kpass-plan-k")
                    samples = gr.Number(value=4, label="samples", precision=0,
                                        min_width=110, elem_id="kpass-plan-samples")
                with gr.Row():
                    baseline = gr.Number(value=0.6, label="baseline (A)", min_width=110,
                                         elem_id="kpass-plan-baseline")
                    difference = gr.Number(value=0.05, label="difference (B - A)",
                                           min_width=110, elem_id="kpass-plan-difference")
                with gr.Row():
                    spread = gr.Number(value=2.0, label="spread (default 2.0)", min_width=110,
                                       elem_id="kpass-plan-spread")
                    correlation = gr.Number(value=0.5, label="correlation (default 0.5)",
                                            min_width=110, elem_id="kpass-plan-correlation")
                with gr.Row():
                    power = gr.Number(value=0.8, label="power (default 0.8)", min_width=110,
                                      elem_id="kpass-plan-power")
                    confidence = gr.Number(value=0.95, label="confidence (default 0.95)",
                                           min_width=110, elem_id="kpass-plan-confidence")
                button = gr.Button("Plan", variant="primary", elem_id="kpass-plan-run")
            with gr.Column(scale=7, min_width=300):
                message = gr.Markdown(elem_id=MESSAGE_ID)
                table = gr.Dataframe(value=empty_plan(), label="By number of questions: the "
                                     "smallest difference B - A detected (detectable), B's "
                                     "value then, and the power at your difference",
                                     interactive=False, elem_id=TABLE_ID, max_height=480,
                                     wrap=True)
                plot = gr.Plot(label="Detectable difference against questions",
                               elem_id="kpass-plan-plot")
                gr.Markdown(HELP, elem_id="kpass-plan-help")
    inputs = [metric, k, baseline, difference, samples, spread, correlation, power, confidence]
    outputs = [message, table, plot]
    def plan(*values: Any):
        return run_tab(app, *values)

    button.click(plan, inputs, outputs).then(None, js=scroll_js(MESSAGE_ID, TABLE_ID))
    demo.load(plan, inputs, outputs)
