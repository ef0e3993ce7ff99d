"""The task (subtask) and model a harness file is about: the harness's own grouping.

``kpass report --group task`` on harness files needs no column: each file is one task of
one model, as the harness wrote it.

- An Inspect log: ``eval.task`` and ``eval.model`` of its header (an ``inspect eval-set``
  folder holds one log per task and model).
- An lm-evaluation-harness samples file (``samples_<task>_<date>.jsonl``, one per subtask):
  the task from its name; the model (``model_name``) and the group the subtask belongs to
  (``group_subtasks``) from the run's ``results_<date>.json`` beside it, when present.
- A lighteval details file (``details_<task>_<date>.parquet``): the task from its name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ReportError

__all__ = ["HarnessTask", "harness_task"]

_DATED = re.compile(r"^(?:samples|details)_(?P<task>.+?)_(?P<date>\d{4}-\d\d-\d\dT[\d.:-]+)"
                    r"\.(?:jsonl|json|parquet)$")


@dataclass(frozen=True)
class HarnessTask:
    """What a harness file is about.

    Attributes:
        task: the task (subtask) name.
        model: the model, when the file or its run says (else None).
        parent: the group the task belongs to (lm-eval's ``group_subtasks``), else None.
    """

    task: str
    model: str | None = None
    parent: str | None = None


def harness_task(source: str, tool: str | None) -> HarnessTask:
    """The task, model and parent group of one harness file (module docstring).

    Args:
        source: the file.
        tool: its harness (``"inspect"``, ``"lm-eval"``, ``"lighteval"``, ...).

    Raises:
        ReportError: a file whose task kpass cannot tell (naming what it expected).
    """
    if tool == "inspect":
        from .inspect_log import _header

        header = _header(source)
        return HarnessTask(str(header.eval.task), str(header.eval.model))
    name = Path(source).name
    found = _DATED.match(name)
    if found is None:
        raise ReportError(source, f"--group task: cannot tell the task of {name} (expected "
                                  "samples_<task>_<date>.jsonl as lm-eval writes it, "
                                  "details_<task>_<date>.parquet as lighteval does, or an "
                                  "Inspect log); give a table with a group column instead")
    task = found["task"]
    if tool != "lm-eval":
        return HarnessTask(task)
    results = Path(source).parent / f"results_{found['date']}.json"
    if not results.is_file():
        return HarnessTask(task)
    try:
        document = json.loads(results.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return HarnessTask(task)
    model = document.get("model_name") if isinstance(document, dict) else None
    parents = document.get("group_subtasks", {}) if isinstance(document, dict) else {}
    parent = next((group for group, tasks in parents.items()
                   if isinstance(tasks, list) and task in tasks), None)
    return HarnessTask(task, model if isinstance(model, str) and model else None, parent)
