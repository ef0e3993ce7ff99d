"""Hub Space demo shared by every kpass metric module.

The same file is copied into each Space next to the metric script
``<name>.py``; the app finds that script beside itself (or takes
``KPASS_METRIC``: a script path, a folder or a name under ``metrics/``),
loads it with ``evaluate.load`` and computes everything through it. No metric
math lives here: the app only parses input, calls ``module.compute`` and lays
out what comes back.

Run locally with ``python app.py``; the server honours ``GRADIO_SERVER_NAME``
and ``GRADIO_SERVER_PORT`` (Spaces set them).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import evaluate
import gradio as gr
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

HERE = Path(__file__).resolve().parent
NOT_SCRIPTS = {"app.py", "setup.py", "conftest.py"}
# Key suffixes of a metric module's flat result dict, in table order.
SUFFIXES = {"_mu": "posterior mean", "_sigma": "sd", "_lo": "lower", "_hi": "upper"}
COLUMNS = ["metric", "k", "estimate", "posterior mean", "sd", "lower", "upper"]
# Field names accepted in JSONL objects and CSV headers, per input.
ALIASES = {"predictions": ("outcomes", "answers", "samples", "scores", "rewards"),
           "references": ("reference", "ground_truth", "gold", "answer"),
           "R0": ("prior", "prior_outcomes")}
MESSAGE_ID = "kpass-message"
COMPUTE_LOCK = threading.Lock()


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


# Page controls per kind of module, then extras per family (the keyword vocabulary
# itself, its checks and its meaning live in kpass; this only chooses what to show).
CONTROLS = {
    "binary": ("confidence", "alpha0", "beta0", "bounds"),
    "categorical": ("w", "confidence", "bounds"),
    "answers": ("confidence", "prior", "ties", "bounds"),
}
FAMILY_CONTROLS = {
    "g_pass_at_k_bayes": ("tau",),
    "geo_spectrum_bayes": ("lam", "weights", "pass_power", "unanimous_power"),
}
WITHOUT_K = ("bayes_at_n", "avg_at_n_bayes")
DEFAULTS: dict[str, Any] = {
    "confidence": 0.95, "alpha0": 1.0, "beta0": 1.0, "prior": 1.0, "pass_power": 0.5,
    "unanimous_power": 0.5, "w": [0, 1], "ties": "fractional", "bounds": None, "tau": None,
    "lam": None, "weights": None,
}
NUMBERS = ("confidence", "alpha0", "beta0", "prior", "pass_power", "unanimous_power")
SCALAR_OR_LIST = ("tau", "lam")
EXAMPLE_K = "1, 2, 3, 4"


@dataclass(frozen=True)
class Parameter:
    """A keyword option of the module shown on the page, with the default it shows."""

    name: str
    default: Any
    help: str = ""


def module_family(module: evaluate.EvaluationModule) -> str:
    """The module's family name (its script name for a non-kpass module)."""
    return getattr(module, "family", "") or module.name


def module_kind(module: evaluate.EvaluationModule) -> str:
    """``binary``, ``categorical`` or ``answers``: what one question's outcomes are."""
    kind = getattr(module, "kind", "")
    if kind:
        return kind
    return "answers" if "references" in input_names(module) else "binary"


def module_parameters(module: evaluate.EvaluationModule) -> list[Parameter]:
    """The options the page offers for this module, defaulting to its load-time options."""
    try:
        from kpass.hf.vocabulary import KEYWORDS
    except ImportError:  # a module outside kpass: no descriptions
        KEYWORDS = {}
    loaded = dict(getattr(module, "options", {}) or {})
    names = CONTROLS.get(module_kind(module), ()) + FAMILY_CONTROLS.get(module_family(module), ())
    return [Parameter(name, loaded.get(name, DEFAULTS.get(name)), KEYWORDS.get(name, ""))
            for name in names]


def uses_k(module: evaluate.EvaluationModule) -> bool:
    """Whether the module's results are indexed by a sample budget k."""
    return module_family(module) not in WITHOUT_K


def input_names(module: evaluate.EvaluationModule) -> list[str]:
    """Names of the module's input columns, in declaration order."""
    features = module.features
    if isinstance(features, list):
        features = features[0]
    return list(features)


# ----------------------------------------------------------------------------- input


def parse_token(token: str, kind: str) -> Any:
    """An outcome as typed: a string for answers, else an int or a float (the module checks it)."""
    text = token.strip()
    if kind == "answers":
        return text.strip("\"'")
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _values(part: str, kind: str, number: int) -> list[Any]:
    if part.startswith("["):
        try:
            values = json.loads(part)
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: not a valid list ({error.msg})") from None
    else:
        values = [parse_token(t, kind) for t in re.split(r"[,\s;]+", part) if t.strip()]
    if not values:
        raise ValueError(f"line {number}: no outcomes")
    return values


def _from_record(record: dict[str, Any], number: int, names: list[str]) -> dict[str, Any]:
    row = {}
    for name in names:
        for key in (name, *ALIASES.get(name, ())):
            if key in record:
                row[name] = record[key]
                break
    if "predictions" not in row:
        raise ValueError(f"line {number}: no outcomes field (predictions or outcomes) in "
                         f"{sorted(record)}")
    return row


def parse_line(line: str, number: int, names: list[str], kind: str) -> dict[str, Any]:
    """One question: a JSON object or list, or values split by commas/spaces, ``|`` for more."""
    line = line.strip()
    if line.startswith("{"):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number}: not valid JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise ValueError(f"line {number}: expected a JSON object")
        return _from_record(record, number, names)
    parts = [part.strip() for part in line.split("|")]
    if len(parts) > len(names):
        raise ValueError(f"line {number}: expected at most {len(names)} part(s) separated by "
                         f"'|' ({' | '.join(names)}); got {len(parts)}")
    row: dict[str, Any] = {"predictions": _values(parts[0], kind, number)}
    for name, part in zip(names[1:], parts[1:], strict=False):
        row[name] = part.strip("\"'") if name == "references" else _values(part, kind, number)
    return row


def parse_text(text: str, names: list[str], kind: str) -> dict[str, list[Any]]:
    """Pasted or uploaded text -> one list per input column, one entry per question.

    Accepted: one question a line (``1 0 1 1``, ``1,0,1``, ``[1, 0, 1]``, a JSON
    object such as ``{"outcomes": [1, 0]}``; extra columns after ``|``), or a
    whole JSON list of lists. Blank lines and lines starting with ``#`` are skipped.
    """
    text = (text or "").strip()
    if not text:
        raise ValueError("no input: paste one question per line, or upload a CSV/JSONL file")
    if re.match(r"\[\s*\[", text):
        try:
            whole = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"not a valid JSON list of lists ({error.msg})") from None
        lines = [json.dumps(row) for row in whole]
    else:
        lines = text.splitlines()
    rows = [parse_line(line, number, names, kind) for number, line in enumerate(lines, start=1)
            if line.strip() and not line.lstrip().startswith("#")]
    if not rows:
        raise ValueError("no questions found in the input")
    columns: dict[str, list[Any]] = {}
    for name in names:
        present = [name in row for row in rows]
        if name == "predictions" or all(present):
            columns[name] = [row.get(name) for row in rows]
        elif any(present):
            missing = present.index(False) + 1
            raise ValueError(f"`{name}` is given for some questions but not for question "
                             f"{missing}: give it for every question or for none")
    return columns


def csv_to_text(content: str, names: list[str]) -> str:
    """A CSV file -> the line format: named input columns, or one row of outcomes per question."""
    rows = [row for row in csv.reader(io.StringIO(content)) if any(cell.strip() for cell in row)]
    if not rows:
        return ""
    header = [cell.strip() for cell in rows[0]]
    columns = {}
    for name in names:
        found = next((key for key in (name, *ALIASES.get(name, ())) if key in header), None)
        if found is not None:
            columns[name] = header.index(found)
    if "predictions" in columns:
        wanted = list(columns.values())[: len(columns)]
        return "\n".join(" | ".join(row[i].strip() if i < len(row) else "" for i in wanted)
                         for row in rows[1:])
    if all(not re.fullmatch(r"[-+.\deE]+", cell) for cell in header):
        rows = rows[1:]  # a header naming the samples
    return "\n".join(",".join(cell.strip() for cell in row) for row in rows)


def read_upload(path: str | None, names: list[str]) -> str | None:
    """The text of an uploaded file, CSV converted to the line format."""
    if not path:
        return None
    content = Path(path).read_text(encoding="utf-8")
    return csv_to_text(content, names) if path.lower().endswith(".csv") else content


def parse_ks(text: Any) -> list[int]:
    """``"1, 2, 4"`` -> ``[1, 2, 4]``; the module checks the range."""
    tokens = [t for t in re.split(r"[,\s;]+", str(text or "")) if t]
    if not tokens:
        raise ValueError("`k` is empty: enter one or more k values, e.g. 1, 2, 4")
    for token in tokens:
        if not re.fullmatch(r"[+-]?\d+", token):
            raise ValueError(f"`k` must be integers separated by commas; got {token!r}")
    return [int(token) for token in tokens]


def parse_parameter(parameter: Parameter, value: Any) -> Any:
    """A control's value -> the Python value for the module (None: leave the default)."""
    if parameter.name in NUMBERS:
        if value is None or value == "":
            return None
        return float(value)
    text = str(value or "").strip()
    if text in ("", "None", "none", "null", "default"):
        return None
    if parameter.name == "ties":
        return text
    try:
        parsed = json.loads(text if text[0] in "[{" else f"[{text}]")
    except json.JSONDecodeError:
        raise ValueError(f"`{parameter.name}`: cannot read {text!r} (numbers separated by "
                         "commas, or JSON)") from None
    if parameter.name in SCALAR_OR_LIST and isinstance(parsed, list) and len(parsed) == 1:
        return parsed[0]
    return parsed


def parse_options(text: str) -> dict[str, Any]:
    """The free-form options box: a JSON object of any keywords the module accepts."""
    text = (text or "").strip()
    if not text:
        return {}
    try:
        options = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"other options: not a JSON object ({error.msg})") from None
    if not isinstance(options, dict):
        raise ValueError("other options: expected a JSON object such as {\"short\": \"skip\"}")
    return options


# ----------------------------------------------------------------------------- output


def results_table(result: dict[str, Any]) -> pd.DataFrame:
    """The module's flat dict -> one row per metric and k (``<metric>@{k}`` plus suffixes)."""
    rows: dict[str, dict[str, Any]] = {}
    for key, value in result.items():
        if not isinstance(value, (int, float)):
            continue  # per-question lists are not part of the table
        base, column = key, "estimate"
        for suffix, name in SUFFIXES.items():
            if key.endswith(suffix) and key[: -len(suffix)] in result:
                base, column = key[: -len(suffix)], name
                break
        if base not in rows:
            match = re.match(r"^(.*?[@^])(\d+)(.*)$", base)
            label, k = (match[1] + "k" + match[3], int(match[2])) if match else (base, None)
            rows[base] = {"metric": label, "k": k}
        rows[base][column] = float(value)
    return pd.DataFrame(list(rows.values()), columns=COLUMNS)


def results_plot(table: pd.DataFrame):
    """Each metric against k with its credible band; metrics without k as points with intervals."""
    figure, axes = plt.subplots(figsize=(7, 3.8))
    with_k = table[table["k"].notna()]
    for label, group in with_k.groupby("metric", sort=False):
        group = group.sort_values("k")
        ks = group["k"].astype(int).to_numpy()
        line = axes.plot(ks, group["estimate"], marker="o", label=label)[0]
        if group["posterior mean"].notna().all():
            axes.plot(ks, group["posterior mean"], linestyle="--", linewidth=1,
                      color=line.get_color())
        if group["lower"].notna().all():
            axes.fill_between(ks, group["lower"], group["upper"], alpha=0.18,
                              color=line.get_color(), linewidth=0)
            if len(group) == 1:
                axes.errorbar(ks, group["estimate"], capsize=4, color=line.get_color(),
                              yerr=[group["estimate"] - group["lower"],
                                    group["upper"] - group["estimate"]])
    if len(with_k):
        axes.set_xlabel("k")
        axes.xaxis.get_major_locator().set_params(integer=True)
    else:
        labels = list(table["metric"])
        axes.errorbar(range(len(table)), table["estimate"], fmt="o", capsize=6,
                      yerr=[table["estimate"] - table["lower"], table["upper"] - table["estimate"]])
        axes.set_xticks(range(len(table)), labels)
        axes.set_xlim(-1, len(table))
    axes.set_ylabel("estimate (dashed: posterior mean)")
    axes.grid(alpha=0.3)
    if len(with_k):
        axes.legend(loc="best", fontsize="small")
    figure.tight_layout()
    return figure


def shown(table: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """The table as displayed: numbers rounded for reading, k as text."""
    display = table.copy()
    for column in COLUMNS[2:]:
        display[column] = [None if v is None or math.isnan(v) else round(float(v), digits)
                           for v in display[column]]
    display["k"] = ["" if v is None or v != v else str(int(v)) for v in display["k"]]
    return display


# ----------------------------------------------------------------------------- the page


def example_text(kind: str = "binary") -> str:
    """The bundled tau-bench sample (50 tasks x 4 trials of GPT-4o), one task a line.

    For answer-string modules each trial is the answer "1" (solved) or "0", gold "1".
    """
    from kpass.data import tau_bench_outcomes

    lines = [" ".join(str(x) for x in row) for row in tau_bench_outcomes()]
    return "\n".join(f"{line} | 1" for line in lines) if kind == "answers" else "\n".join(lines)


def compute_results(module: evaluate.EvaluationModule, inputs: dict[str, Any],
                    options: dict[str, Any]) -> dict[str, Any]:
    """One stateless computation through the module.

    ``_compute`` validates and counts its inputs and returns the results without
    storing anything, so a failed request leaves nothing behind for the next one.
    """
    with COMPUTE_LOCK:
        return module._compute(**inputs, **options)


def run(module: evaluate.EvaluationModule, parameters: list[Parameter], text: str,
        upload: str | None, ks_text: str, other: str, *values: Any):
    """Compute through the module; any bad input becomes a message, never a traceback."""
    names, kind = input_names(module), module_kind(module)
    try:
        uploaded = read_upload(upload, names)
        inputs = parse_text(uploaded if uploaded is not None else text, names, kind)
        options = {p.name: parse_parameter(p, v) for p, v in zip(parameters, values, strict=True)}
        options = {name: value for name, value in options.items() if value is not None}
        if uses_k(module):
            options["k"] = parse_ks(ks_text)
        options.update(parse_options(other))
        table = results_table(compute_results(module, inputs, options))
    except (ValueError, TypeError, KeyError, UnicodeDecodeError) as error:
        message = str(error).strip().strip("'\"") or type(error).__name__
        message = message.split(" (indices count questions within this batch)")[0]
        return f"**Input error:** {message}", pd.DataFrame(columns=COLUMNS), None
    source = "the uploaded file" if uploaded is not None else "the pasted input"
    note = (f"Computed {len(table)} value(s) over {len(inputs['predictions'])} question(s) "
            f"from {source}.")
    return note, shown(table), results_plot(table)


def input_help(kind: str, names: list[str]) -> str:
    """What one line of input looks like for this kind of module."""
    if kind == "answers":
        return "One question a line: its sampled answers, then | and the gold answer."
    if "R0" in names:
        return ("One question a line: its outcome categories (0, 1, ...); optionally | and "
                "prior outcomes (R0).")
    return "One question a line: its 0/1 outcomes, separated by spaces or commas."


def build_demo(script: Path | None = None) -> gr.Blocks:
    """The Blocks page for one metric script."""
    script = script or find_metric_script()
    module = evaluate.load(str(script))
    name, kind, names = script.stem, module_kind(module), input_names(module)
    parameters = module_parameters(module)
    description = " ".join((module.description or "").split())
    with gr.Blocks(title=f"{name} (kpass)") as demo:
        gr.Markdown(f"# {name}\n\n{description}\n\n"
                    "Opens on the tau-bench airline sample (50 tasks x 4 trials of GPT-4o). "
                    "Paste your own outcomes or upload a CSV / JSONL file.")
        with gr.Row():
            with gr.Column(scale=3):
                text = gr.Textbox(value=example_text(kind), lines=10, max_lines=16,
                                  label=f"Outcomes ({' | '.join(names)})",
                                  info=input_help(kind, names), elem_id="kpass-input")
                upload = gr.File(label="...or upload a CSV / JSONL file (used instead of the text)",
                                 file_types=[".csv", ".jsonl", ".json", ".txt"], height=160,
                                 elem_id="kpass-upload")
            with gr.Column(scale=2):
                ks = gr.Textbox(value=EXAMPLE_K, label="k values", visible=uses_k(module),
                                info="sample budgets, separated by commas", elem_id="kpass-k")
                controls = [parameter_widget(p) for p in parameters]
                other = gr.Textbox(value="", label="other options (JSON object)",
                                   info='e.g. {"short": "skip"}', elem_id="kpass-options")
                with gr.Row():
                    button = gr.Button("Compute", variant="primary", elem_id="kpass-run")
                    example = gr.Button("Load tau-bench example", elem_id="kpass-example")
        message = gr.Markdown(elem_id=MESSAGE_ID)
        table = gr.Dataframe(headers=COLUMNS, label="Results (credible interval: lower, upper)",
                             interactive=False, elem_id="kpass-table")
        plot = gr.Plot(label="Each metric against k, with its credible band", elem_id="kpass-plot")

        def compute(*args: Any):
            return run(module, parameters, *args)

        inputs = [text, upload, ks, other, *controls]
        outputs = [message, table, plot]
        button.click(compute, inputs, outputs)
        example.click(lambda: (example_text(kind), None, EXAMPLE_K), None, [text, upload, ks]
                      ).then(compute, inputs, outputs)
        demo.load(compute, inputs, outputs)
    return demo


def parameter_widget(parameter: Parameter):
    """A page control for one option, showing its default."""
    default, elem_id = parameter.default, f"kpass-param-{parameter.name}"
    if parameter.name in NUMBERS:
        return gr.Number(value=default, label=parameter.name, info=parameter.help,
                         elem_id=elem_id)
    if isinstance(default, (list, tuple)):
        value = ", ".join(str(item) for item in default)
    else:
        value = "" if default is None else str(default)
    return gr.Textbox(value=value, label=parameter.name, info=parameter.help or None,
                      placeholder="default", elem_id=elem_id)


def main() -> None:
    """Serve the demo (``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` choose the address)."""
    build_demo().launch()


if __name__ == "__main__":
    main()
