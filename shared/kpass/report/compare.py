"""``kpass compare A B``: is model A better than model B on the same questions?

Both files are read like ``kpass report`` reads them; questions are matched by id
(``--id COLUMN``) or, without ids, by row order (then both files must hold the same
number of questions). For every metric and k the paired comparison of
:func:`kpass.compare` is printed: both estimates, the difference, its standard error over
questions (clustered with ``--clusters COLUMN``), interval, p-value, the posterior
probability that A is better on these very questions, and the minimum detectable effect.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._core.counts import BinaryCounts
from ..io.harness import load_file
from ..io.labels import read_labels
from ..io.progress import Progress
from ..io.readers import LoadedFile, ReportError
from .compare_render import (  # noqa: F401 - the outputs, as this module always offered them
    FIELDS,
    RENDERERS,
    VERDICTS_IN_FULL,
    Line,
    _columns,
    _head_lines,
    _header,
    _in_percent,
    _legend,
    _notes,
    _number,
    _p_value,
    _records,
    _table_cells,
    render_csv,
    render_json,
    render_markdown,
    render_table,
    verdicts,
)
from .output import _check_answers_options, _write, collect_notes
from .table import DEFAULT_K_MAX, Family, default_ks, input_labels, parse_metrics


def _with_labels(loaded: LoadedFile, column: str | None, what: str) -> list[Any] | None:
    if column is None:
        return None
    labels = read_labels(loaded.source, column)
    if len(labels) != loaded.counts.n_questions:
        raise ReportError(loaded.source, f"`{column}` has {len(labels)} values for "
                                         f"{loaded.counts.n_questions} questions ({what})")
    return labels


def _counts(loaded: LoadedFile, ids: list[Any] | None) -> BinaryCounts:
    if ids is None:
        return loaded.counts
    try:
        return BinaryCounts(loaded.counts.n_samples, loaded.counts.n_correct, ids=ids)
    except (TypeError, ValueError) as error:
        raise ReportError(loaded.source, f"--id: {error}") from None


CONSTANT_AT = {"geo-spectrum*@k": (1,)}
"""Rows constant by definition beyond the registry's ``constant_at``: GeoSpectrum*@1 is 0
for every run (its weights at k = 1 are empty), so comparing it tests nothing."""


@dataclass
class _Values:
    """One row's per-question values of A and B (NaN where left out) and its unit differences.

    For dataset-level blends the values are the jackknife pseudo-values (Quenouille 1956):
    psi_q = M theta - (M - 1) theta_(-q) (per cluster with clusters), whose mean is the
    bias-corrected estimate and whose spread gives the jackknife SE.
    """

    a: np.ndarray
    b: np.ndarray
    units: np.ndarray  # per question, or summed per cluster (pseudo-values: per cluster)


def _row_values(point: Any, name: str, first: Any, second: Any, args: tuple[Any, ...],
                kwargs: dict[str, Any], clusters: Any, shared: bool) -> list[_Values]:
    """Per-question values and unit differences of every k, on the compared questions.

    The same alignment as :func:`kpass.compare` (``_paired_inputs``), so the units are the
    ones its SE and p_exact use.
    """
    from ..stats._common import (
        _DATASET_LEVEL,
        _counts_of,
        _dataset_statistic,
        _labels,
        _per_question,
        _state_keys,
    )
    from ..stats.comparison import _paired_inputs

    R_a, R_b, labels = _paired_inputs(first, second, clusters, shared)
    if name in _DATASET_LEVEL:
        stat_a, m = _dataset_statistic(point, R_a, args, kwargs)
        stat_b, _ = _dataset_statistic(point, R_b, args, kwargs)
        codes = _labels(labels, m)
        everything = np.ones(m, dtype=bool)
        full = np.array([stat_a(everything), stat_b(everything)])  # (2, K)
        if codes is None:
            keys = _state_keys(_counts_of(R_a), _counts_of(R_b))
            _, firsts, inverse = np.unique(keys, axis=0, return_index=True,
                                           return_inverse=True)
            leave = np.array([[stat_a(np.arange(m) != i), stat_b(np.arange(m) != i)]
                              for i in firsts])[np.asarray(inverse).ravel()]  # (M, 2, K)
            groups = m
        else:
            leave = np.array([[stat_a(codes != g), stat_b(codes != g)]
                              for g in range(int(codes.max()) + 1)])  # (G, 2, K)
            groups = leave.shape[0]
        pseudo = groups * full[None] - (groups - 1) * leave
        return [_Values(pseudo[:, 0, j], pseudo[:, 1, j], pseudo[:, 0, j] - pseudo[:, 1, j])
                for j in range(full.shape[1])]
    per_a, _ = _per_question(point, name, R_a, args, kwargs)
    per_b, _ = _per_question(point, name, R_b, args, kwargs)
    codes = _labels(labels, per_a[0].size)
    out = []
    for values_a, values_b in zip(per_a, per_b, strict=True):
        d = np.where(np.isfinite(values_a) & np.isfinite(values_b), values_a - values_b, 0.0)
        units = d if codes is None else np.bincount(codes, weights=d)
        out.append(_Values(values_a, values_b, units))
    return out


def compare_lines(first: BinaryCounts, second: BinaryCounts, families: list[Family],
                  ks: list[int], taus: list[float], confidence: float, short: str,
                  clusters: list[Any] | None, *, notes: list[str] | None = None,
                  shared: bool = False, answers: tuple[list[Any], list[Any]] | None = None,
                  ties: str = "fractional", primary: str | None = None,
                  adjust: str = "maxt") -> list[Line]:
    """Every selected metric at every k (and tau): ``kpass.compare`` of the two runs, judged.

    Rows constant by definition (``Family.constant_at``, :data:`CONSTANT_AT`) are left out
    with a note; warnings of ``kpass.compare`` (small samples) become notes. Rows equal on
    every question for both runs (Pass@1 = Pass^1 = G-Pass@1 ...) become one row carrying
    all their names. The primary row (``primary``, default the first row) is tested alone
    at alpha = 1 - confidence; the other rows are secondary and adjusted jointly
    (:func:`judge`). This is the one path of ``kpass compare`` and
    :func:`kpass.compare_table`.

    Args:
        first: model A's counts (with ids to match by id).
        second: model B's counts.
        families: the metric families, in display order.
        ks: the k values.
        taus: G-Pass thresholds.
        confidence: level of the intervals.
        short: ``error`` or ``skip``.
        clusters: a label per question of A, or None.
        notes: where notes are appended (None: warnings are not caught).
        shared: compare on the questions both runs have (ids needed).
        answers: each run's answers coded per question (0 = its reference), in the
            questions' order of ``first`` and ``second`` (already aligned), for Vote@k.
        ties: Vote@k's tie rule.
        primary: the primary row, as :func:`find_row` reads it; None for the first row;
            ``"none"`` for no primary row (every row adjusted jointly).
        adjust: ``"maxt"`` or ``"holm"``, the joint adjustment of the secondary rows.

    Returns:
        The lines, family by family, tau by tau, k by k (merged rows at the first's place).

    Raises:
        ValueError: kpass refused the inputs (different questions, too few, ...), or
            ``primary`` names no row.
    """
    from ..families import function
    from ..stats import compare as paired

    n_label = "n"
    collected: list[str] = [] if notes is None else notes
    lines: list[Line] = []
    for fam in families:
        point = function(fam.function)
        options: dict[str, Any] = {"clusters": clusters, "confidence": confidence,
                                   "shared": shared}
        if fam.answers:
            if answers is None:
                raise ValueError(f"{fam.key} needs the sampled answers (--answers)")
            references = [0] * len(answers[0])  # coded: 0 is each question's reference
            vote_options = {key: value for key, value in options.items() if key != "shared"}
            with collect_notes(collected):
                results = paired(point, answers[0], answers[1], references, ks,
                                        ties=ties, **vote_options)
            values = _row_values(point, fam.function, answers[0], answers[1],
                                 (references, ks), {"ties": ties}, clusters, False)
            lines.extend(Line(fam.key, fam.label(k, None, n_label), k, None, result,
                              values=value)
                         for k, result, value in zip(ks, results if isinstance(results, list)
                                                     else [results], values, strict=True))
            continue
        if not fam.per_k:
            with collect_notes(collected):
                result = paired(point, first, second, **options)
            value, = _row_values(point, fam.function, first, second, (), {}, clusters, shared)
            lines.append(Line(fam.key, fam.label(None, None, n_label), None, None, result,
                              values=value))
            continue
        extra: dict[str, Any] = {}
        if short != "error":
            options["short"] = extra["short"] = short
        constant = set(fam.constant_at) | set(CONSTANT_AT.get(fam.key, ()))
        family_ks = [k for k in ks if k not in constant]
        for k in ks:
            if k in constant:
                note = (f"{fam.label(k, None, n_label)} left out: it is constant by definition "
                        "at this k (for mG-Pass@1 and GeoSpectrum*@1: 0, their weights at k = 1 "
                        "are empty), so comparing it tests nothing")
                if note not in collected:
                    collected.append(note)
        if not family_ks:
            continue
        for tau in taus if fam.uses_tau else [None]:
            head = () if tau is None else (tau,)
            try:
                with collect_notes(collected):
                    results = paired(point, first, second, family_ks, *head, **options)
                values = _row_values(point, fam.function, first, second, (family_ks, *head),
                                     extra, clusters, shared)
            except ValueError as error:
                raise ValueError(f"{fam.key}: {error}") from None
            if not isinstance(results, list):  # one k given as a list: a list comes back
                results = [results]
            lines.extend(Line(fam.key, fam.label(k, tau, n_label), k, tau, result, values=value)
                         for k, result, value in zip(family_ks, results, values, strict=True))
    return judge(merge_equal(lines, collected), confidence, primary, adjust)


def merge_equal(lines: list[Line], notes: list[str]) -> list[Line]:
    """One row for rows whose per-question values agree for both runs (to 1e-12).

    Such rows have the same estimates, differences, SEs and p-values (Pass@1 = Pass^1 =
    G-Pass@1 = Maj@1 at every question; Pass^2 = mG-Pass@2 = Maj@2); testing them twice
    would only widen the adjustment. The first row (table order) keeps its place and
    carries every name; P(A>B) is the first row's.
    """
    kept: list[Line] = []
    seen: dict[bytes, Line] = {}
    for line in lines:
        key = _fingerprint(line)
        twin = None if key is None else seen.get(key)
        if twin is None:
            line.names, line.members = [line.label], [line]
            kept.append(line)
            if key is not None:
                seen[key] = line
        else:
            twin.names.append(line.label)
            twin.members.append(line)
    if any(len(line.names) > 1 for line in kept):
        note = ("rows equal on every question for both runs are shown once, carrying all their "
                "names (A = B on each question: the same difference, se and p); P(A>B) is the "
                "first name's")
        if note not in notes:
            notes.append(note)
    return kept


def _fingerprint(line: Line) -> bytes | None:
    """Both runs' per-question values rounded to 1e-10 (NaN kept), as one hashable key."""
    if line.values is None:
        return None
    both = np.concatenate([line.values.a, line.values.b, [float(line.values.units.size)]])
    return (np.round(both, 10) + 0.0).tobytes() + b"|" + str(line.values.a.size).encode()


def find_row(lines: list[Line], primary: str) -> Line:
    """The row ``primary`` names (case-insensitive, spaces ignored).

    Accepted forms: a row's label as the table prints it (``Pass@1``, ``Pass^2``,
    ``G-Pass@4_0.5``, ``Avg@8``; any name of a merged row), or ``METRIC:K`` with a
    ``--metrics`` name (``pass@k:1``, ``g-pass@k:4``: the first tau; ``g-pass@k:4:0.75``).

    Raises:
        ValueError: no row has that name (the message lists the rows).
    """
    from .table import family

    wanted = "".join(str(primary).split()).lower()
    for line in lines:
        if wanted in ("".join(name.split()).lower() for name in line.names or [line.label]):
            return line
    parts = wanted.split(":")
    if len(parts) in (2, 3):
        try:
            key = family(parts[0]).key
            k = int(parts[1])
            tau = float(parts[2]) if len(parts) == 3 else None
        except ValueError:
            key = None
        for line in lines:
            for member in line.members or [line]:
                if (member.metric == key and member.k == k
                        and (tau is None or member.tau == tau)):
                    return line
    names = ", ".join(name for line in lines for name in (line.names or [line.label]))
    raise ValueError(f"--primary {primary}: no such row in this table; rows: {names} (or "
                     "METRIC:K, e.g. pass@k:1)")


def judge(lines: list[Line], confidence: float, primary: str | None, adjust: str = "maxt",
          *, flips: int | None = None) -> list[Line]:
    r"""The primary row alone at alpha; the secondary rows adjusted jointly; verdicts.

    Formula:
        alpha = 1 - confidence. The primary row's p_adjusted is its own p (the t test):
        it is the one comparison planned in advance, tested at alpha (``primary="none"``:
        no primary row, every row is secondary). The R secondary
        rows' p_adjusted are the max-T stepdown p-values of
        :func:`kpass.stats.multiplicity.maxt_stepdown` over their unit differences, all
        rows under the same sign flips (``adjust="maxt"``), or Holm's adjustment of their
        t-test p-values (``adjust="holm"``). A row's verdict is "A better" / "B better"
        when p_adjusted < alpha (by the sign of the difference), else "no detectable
        difference". Each of the two families (primary; secondaries) holds alpha on its
        own, so a false verdict anywhere in the table has probability at most 2 alpha
        (Bonferroni over the two families; measured in docs/statistics.md);
        ``primary="none"`` holds alpha for the whole table.

    Args:
        lines: the merged rows, in table order.
        confidence: 1 - alpha.
        primary: the primary row (:func:`find_row`), None for the first row.
        adjust: ``"maxt"`` or ``"holm"``.
        flips: random sign patterns of the max-T stepdown (default
            :data:`kpass._core.small_sample.FLIPS`; simulations use fewer).

    Returns:
        The rows, primary first, each with ``role``, ``p_adjusted`` and ``verdict``.

    Raises:
        ValueError: ``adjust`` is not maxt or holm, or ``primary`` names no row.
    """
    from ..stats.multiplicity import ADJUSTMENTS, maxt_stepdown
    from .output import holm

    if adjust not in ADJUSTMENTS:
        raise ValueError(f"--adjust must be one of {', '.join(ADJUSTMENTS)}; got {adjust!r}")
    if not lines:
        return lines
    if primary is not None and primary.strip().lower() == "none":
        ordered, secondary = list(lines), list(lines)  # every row adjusted jointly
    else:
        chosen = lines[0] if primary is None else find_row(lines, primary)
        ordered = [chosen] + [line for line in lines if line is not chosen]
        chosen.role, chosen.p_adjusted, chosen.adjust = "primary", chosen.result.p_value, None
        secondary = ordered[1:]
    if len(ordered) == 1 and secondary:  # one row: nothing to adjust for
        line = ordered[0]
        line.role, line.p_adjusted, line.adjust = "secondary", line.result.p_value, None
        secondary = []
    if secondary:
        if adjust == "holm":
            adjusted = holm([line.result.p_value for line in secondary])
        else:
            matrix = np.array([line.values.units for line in secondary])
            adjusted = [float(p) for p in (maxt_stepdown(matrix) if flips is None
                                           else maxt_stepdown(matrix, flips=flips))]
        for line, p in zip(secondary, adjusted, strict=True):
            line.role, line.p_adjusted, line.adjust = "secondary", float(p), adjust
    alpha = 1.0 - confidence
    for line in ordered:
        r = line.result
        assert line.p_adjusted is not None
        line.verdict = ("A better" if line.p_adjusted < alpha and r.difference > 0 else
                        "B better" if line.p_adjusted < alpha and r.difference < 0 else
                        "no detectable difference")
    return ordered


def cli_words(note: str) -> str:
    """A note of the Python API in the command line's words (flags and column names)."""
    import re

    from .table import FAMILIES

    keys = {fam.function: fam.key for fam in FAMILIES}
    note = re.sub(r"kpass\.compare\((\w+)\): ",
                  lambda match: f"{keys.get(match.group(1), match.group(1))}: ", note)
    return note.replace("(p_exact)", "(column p exact)").replace("p_exact", "p exact")


def run_compare(args: argparse.Namespace) -> int:
    """Run ``kpass compare`` with parsed arguments.

    Args:
        args: the parsed command line.

    Returns:
        The exit status: 0 on success, 1 when an input cannot be used, 2 for a bad argument.
    """
    if len(args.files) != 2:
        print("kpass compare: error: give exactly two files, model A and model B (see kpass "
              "compare --help)", file=sys.stderr)
        return 2
    if args.skip_bad:
        # Refused rather than guessed: a bad row may have held one question or several (a
        # line broken in two, a merged CSV quote), so dropping "the same position" from the
        # other file cannot be made right, and a row left out of one file alone shifts every
        # later pair (row order) or label (--id, --clusters read beside the counts).
        print("kpass compare: error: --skip-bad cannot be combined with pairing by row order "
              "(no --id): a row left out of one file would pair every later question with "
              "another one; nor with --id or --clusters, whose labels it would shift; fix the "
              "rows that `kpass report FILE --skip-bad` lists, then compare (see kpass "
              "compare --help)", file=sys.stderr)
        return 2
    answers_mode = bool(getattr(args, "answers", False))
    try:
        families = [fam for fam in parse_metrics(args.metrics, answers=answers_mode)
                    if answers_mode or not fam.answers]
        if answers_mode:
            args.threshold = None
            _check_answers_options(args)
        elif getattr(args, "normalize", None) is not None:
            raise ValueError("--normalize applies to sampled answers: add --answers")
    except ValueError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 2
    loaded: list[LoadedFile]
    notes: list[str] = []
    try:
        sample = getattr(args, "sample", None)
        shared = bool(getattr(args, "shared", False))
        if (sample is not None or shared) and args.id is None:
            option = "--sample" if sample is not None else "--shared"
            raise ReportError(args.files[0], f"{option} needs --id (the question-id column)")
        coded: tuple[list[Any], list[Any]] | None = None
        if answers_mode:
            loaded, coded = _load_answers(args, sample)
            first, second = (item.counts for item in loaded)
        elif args.id is not None and args.clusters is None:
            # Long files (one row per sample) or wide ones, grouped and keyed by --id; a
            # harness file (--from, --filter or recognised) as its harness reads it.
            from ..io.long import load_long

            loaded = [load_long(source, id=args.id, sample=sample, column=args.column,
                                chunk_size=args.chunk_size, tool=args.from_, filter=args.filter)
                      for source in args.files]
            first, second = (item.counts for item in loaded)
        else:
            if sample is not None:
                raise ReportError(args.files[0], "--sample cannot be combined with --clusters "
                                                 "(clusters are read beside one row per "
                                                 "question)")
            loaded = [load_file(source, tool=args.from_, filter=args.filter, column=args.column,
                                chunk_size=args.chunk_size, skip_bad=args.skip_bad,
                                progress=Progress(f"reading {source}"))
                      for source in args.files]
            first, second = (_counts(item, _with_labels(item, args.id, "--id"))
                             for item in loaded)
            if args.id is None and first.ids is not None:
                args.id = "question id"  # a harness file's own ids; the legend says so
        if first.ids is None and first.n_questions != second.n_questions:
            raise ReportError(args.files[1], f"{second.n_questions} questions against "
                                             f"{first.n_questions} in {args.files[0]}; without "
                                             "--id rows are matched by order, so both files "
                                             "must hold the same questions: pass --id COLUMN "
                                             "to match them by question id")
        if first.ids is None:
            notes.append("rows were paired by order (no --id): row q of A and row q of B must "
                         "be the same question; pass --id COLUMN to match them by id")
        m = first.n_questions
        if shared and first.ids is not None and second.ids is not None:
            both = set(first.ids) & set(second.ids)
            m = len(both)
            dropped_a, dropped_b = first.n_questions - m, second.n_questions - m
            if dropped_a or dropped_b:
                notes.append(f"--shared: compared on the {m} questions both runs have; "
                             f"{dropped_a} of A's {first.n_questions} and {dropped_b} of B's "
                             f"{second.n_questions} questions left out")
        clusters = _with_labels(loaded[0], args.clusters, "--clusters")
        n_min = min(int(first.n_samples.min()), int(second.n_samples.min()))
        ks = sorted({k for group in args.k for k in group}) if args.k else default_ks(n_min)
        if coded is not None:
            first, second, coded = _aligned_answers(first, second, coded, shared, args.files)
        try:
            lines = compare_lines(first, second, families, ks, args.tau, args.confidence,
                                  args.short, clusters, notes=notes, shared=shared,
                                  answers=coded, ties=getattr(args, "ties", "fractional"),
                                  primary=getattr(args, "primary", None),
                                  adjust=getattr(args, "adjust", None) or "maxt")
        except (TypeError, ValueError) as error:
            message = str(error).replace("pass shared=True", "pass --shared")
            raise ReportError(f"{args.files[0]} vs {args.files[1]}", message) from None
        notes[:] = [cli_words(note) for note in notes]
        if not lines:
            raise ReportError(f"{args.files[0]} vs {args.files[1]}",
                              "no row left to compare: " + "; ".join(notes))
        labels = input_labels(list(args.files))
        args.notes = notes
        shown = lines
        if getattr(args, "percent", False) and args.format in ("table", "markdown"):
            shown = [replace(line, result=_in_percent(line.result)) for line in lines]
            notes.append("values in percent (x 100): A, B, differences, se, intervals and MDE; "
                         "p-values and P(A>B) are probabilities as before.")
        text = RENDERERS[args.format](shown, labels, m, args)
        if args.plot:
            from .plot import plot_differences

            plot_differences(args.plot, labels, lines, args.confidence)
            print(f"wrote {args.plot}", file=sys.stderr)
    except ReportError as error:
        print(f"kpass compare: error: {error}", file=sys.stderr)
        return 1
    return _write(text)


def _load_answers(args: argparse.Namespace, sample: str | None
                  ) -> tuple[list[LoadedFile], tuple[list[Any], list[Any]]]:
    """Both files read as sampled answers and references (``--answers``)."""
    from ..io.answers import import_normalizer, load_answers

    if args.clusters is not None:
        raise ReportError(args.files[0], "--clusters is not available with --answers")
    normalize = import_normalizer(args.normalize) if args.normalize else None
    loaded, coded = [], []
    for source in args.files:
        item, codes = load_answers(source, column=args.column, reference=args.reference,
                                   chunk_size=args.chunk_size, normalize=normalize, id=args.id,
                                   sample=sample)
        loaded.append(item)
        coded.append(codes)
    check_same_references(args, normalize)
    return loaded, (coded[0], coded[1])


def _references(source: str, args: argparse.Namespace, normalize: Any
                ) -> tuple[list[tuple[Any, Any, Any, str]], bool]:
    """Each question's reference of one answers file: (id or row, key, as written, where).

    Read again record by record (the reader keeps only the coded answers); the key is the
    comparison key of answers (``--normalize``, then the canonical form), so ``170`` and
    ``"170.0"`` are one reference. Returns the list and whether it is keyed by id.
    """
    from pathlib import Path

    from .._core.canonical import answer_key
    from ..io.answers import _RECORDS
    from ..io.answers_match import _question_id
    from ..io.formats import detect_format
    from ..io.rows import Unreadable

    path = Path(source)
    names = {"answers": args.column, "reference": args.reference, "id": args.id,
             "sample": getattr(args, "sample", None)}
    state: dict[str, str] = {}
    key = answer_key(normalize)
    seen: dict[Any, tuple[Any, Any, Any, str]] = {}
    row = 0
    for where, answers, gold, qid, _ in _RECORDS[detect_format(path)](
            source, path, names, state, args.chunk_size):
        if isinstance(answers, Unreadable) or isinstance(gold, Unreadable):
            continue
        if args.id is None:
            row += 1
            seen[row] = (row, key(gold), gold, where)
            continue
        qid = _question_id(qid, "question id", source, where)
        if qid not in seen:
            seen[qid] = (qid, key(gold), gold, where)
    return list(seen.values()), args.id is not None


def check_same_references(args: argparse.Namespace, normalize: Any) -> None:
    """Refuse two answers files whose references differ for the same question.

    Each run's answers are scored against its own file's references, so a question whose
    reference differs between the files would compare two different tasks. The first
    such question (in A's order) is named; references are compared by the rule answers
    are (canonical form after ``--normalize``), as the Space compares the gold answers
    of one question's lines.

    Raises:
        ReportError: a question with different references in the two files.
    """
    first, by_id = _references(args.files[0], args, normalize)
    second, _ = _references(args.files[1], args, normalize)
    other = {item[0]: item for item in second}
    for question, key, gold, where in first:
        match = other.get(question)
        if match is None or match[1] == key:
            continue
        what = f"question id {question!r}" if by_id else f"question {question} (row order)"
        raise ReportError(f"{args.files[0]} vs {args.files[1]}",
                          f"{what} has reference {gold!r} in {args.files[0]} ({where}) but "
                          f"{match[2]!r} in {args.files[1]} ({match[3]}); both runs must be "
                          "scored against the same references")


def _aligned_answers(first: BinaryCounts, second: BinaryCounts,
                     coded: tuple[list[Any], list[Any]], shared: bool, files: list[str]
                     ) -> tuple[BinaryCounts, BinaryCounts, tuple[list[Any], list[Any]]]:
    """Both runs' counts and coded answers on the same questions in A's order (by id)."""
    if first.ids is None or second.ids is None:
        return first, second, coded  # by row order; equal counts were checked
    position = {question: i for i, question in enumerate(second.ids)}
    keep = [i for i, question in enumerate(first.ids) if question in position]
    if not shared and (len(keep) != first.n_questions or len(keep) != second.n_questions):
        only_a, only_b = first.n_questions - len(keep), second.n_questions - len(keep)
        raise ReportError(f"{files[0]} vs {files[1]}",
                          f"the two runs must score the same questions; {only_a} ids of A are "
                          f"not in B and {only_b} ids of B are not in A; pass --shared to "
                          "compare on the questions both have")
    order = [position[first.ids[i]] for i in keep]
    return (first.select(np.array(keep, dtype=np.intp)),
            second.select(np.array(order, dtype=np.intp)),
            ([coded[0][i] for i in keep], [coded[1][j] for j in order]))


__all__ = ["DEFAULT_K_MAX", "RENDERERS", "compare_lines", "run_compare", "verdicts"]
