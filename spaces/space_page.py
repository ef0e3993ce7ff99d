"""The Space's page: the Blocks of a metric module (Compute, Compare, Leaderboard, Plan)
and of the comparison module.

Shipped beside ``app.py`` (``spaces/build.py`` copies it) and loaded by it as one of its
modules. The page functions take ``app``, the page's module, and call what it defines through
it (``app.run``, ``app.run_compare``), so what the page does stays in one place and can be
replaced there; the controls, texts and formulas come from the modules that define them.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import evaluate
import gradio as gr
import pandas as pd

from .leaderboard_tab import build_tab
from .plan_tab import build_tab as build_plan_tab
from .space_controls import (
    COMPARED,
    EXAMPLE_K,
    control_value,
    input_names,
    module_controls,
    module_family,
    module_kind,
    uses_k,
)
from .space_output import (
    COMPARE_COLUMNS,
    COMPARE_HELP,
    LATEX,
    UPLOAD_HELP,
    formulas,
    input_help,
    scroll_js,
)


def parameter_widget(control: Any) -> Any:
    """A page control for one option, showing its default."""
    elem_id, value = f"kpass-param-{control.name}", control_value(control)
    info = control.help or None
    if control.kind == "number":
        return gr.Number(value=value, label=f"{control.name} (default {value:g})", info=info,
                         elem_id=elem_id, min_width=140)
    if control.kind == "choice":
        return gr.Radio(list(control.choices), value=value, info=info, elem_id=elem_id,
                        label=f"{control.name} (default {control.default})", min_width=140)
    return gr.Textbox(value=value, label=control.name, info=info, elem_id=elem_id,
                      placeholder="default", min_width=140)


def margin_widgets() -> tuple[Any, Any]:
    """The Compare tab's margin box (empty: no margin) and its equivalence checkbox."""
    margin = gr.Textbox(value="", label="margin (empty: none)", placeholder="e.g. 0.02",
                        info="B not worse than A by more than this",
                        elem_id="kpass-compare-margin", min_width=160)
    equivalence = gr.Checkbox(value=False, label="equivalence: |A - B| < margin",
                              elem_id="kpass-compare-equivalence", min_width=160)
    return margin, equivalence


def build_comparison_page(app: ModuleType, module: evaluate.EvaluationModule) -> gr.Blocks:
    """The page of a comparison module (``kpass_compare``): two models, one metric, every k.

    Args:
        app: the page's module (``spaces/app.py``), whose functions the page calls.
        module: the loaded comparison module.
    """
    from kpass.hf.keywords import COMPARED as MODULE_COMPARED

    summary = " ".join((module.description or "").split("\n\n")[0].split())
    metrics = [name for name in MODULE_COMPARED if "{tau}" not in MODULE_COMPARED[name][0]]
    first, second = app.example_pair()
    with gr.Blocks(title=f"{module.name} (kpass)") as demo:
        gr.Markdown(f"## {module.name}\n{summary} Opens on trials 1-2 against trials 3-4 of "
                    "the tau-bench airline sample (one model twice: the difference should lie "
                    "within its interval).", elem_id="kpass-header")
        with gr.Row(equal_height=False, elem_id="kpass-compare-main"):
            with gr.Column(scale=4, min_width=300):
                text_a = gr.Textbox(value=first, lines=6, max_lines=6, label="Model A",
                                    info=input_help("binary", ["predictions"]),
                                    elem_id="kpass-compare-a")
                text_b = gr.Textbox(value=second, lines=6, max_lines=6, label="Model B",
                                    elem_id="kpass-compare-b")
                with gr.Row():
                    ks = gr.Textbox(value="1, 2", label="k values", min_width=120, scale=2,
                                    elem_id="kpass-compare-k")
                    button = gr.Button("Compare", variant="primary", min_width=100, scale=1,
                                       elem_id="kpass-compare-run")
                message = gr.Markdown(elem_id="kpass-compare-message")
                with gr.Row():
                    metric = gr.Dropdown(metrics, value="pass@k", label="metric (default pass@k)")
                    confidence = gr.Number(value=0.95, label="confidence (default 0.95)")
                with gr.Row():
                    margin, equivalence = margin_widgets()
                gr.Markdown(app.LIMITS, elem_id="kpass-limits")
            with gr.Column(scale=7, min_width=300):
                table = gr.Dataframe(value=pd.DataFrame(columns=COMPARE_COLUMNS),
                                     label="A - B on the same questions", interactive=False,
                                     elem_id="kpass-compare-table", max_height=300, wrap=True)
                figure = gr.Plot(label="A - B against k, with its interval",
                                 elem_id="kpass-compare-plot")

        def compare(*args: Any):
            return app.run_comparison_module(module, *args)

        inputs = [text_a, text_b, ks, metric, confidence, margin, equivalence]
        button.click(compare, inputs, [message, table, figure]).then(
            None, js=scroll_js("kpass-compare-message", "kpass-compare-table"))
        demo.load(compare, inputs, [message, table, figure])
    return demo


def build_page(app: ModuleType, module: evaluate.EvaluationModule) -> gr.Blocks:
    """The page of a metric module: its Compute, Compare and Leaderboard tabs and formulas.

    Args:
        app: the page's module (``spaces/app.py``), whose functions the tabs call.
        module: the loaded metric module.
    """
    name, kind, names = module.name, module_kind(module), input_names(module)
    controls = module_controls(module)
    summary = " ".join((module.description or "").split("\n\n")[0].split())
    with gr.Blocks(title=f"{name} (kpass)") as demo:
        gr.Markdown(f"## {name}\n{summary} Opens on the tau-bench airline sample (50 tasks x "
                    "4 trials of GPT-4o).", elem_id="kpass-header")
        with gr.Tabs():
            with gr.Tab("Compute", elem_id="kpass-tab-compute"):
                with gr.Row(equal_height=False, elem_id="kpass-main"):
                    with gr.Column(scale=4, min_width=300):
                        text = gr.Textbox(value=app.example_text(kind), lines=7, max_lines=7,
                                          label=f"Outcomes ({' | '.join(names)})",
                                          info=input_help(kind, names), elem_id="kpass-input")
                        upload = gr.File(label="...or upload a CSV / JSONL file (used instead)",
                                         file_types=[".csv", ".jsonl", ".json", ".txt",
                                                     ".eval"], height=120,
                                         elem_id="kpass-upload")
                        with gr.Row():
                            ks = gr.Textbox(value=EXAMPLE_K, label="k values",
                                            visible=uses_k(module), elem_id="kpass-k",
                                            min_width=120, scale=2)
                            button = gr.Button("Compute", variant="primary", elem_id="kpass-run",
                                               min_width=100, scale=1)
                        message = gr.Markdown(elem_id=app.MESSAGE_ID)
                        with gr.Accordion("Options (defaults shown)", open=True):
                            with gr.Row():
                                widgets = [parameter_widget(c) for c in controls]
                            example = gr.Button("Reload the tau-bench example", size="sm",
                                                elem_id="kpass-example")
                        gr.Markdown(f"{UPLOAD_HELP}\n\n{app.LIMITS}", elem_id="kpass-limits")
                    with gr.Column(scale=7, min_width=300):
                        table = gr.Dataframe(value=app.empty_table(), label="Results",
                                             interactive=False, elem_id="kpass-table",
                                             max_height=330, wrap=True)
                        plot = gr.Plot(label="Each metric against k, with its credible band",
                                       elem_id="kpass-plot")
            with gr.Tab("Compare two models", elem_id="kpass-tab-compare",
                        visible=module_family(module) in COMPARED):
                comparable = module_family(module) in COMPARED
                pair = app.example_pair(kind) if comparable else ("", "")
                with gr.Row(equal_height=False, elem_id="kpass-compare-main"):
                    with gr.Column(scale=4, min_width=300):
                        with gr.Row():
                            text_a = gr.Textbox(value=pair[0], lines=6, max_lines=6,
                                                label="Model A", elem_id="kpass-compare-a",
                                                min_width=140)
                            text_b = gr.Textbox(value=pair[1], lines=6, max_lines=6,
                                                label="Model B", elem_id="kpass-compare-b",
                                                min_width=140)
                        with gr.Row():
                            margin, equivalence = margin_widgets()
                        sequential_null = gr.Radio(
                            ["exchangeable", "bounded"], value="exchangeable",
                            label="sequential null (default exchangeable)",
                            info="what the sequential verdict assumes: A and B exchangeable "
                                 "on each question, or bounded differences only (slower)",
                            elem_id="kpass-compare-null")
                        with gr.Row():
                            compare_ks = gr.Textbox(value="1, 2", label="k values",
                                                    visible=uses_k(module), min_width=120,
                                                    scale=2, elem_id="kpass-compare-k")
                            compare_button = gr.Button("Compare", variant="primary",
                                                       elem_id="kpass-compare-run",
                                                       min_width=100, scale=1)
                        compare_message = gr.Markdown(elem_id="kpass-compare-message")
                        gr.Markdown(COMPARE_HELP, elem_id="kpass-compare-help")
                    with gr.Column(scale=7, min_width=300):
                        compare_table = gr.Dataframe(
                            value=pd.DataFrame(columns=COMPARE_COLUMNS), label="A against B",
                            interactive=False, elem_id="kpass-compare-table", max_height=300,
                            wrap=True)
                        compare_figure = gr.Plot(label="A - B against k, with its interval",
                                                 elem_id="kpass-compare-plot")
            if module_family(module) in COMPARED:
                build_tab(app, demo, module, controls, widgets)
            build_plan_tab(app, demo)
        gr.Markdown(formulas(module_family(module)), latex_delimiters=LATEX,
                    elem_id="kpass-formulas")

        def compute(*args: Any):
            return app.run(module, controls, *args)

        inputs = [text, upload, ks, *widgets]
        outputs = [message, table, plot]
        button.click(compute, inputs, outputs).then(
            None, js=scroll_js(app.MESSAGE_ID, "kpass-table"))
        upload.upload(compute, inputs, outputs)
        upload.clear(compute, inputs, outputs)
        example.click(lambda: (app.example_text(kind), None, EXAMPLE_K), None,
                      [text, upload, ks]).then(compute, inputs, outputs)
        demo.load(compute, inputs, outputs)
        if module_family(module) in COMPARED:
            def compare(text_a: str, text_b: str, ks: str, margin: Any, equivalence: bool,
                        null: str, *values: Any):
                return app.run_compare(module, controls, text_a, text_b, ks, *values,
                                       margin=margin, equivalence=equivalence,
                                       sequential_null=null)

            compare_inputs = [text_a, text_b, compare_ks, margin, equivalence, sequential_null,
                              *widgets]
            compare_outputs = [compare_message, compare_table, compare_figure]
            compare_button.click(compare, compare_inputs, compare_outputs).then(
                None, js=scroll_js("kpass-compare-message", "kpass-compare-table"))
            demo.load(compare, compare_inputs, compare_outputs)
    return demo
