r"""What a harness wrote about a run: model, settings, harness and version, date, samples, tokens.

Inspect AI, lm-evaluation-harness and lighteval record the run beside its scores; kpass
carries it into ``kpass report``'s header (one line per input), the JSON output (a
``run`` object per input), ``kpass compare`` (one line per side) and the leaderboard.
One record, :class:`RunInfo`, read by :func:`run_info` from:

``inspect``
    the log's header (``eval.model``, ``eval.model_generate_config`` (the settings given),
    ``eval.task``, ``eval.created``, ``eval.packages["inspect_ai"]``, ``eval.config.epochs``,
    ``status``, ``results.total_samples``, ``stats.model_usage``); a log of a run in
    progress has no stats yet: its tokens are the sum of the per-sample ``model_usage`` of
    the samples read (:class:`~kpass.io.harness.inspect_log.InspectFile`'s ``usage``).
``lm-eval``
    the ``results_<date>.json`` written beside a ``samples_<task>_<date>.jsonl`` (same
    date; else the one results file of the folder that names the task): ``config.model``
    and ``config.model_args`` (``pretrained=``), ``config.gen_kwargs`` (else the task's
    ``generation_kwargs``), ``lm_eval_version``, ``date`` (a Unix time), ``n-samples`` and
    the task's ``repeats``. A samples file alone says none of this (None).
``lighteval``
    the ``results_<date>.json`` beside a ``details_<task>_<date>.parquet``:
    ``config_general.model_name`` and ``model_config.generation_parameters`` (those set),
    the date of the file name. lighteval records no token usage and no version (its
    ``lighteval_sha``, when not ``?``, is given as the version).

Every field is optional (None where the harness did not write it); nothing is guessed.

Example:
    >>> RunInfo(harness="inspect", harness_version="0.3.285", model="mockllm/model-a",
    ...         date="2026-11-27T22:16:30+00:00", total_samples=24, total_tokens=1176).line()
    'model mockllm/model-a; inspect 0.3.285; 2026-11-27; 24 samples; 1.2k tokens'
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["RunInfo", "run_info", "run_model", "runs_line", "short_count"]


@dataclass(frozen=True)
class RunInfo:
    """A run as its harness recorded it (None: not recorded).

    Attributes:
        harness: ``inspect``, ``lm-eval`` or ``lighteval``.
        harness_version: the harness's version (``0.3.285``).
        model: the model (``openai/gpt-4o``; lm-eval ``hf/<pretrained>``).
        task: the task (Inspect's ``eval.task``; lm-eval's task name).
        date: when the run started, ISO 8601.
        status: Inspect's ``status`` (``success``, ``started`` ...).
        total_samples: samples the run scored (Inspect: samples x epochs; lm-eval:
            documents x repeats).
        epochs: samples per question the run was set to (Inspect ``epochs``, lm-eval
            ``repeats``).
        generate: the generation settings given (only those set: ``temperature``...).
        input_tokens: input tokens over the run, summed over its models.
        output_tokens: output tokens over the run.
        total_tokens: all tokens over the run (the harness's total; input + output where
            it gives no total).
    """

    harness: str
    harness_version: str | None = None
    model: str | None = None
    task: str | None = None
    date: str | None = None
    status: str | None = None
    total_samples: int | None = None
    epochs: int | None = None
    generate: dict[str, Any] = field(default_factory=dict)
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields (the ``run`` object of the JSON outputs)."""
        return asdict(self)

    def line(self) -> str:
        """One short line: model, harness and version, date, samples, tokens (those known).

        Example:
            >>> RunInfo(harness="lm-eval", harness_version="0.4.13", model="dummy",
            ...         generate={"temperature": 0.7}).line()
            'model dummy; lm-eval 0.4.13; temperature 0.7'
        """
        parts = [f"model {self.model}"] if self.model else []
        parts.append(f"{self.harness} {self.harness_version}" if self.harness_version
                     else self.harness)
        if self.date:
            parts.append(self.date[:10])
        if self.status and self.status != "success":
            parts.append(f"status {self.status}")
        if self.total_samples is not None:
            parts.append(f"{self.total_samples} sample{'s' * (self.total_samples != 1)}")
        for name in ("temperature", "top_p", "max_tokens", "seed"):
            if name in self.generate:
                parts.append(f"{name} {self.generate[name]}")
        if self.total_tokens is not None:
            parts.append(f"{short_count(self.total_tokens)} tokens")
        return "; ".join(parts)


def short_count(number: int) -> str:
    """A token count as people write it: 950, 1.2k, 3.4M, 1.1G.

    Example:
        >>> [short_count(n) for n in (950, 1176, 34_000_000, 1_100_000_000)]
        ['950', '1.2k', '34M', '1.1G']
    """
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if number >= size:
            return f"{number / size:.2g}{suffix}" if number < 10 * size else \
                f"{number / size:.0f}{suffix}"
    return str(number)


def runs_line(runs: list[RunInfo | None]) -> str | None:
    """One line of what several runs share (a leaderboard's head), or None if none recorded.

    The harness (and version) when one for all, the dates (one, or first to last), the
    samples when equal: ``runs: inspect 0.3.285; 2026-11-28; 24 samples each``.

    Example:
        >>> a = RunInfo("inspect", "0.3.285", date="2026-11-27T10:00", total_samples=24)
        >>> b = RunInfo("inspect", "0.3.285", date="2026-11-28T09:00", total_samples=24)
        >>> runs_line([a, b])
        'runs: inspect 0.3.285; 2026-11-27 to 2026-11-28; 24 samples each'
    """
    known = [run for run in runs if run is not None]
    if not known:
        return None
    parts = []
    tools = {(run.harness, run.harness_version) for run in known}
    if len(tools) == 1:
        tool, version = tools.pop()
        parts.append(f"{tool} {version}" if version else tool)
    else:
        parts.append(", ".join(sorted({run.harness for run in known})))
    dates = sorted({run.date[:10] for run in known if run.date})
    if dates:
        parts.append(dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}")
    samples = {run.total_samples for run in known}
    if len(samples) == 1 and None not in samples:
        parts.append(f"{samples.pop()} samples each")
    if len(known) < len(runs):
        parts.append(f"{len(runs) - len(known)} of {len(runs)} files without a record")
    return "runs: " + "; ".join(parts)


def run_info(source: str, loaded: Any = None) -> RunInfo | None:
    """The run recorded with ``source`` (an Inspect log, lm-eval or lighteval file), or None.

    Args:
        source: an input file as given to kpass.
        loaded: its :class:`~kpass.io.formats.readers.LoadedFile` when read (an Inspect
            log's per-sample token usage, for a log with no stats yet).

    Returns:
        The record, or None for a file whose harness records nothing kpass finds (a plain
        table, an lm-eval samples file without its results file). Never raises for a
        malformed record: what cannot be read is left None.
    """
    from .inspect_files import is_inspect_log

    try:
        if is_inspect_log(source):
            return _inspect(source, loaded)
        name = Path(source).name
        if name.startswith("samples_") and name.endswith(".jsonl"):
            return _lm_eval(Path(source))
        if name.startswith("details_") and name.endswith(".parquet"):
            return _lighteval(Path(source))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return None


def run_model(source: str) -> str | None:
    """The model a harness file records (Inspect ``eval.model``, lm-eval's, lighteval's).

    The label of a file read as one model of several (``--by model`` on a folder of
    harness logs); None where the file records none (a plain table, an lm-eval samples
    file without its results file).

    Example:
        >>> run_model("README.md") is None
        True
    """
    run = run_info(source)
    return None if run is None else run.model


def _settings(config: Any) -> dict[str, Any]:
    """The generation settings that were set (not None, not empty), JSON-safe."""
    if config is None:
        return {}
    if hasattr(config, "model_dump"):
        config = config.model_dump(exclude_none=True)
    if not isinstance(config, dict):
        return {}
    return {str(key): value for key, value in config.items()
            if value is not None and value != {} and value != []
            and isinstance(value, (str, int, float, bool, list, dict))}


def _inspect(source: str, loaded: Any) -> RunInfo:
    from ..errors import ReportError
    from .inspect_log import _header

    try:
        header = _header(source)
    except ReportError:
        raise ValueError(source) from None
    spec = header.eval
    usage = dict(getattr(header.stats, "model_usage", None) or {}) if header.stats else {}
    tokens: list[int | None] = [None, None, None]
    if usage:
        for index, name in enumerate(("input_tokens", "output_tokens", "total_tokens")):
            tokens[index] = int(sum(int(getattr(item, name) or 0) for item in usage.values()))
    elif getattr(loaded, "usage", None) is not None:
        sums = loaded.usage.sum(axis=0)
        tokens = [int(sums[0]), int(sums[1]), int(sums[2])]
    samples = None
    if header.results is not None:
        samples = int(header.results.total_samples)
    elif loaded is not None:
        samples = int(loaded.counts.n_samples.sum())
    packages = getattr(spec, "packages", None) or {}
    epochs = getattr(spec.config, "epochs", None)
    return RunInfo(harness="inspect", harness_version=packages.get("inspect_ai"),
                   model=str(spec.model),
                   task=str(spec.task), date=str(spec.created), status=str(header.status),
                   total_samples=samples, epochs=None if epochs is None else int(epochs),
                   generate=_settings(getattr(spec, "model_generate_config", None)),
                   input_tokens=tokens[0], output_tokens=tokens[1], total_tokens=tokens[2])


_STAMP = re.compile(r"_(\d{4}-\d{2}-\d{2}T[\d:.\-]+)\.(?:jsonl|parquet)$")


def _stamp(path: Path) -> str | None:
    """The date part of ``samples_<task>_<date>.jsonl`` / ``details_<task>_<date>.parquet``."""
    match = _STAMP.search(path.name)
    return match.group(1) if match else None


def _results_file(path: Path, task: str | None, key: str) -> dict[str, Any] | None:
    """The ``results_<date>.json`` beside ``path``: same date, else the one naming ``task``."""
    stamp = _stamp(path)
    if stamp is not None:
        twin = path.with_name(f"results_{stamp}.json")
        if twin.is_file():
            return dict(json.loads(twin.read_text(encoding="utf-8")))
    found = []
    for candidate in sorted(path.parent.glob("results_*.json")):
        try:
            document = json.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(document, dict) and task is not None and task in (
                document.get(key) or {}):
            found.append(document)
    return found[0] if len(found) == 1 else None


def _lm_eval_task(path: Path) -> str | None:
    stamp = _stamp(path)
    if stamp is None:
        return None
    return path.name[len("samples_"):-len(f"_{stamp}.jsonl")] or None


def _lm_eval(path: Path) -> RunInfo | None:
    task = _lm_eval_task(path)
    document = _results_file(path, task, "configs")
    if document is None:
        return None
    config = document.get("config") or {}
    args = config.get("model_args") or {}
    if isinstance(args, str):  # "pretrained=gpt2,dtype=float32"
        args = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    model = config.get("model")
    pretrained = args.get("pretrained") or args.get("model")
    if pretrained:
        model = f"{model}/{pretrained}" if model else str(pretrained)
    task_config = (document.get("configs") or {}).get(task) or {}
    generate = _settings(config.get("gen_kwargs")) or _settings(
        task_config.get("generation_kwargs"))
    counted = (document.get("n-samples") or {}).get(task) or {}
    repeats = task_config.get("repeats")
    documents = counted.get("effective")
    samples = None if documents is None else int(documents) * int(repeats or 1)
    date = document.get("date")
    when = (_dt.datetime.fromtimestamp(float(date), _dt.timezone.utc).isoformat(
        timespec="seconds") if isinstance(date, (int, float)) else None)
    return RunInfo(harness="lm-eval", harness_version=document.get("lm_eval_version"),
                   model=None if model is None else str(model), task=task, date=when,
                   total_samples=samples, epochs=None if repeats is None else int(repeats),
                   generate=generate)


def _lighteval(path: Path) -> RunInfo | None:
    stamp = _stamp(path)
    task = None
    if stamp is not None:
        task = path.name[len("details_"):-len(f"_{stamp}.parquet")] or None
    document = _results_file(path, task, "config_tasks")
    if document is None:
        return None
    head, _, shots = (task or "").rpartition("_")  # kp_pass_0 is task `kp_pass|0`
    if f"{head}|{shots}" in (document.get("config_tasks") or {}):
        task = f"{head}|{shots}"
    general = document.get("config_general") or {}
    model_config = general.get("model_config") or {}
    sha = general.get("lighteval_sha")
    date = None
    if stamp is not None:  # 2026-11-26T06-11-57.073340: the time's dashes are colons
        day, _, time = stamp.partition("T")
        date = f"{day}T{time.split('.')[0].replace('-', ':')}"
    return RunInfo(harness="lighteval", harness_version=None if sha in (None, "?") else str(sha),
                   model=general.get("model_name") or model_config.get("model_name"),
                   task=task, date=date,
                   generate=_settings(model_config.get("generation_parameters")))
