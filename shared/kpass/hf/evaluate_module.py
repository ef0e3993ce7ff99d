"""The one kpass module that imports `evaluate`: the abstract base of every metric module.

A metric script in ``metrics/<name>/<name>.py`` is a thin subclass of
:class:`KPassMetric` that names its family and returns its ``MetricInfo``;
everything else lives here:

- **Fast, validated ingestion.** ``add_batch``/``add`` count each batch at once
  with :func:`kpass.binary_counts` / :func:`kpass.categorical_counts` (which
  reject 0.5, 2, "1", None or NaN with a message naming the question) and
  write only compact per-question counts to Arrow (``n_samples``/``n_correct``,
  or per-category count lists). Nothing reaches Arrow unvalidated, so Arrow
  never coerces a value, and a 100000 x 64 matrix is stored as 100000 pairs.
  Counts concatenate, so batches, ``evaluate.combine`` and distributed runs
  (one Arrow file per process, process 0 computes) all merge exactly.
- **One keyword vocabulary** (:data:`kpass.hf.keywords.KEYWORDS`) accepted
  at load time and at compute time by every module; unknown names are refused.
- **Nothing is lost.** Options are checked before any data moves; if the
  computation itself fails (say k larger than a question's samples), the counts
  added by ``add_batch`` are kept and the next ``compute`` uses them, while the
  questions passed to the failing ``compute(predictions=...)`` itself are not
  (each stored row is marked, so every process drops them): a retry with
  corrected predictions is not mixed with the rejected ones. In
  ``evaluate.combine([...])`` the kpass modules computed before the failing one
  get their added questions back too, so a retry sees the same questions everywhere.
- **Empty shards merge.** In a distributed run a process that added nothing
  (normal at the tail of a sharded eval set) writes an empty cache file at
  ``compute``, so process 0 merges the others instead of waiting for it.

It is not imported by ``kpass/__init__.py``: the core does not need `evaluate`.
"""

from __future__ import annotations

import abc
import os
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any

import datasets
import evaluate
import numpy as np
import pyarrow as pa

from .._core.counting.checks import InputError
from .._core.counting.inputs import (
    binary_counts,
    categorical_counts,
)
from .._core.counting.soft import binarize
from .arrow_state import (
    _INLINE,
    INPUT_FEATURES,
    STORED_FEATURES,
    _check_answers,
    _is_empty,
    _join,
    _list_column,
    _n_questions,
    _pair_table,
    _Paired,
    _split_inline,
    _state_from_table,
)
from .keywords import INPUTS, check_options, refuse_batch_keywords, refuse_one_keywords
from .vocabulary import FAMILIES, compute_results, module_inputs

#: Constructor arguments of ``evaluate.EvaluationModule`` (what ``evaluate.load`` passes).
EVALUATE_INIT_ARGS = ("config_name", "keep_in_memory", "cache_dir", "num_process", "process_id",
                      "seed", "experiment_id", "hash", "max_concurrent_cache_files", "timeout")



__all__ = ["KPassComparison", "KPassMetric"]


class KPassMetric(evaluate.Metric, abc.ABC):
    """Abstract base of the kpass metric modules (abstract so ``evaluate.load`` skips it).

    Subclasses set :attr:`family` (a module name of the family) and implement
    ``_info`` with :meth:`kpass_info`. Keyword options given to the constructor
    (``evaluate.load(name, k=[1, 8])``) are defaults that ``compute`` overrides.
    """

    family: str = ""
    # Set by evaluate's (untyped) EvaluationModule: its Arrow writer, the data read back,
    # and the cache files and their locks (None whenever nothing is open).
    writer: Any
    buf_writer: Any
    data: Any
    filelocks: Any
    file_paths: Any

    def __init__(self, config_name: str | None = None, keep_in_memory: bool = False,
                 cache_dir: str | None = None, num_process: int = 1, process_id: int = 0,
                 seed: int | None = None, experiment_id: str | None = None,
                 hash: str | None = None, max_concurrent_cache_files: int = 10000,
                 timeout: float = 100, **options: Any) -> None:
        if self.family not in FAMILIES:
            raise InputError(f"{type(self).__name__}.family must be one of {sorted(FAMILIES)}; "
                             f"got {self.family!r}")
        for name in options:
            if name in INPUTS:
                raise InputError(f"{self.family}: `{name}` is an input, not an option; pass it "
                                 "to add_batch or compute with its questions")
        # Set before super().__init__(): evaluate's base would silently swallow unknown names.
        self.kind = FAMILIES[self.family][0]
        self.options = check_options(self.family, options, when="load")
        self._retained: Any = None
        # The state of the last successful compute, handed back if a module combined after
        # this one fails in the same evaluate.combine(...).compute call.
        self._last_state: Any = None
        super().__init__(config_name=config_name, keep_in_memory=keep_in_memory,
                         cache_dir=cache_dir, num_process=num_process, process_id=process_id,
                         seed=seed, experiment_id=experiment_id, hash=hash,
                         max_concurrent_cache_files=max_concurrent_cache_files, timeout=timeout)

    @abc.abstractmethod
    def _info(self) -> evaluate.MetricInfo:
        """The module's ``MetricInfo`` (build it with :meth:`kpass_info`)."""

    def kpass_info(self, *, description: str, citation: str, inputs_description: str,
                   reference_urls: Sequence[str] = ()) -> evaluate.MetricInfo:
        """``MetricInfo`` with the inputs of this module's kind of data.

        Args:
            description: the script's ``_DESCRIPTION``.
            citation: the script's ``_CITATION``.
            inputs_description: the script's ``_KWARGS_DESCRIPTION``.
            reference_urls: papers behind the metric.

        Returns:
            The info ``evaluate`` reads (features are the user-facing inputs).
        """
        features = INPUT_FEATURES[FAMILIES[self.family][0]]
        if "R0" not in module_inputs(self.family):
            features = datasets.Features({"predictions": features["predictions"]}
                                         if "references" not in features else features)
        return evaluate.MetricInfo(
            module_type="metric",
            description=description,
            citation=citation,
            inputs_description=inputs_description,
            features=features,
            codebase_urls=[],  # kpass is not on a package index: no page to link yet
            reference_urls=list(reference_urls),
        )

    # ------------------------------------------------------------------------- ingestion

    def _feature_names(self) -> list[str]:
        # What evaluate.combine forwards to add/add_batch. `R0` is left out on purpose:
        # combine indexes every name it lists, so listing it would break
        # combine.add_batch(predictions=R) for the whole family; R0 goes to the module's
        # own add/add_batch, or to compute (which combine forwards whole).
        return [name for name in module_inputs(self.family) if name != "R0"]

    def _input_names(self) -> list[str]:
        return list(module_inputs(self.family))

    def _stored_questions(self) -> int:
        retained = 0 if self._retained is None else _n_questions(self._retained)
        return len(self) + retained

    def _encode(self, predictions: Any, references: Any, R0: Any,
                threshold: float | None = None) -> pa.Table | None:
        """Validate and count one batch; None for an empty batch.

        With ``threshold``, predictions are soft scores made hard by
        :func:`kpass.binarize` (correct iff score > threshold) before counting.
        """
        if predictions is None:
            raise InputError(f"{self.family}: `predictions` is required (one list of outcomes "
                             "per question)")
        if _is_empty(predictions):
            if R0 is not None and not _is_empty(R0):
                raise InputError(f"{self.family}: `R0` has rows but `predictions` is empty")
            return None
        try:
            if threshold is not None:
                if self.kind != "binary":
                    raise InputError("`threshold` applies to modules of binary outcomes; "
                                     f"this module takes {self.kind} inputs")
                predictions = binarize(predictions, threshold)
            if self.kind == "binary":
                binary = binary_counts(predictions, name="predictions")
                return pa.table({"n_samples": binary.n_samples, "n_correct": binary.n_correct})
            if self.kind == "binary_pair":
                return _pair_table(predictions)
            if self.kind == "categorical":
                categorical = categorical_counts(predictions, R0, name="predictions")
                return pa.table({"counts": _list_column(categorical.counts),
                                 "prior_counts": _list_column(categorical.prior_counts)})
            answers, golds = _check_answers(predictions, references)
            return pa.table({"predictions": pa.array(answers, type=pa.list_(pa.string())),
                             "references": pa.array(golds, type=pa.string())})
        except (TypeError, ValueError) as error:
            kept = self._stored_questions()
            raise type(error)(
                f"{self.family}: {error} (indices count questions within this batch). "
                f"The batch was rejected; the {kept} questions added before are kept."
            ) from None

    def add_batch(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> None:
        """Add a batch of questions (validated and counted now, stored as counts).

        Args:
            predictions: one list of outcomes per question (lists may differ in
                length), or an (M, N) array.
            references: gold answers (``vote_at_k_bayes`` only).
            **kwargs: ``R0``, prior outcomes per question (categorical modules only).

        Raises:
            ValueError: a bad outcome (the message names the question), or an
                input this module does not take. Nothing of the batch is stored.
        """
        self._add(predictions, references, dict(kwargs), inline=False)

    def _add(self, predictions: Any, references: Any, kwargs: dict[str, Any], *,
             inline: bool) -> None:
        """Validate, count and write one batch; ``inline`` marks a batch passed to ``compute``."""
        refuse_one_keywords(kwargs, {"prediction": "predictions", "reference": "references",
                                     "prediction1": "predictions1", "prediction2": "predictions2"})
        threshold = kwargs.pop("threshold", self.options.get("threshold"))
        names = self._input_names()
        bad = [name for name in kwargs if name not in names]
        if bad or (references is not None and "references" not in names):
            raise InputError(f"{self.family}: bad inputs {bad or ['references']}; "
                             f"this module takes {names}")
        table = self._encode(predictions, references, kwargs.get("R0"), threshold)
        self._last_state = None  # new questions: a new round, the last one is settled
        if table is None:
            return
        table = table.append_column(_INLINE, pa.array(np.full(table.num_rows, inline)))
        if self.writer is None:
            self.selected_feature_format = STORED_FEATURES[self.kind]
            self._init_writer()
        self.writer.write_table(table)

    def add(self, *, prediction: Any = None, reference: Any = None, **kwargs: Any) -> None:
        """Add one question.

        Args:
            prediction: the question's outcomes (a list).
            reference: its gold answer (``vote_at_k_bayes`` only).
            **kwargs: ``R0``, its prior outcomes (categorical modules only).
        """
        refuse_batch_keywords("add", kwargs,
                              {"predictions": "prediction", "references": "reference"})
        R0 = kwargs.pop("R0", None)
        if R0 is not None:
            kwargs["R0"] = [R0]
        self.add_batch(predictions=[prediction],
                       references=None if reference is None else [reference], **kwargs)

    # ------------------------------------------------------------------------- compute

    def compute(self, *, predictions: Any = None, references: Any = None,
                **kwargs: Any) -> dict[str, Any] | None:
        """Compute the metrics over every question added (and any passed here).

        Keyword options given here override those given at load time. Options are
        checked before anything is added; if the computation fails, the questions
        added by ``add_batch`` stay stored for the next call, and those passed here
        are dropped (in every process).

        Args:
            predictions: optional last batch of questions.
            references: gold answers (``vote_at_k_bayes`` only).
            **kwargs: ``R0`` (categorical modules) and keyword options.

        Returns:
            A flat dict of Python floats on process 0; None on other processes.

        Raises:
            ValueError: unknown keyword, bad option, or nothing to compute.
        """
        inputs = {name: kwargs.pop(name) for name in INPUTS if name in kwargs}
        options = {**self.options, **check_options(self.family, kwargs, when="compute")}
        names = self._input_names()
        if predictions is not None:
            extra = {name: value for name, value in inputs.items() if name in names}
            if options.get("threshold") is not None:
                extra["threshold"] = options["threshold"]
            # Not add_batch: the batch is marked as this call's, so a failure drops it.
            self._add(predictions, references if "references" in names else None, extra,
                      inline=True)
        elif inputs.get("R0") is not None and "R0" in names:
            raise InputError(f"{self.family}: `R0` must be passed with its `predictions`")
        if self.writer is None and self.num_process > 1 and self._retained is None:
            # This process added nothing (the tail of a sharded eval set): an empty cache file
            # lets process 0 merge the others instead of waiting for this one.
            self.selected_feature_format = STORED_FEATURES[self.kind]
            self._init_writer()
        if self.writer is not None:
            self._finalize()
            self.cache_file_name = None
            self.filelock = None
            self.selected_feature_format = None
            if self.process_id != 0:
                return None
            table = self.data.data.table
            added, passed = (_state_from_table(self.kind, part) if part.num_rows else None
                             for part in _split_inline(table))
            self._release_cache()
        else:
            added = passed = None
        # `kept`: what survives a failure (every batch added before, never this call's own).
        kept = _join(self.kind, [self._retained, added])
        state = _join(self.kind, [kept, passed])
        if state is None:
            raise InputError(f"{self.family}: no questions to compute on; call add_batch(...) or "
                             "pass predictions= to compute")
        try:
            results = compute_results(self.family, state, options)
        except (TypeError, ValueError) as error:
            self._retained = kept
            combined = self._give_back_combined()
            also = (f" (and those of {', '.join(combined)}, computed before it in the "
                    "combination)" if combined else "")
            n_kept = 0 if kept is None else _n_questions(kept)
            if passed is None:
                fate = f"The {n_kept} questions added are kept{also}"
            else:
                fate = (f"Nothing of this call is kept (its {_n_questions(passed)} questions)"
                        + (f"; the {n_kept} questions added before it are kept{also}" if n_kept
                           else also))
            raise type(error)(
                f"{self.family}: {error}. {fate}; call compute again with corrected options."
            ) from error
        except Exception:
            self._retained = kept
            self._give_back_combined()
            raise
        self._retained = None
        self._last_state = kept
        return results

    def _give_back_combined(self) -> list[str]:
        """Hand their questions back to the kpass modules that computed before this one.

        ``evaluate.combine(...).compute`` calls its modules one after the other: when
        this one fails, the kpass modules before it have already computed and emptied
        their cache. They keep their last state, restored here so that a retry of the
        combination computes every module on the same questions. The combination is
        found on the call stack (``CombinedEvaluations.compute`` is the caller).

        Returns:
            The names of the modules whose questions were restored.
        """
        frame: FrameType | None = sys._getframe(1).f_back
        for _ in range(8):
            if frame is None:
                return []
            owner = frame.f_locals.get("self")
            if isinstance(owner, evaluate.module.CombinedEvaluations):
                break
            frame = frame.f_back
        else:
            return []
        restored = []
        for module in owner.evaluation_modules:
            if module is self:
                break
            if isinstance(module, KPassMetric) and module._last_state is not None:
                module._retained, module._last_state = module._last_state, None
                restored.append(module.family)
        return restored

    def _compute(self, *, predictions: Any = None, references: Any = None,
                 **kwargs: Any) -> dict[str, Any]:
        """Results on raw inputs (what evaluate's base would call; ``compute`` counts first)."""
        R0 = kwargs.pop("R0", None)
        options = {**self.options, **check_options(self.family, kwargs, when="compute")}
        table = self._encode(predictions, references, R0, options.get("threshold"))
        if table is None:
            raise InputError(f"{self.family}: no questions to compute on")
        return compute_results(self.family, _state_from_table(self.kind, table), options)

    def _release_cache(self) -> None:
        """Drop the read data and delete the cache files, as evaluate's ``compute`` does."""
        self.data = None
        self.writer = None
        if self.buf_writer is not None:
            self.buf_writer = None
            return
        for filelock, file_path in reversed(list(zip(self.filelocks, self.file_paths,
                                                     strict=True))):
            os.remove(file_path)
            filelock.release()
        self.filelocks = None
        self.file_paths = None


class KPassComparison(KPassMetric, abc.ABC):
    """Abstract base of the kpass comparison modules (``comparisons/<name>/``).

    Two models on the same questions: ``predictions1`` (model A) and ``predictions2``
    (model B), one list of binary outcomes per question, row q of both being question q.
    Each batch is validated and counted when added (both runs' counts go to Arrow side by
    side, so batches, processes and retries keep the pairing); ``compute`` returns the
    paired comparison of :func:`kpass.compare` for every k as flat floats.
    """

    def kpass_info(self, *, description: str, citation: str, inputs_description: str,
                   reference_urls: Sequence[str] = ()) -> evaluate.ComparisonInfo:
        """``ComparisonInfo`` with the two runs as features.

        Args:
            description: the script's ``_DESCRIPTION``.
            citation: the script's ``_CITATION``.
            inputs_description: the script's ``_KWARGS_DESCRIPTION``.
            reference_urls: papers behind the comparison.

        Returns:
            The info ``evaluate`` reads (``module_type="comparison"``).
        """
        return evaluate.ComparisonInfo(
            module_type="comparison",
            description=description,
            citation=citation,
            inputs_description=inputs_description,
            features=INPUT_FEATURES["binary_pair"],
            reference_urls=list(reference_urls),
        )

    def add_batch(self, *, predictions1: Any = None, predictions2: Any = None,
                  predictions: Any = None, ids1: Any = None, ids2: Any = None,
                  **kwargs: Any) -> None:
        """Add a batch of questions answered by both models.

        Args:
            predictions1: model A's outcome lists, one per question.
            predictions2: model B's outcome lists: without ids, on the same questions in
                the same order (row q of both is question q).
            predictions: internal (an already paired batch).
            ids1: optional question ids of ``predictions1``'s rows (str or int, unique).
            ids2: the question ids of ``predictions2``'s rows. With ids, questions are
                matched by id (the one rule of :func:`kpass.stats.align.align_runs`), in any
                order and across batches; the result's ``matched_by_id`` is 1.0.
            **kwargs: refused (a comparison takes no other input).

        Raises:
            ValueError: a bad outcome or id (named), ids for one model only, or different
                numbers of questions without ids.
        """
        if predictions is None:
            if _is_empty(predictions1) and _is_empty(predictions2):
                return
            predictions = _Paired(predictions1, predictions2, ids1, ids2)
        self._check_pairing(predictions)
        super().add_batch(predictions=predictions, **kwargs)
        self._by_id = predictions.ids1 is not None

    #: Whether the questions stored so far came with ids (None: nothing stored yet).
    _by_id: bool | None = None

    def _check_pairing(self, batch: _Paired) -> None:
        """Refuse a batch with ids after batches without (or the reverse), keeping those."""
        stored = self._stored_questions()
        if stored == 0 or self._by_id is None:
            return
        by_id = batch.ids1 is not None or batch.ids2 is not None
        if by_id != self._by_id:
            given, before = ("gives", "did not") if by_id else ("lacks", "did")
            raise InputError(
                f"{self.family}: this batch {given} `ids1`/`ids2` and the batches added before "
                f"{before}: questions are matched by id or by position, not both. The batch was "
                f"rejected; the {stored} questions added before are kept.")

    def add(self, *, prediction1: Any = None, prediction2: Any = None, id1: Any = None,
            id2: Any = None, **kwargs: Any) -> None:
        """Add one question: model A's outcomes and model B's.

        Args:
            prediction1: model A's outcomes on the question.
            prediction2: model B's outcomes on it.
            id1: optional: the question's id in A's run (give ``id2`` too).
            id2: optional: its id in B's run.
            **kwargs: refused.
        """
        refuse_batch_keywords("add", kwargs,
                              {"predictions1": "prediction1", "predictions2": "prediction2",
                               "ids1": "id1", "ids2": "id2"})
        self.add_batch(predictions1=[prediction1], predictions2=[prediction2],
                       ids1=None if id1 is None else [id1], ids2=None if id2 is None else [id2],
                       **kwargs)

    def compute(self, *, predictions1: Any = None, predictions2: Any = None,
                ids1: Any = None, ids2: Any = None, **kwargs: Any) -> dict[str, Any] | None:
        """The paired comparison over every question added (and any passed here).

        Args:
            predictions1: optional last batch of model A.
            predictions2: the same questions for model B.
            ids1: optional question ids of ``predictions1`` (see :meth:`add_batch`).
            ids2: optional question ids of ``predictions2``.
            **kwargs: keyword options (``metric``, ``k``, ``tau``, ``confidence``,
                ``short``, ``key_style``; the family's other keywords are ignored).

        Returns:
            A flat dict of Python floats on process 0; None on other processes.
        """
        paired = None
        if predictions1 is not None or predictions2 is not None:
            paired = _Paired(predictions1, predictions2, ids1, ids2)
            self._check_pairing(paired)
        elif ids1 is not None or ids2 is not None:
            raise InputError(f"{self.family}: `ids1`/`ids2` name the rows of "
                             "`predictions1`/`predictions2`: pass them with their predictions")
        results = super().compute(predictions=paired, **kwargs)
        if self._retained is None:
            self._by_id = None  # everything stored was consumed: the next batch chooses again
        return results

    def _compute(self, *, predictions1: Any = None, predictions2: Any = None,
                 **kwargs: Any) -> dict[str, Any]:
        """Results on raw inputs (what evaluate's base would call; ``compute`` counts first)."""
        return super()._compute(predictions=_Paired(predictions1, predictions2), **kwargs)
