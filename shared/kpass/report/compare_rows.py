"""The rows of ``kpass compare`` and :func:`kpass.compare_table`, built and judged.

:func:`compare_lines` computes :func:`kpass.compare` for every metric, k and tau, with each
row's per-question values; :func:`merge_equal` makes rows equal on every question one row;
:func:`judge` tests the primary row alone and adjusts the secondary rows jointly
(:func:`kpass.stats.multiplicity.maxt_stepdown`, or Holm), giving each row ``p_adjusted``
and a verdict. The command line and the Python table share this one path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import InputError
from .._core.counting.counts import BinaryCounts
from ..registry import REPORTED
from .compare_render import Line
from .output import collect_notes, family_options
from .table import Family

CONSTANT_AT = {str(f.report): f.uncompared_at for f in REPORTED if f.uncompared_at}
"""Rows constant by definition beyond the registry's ``constant_at``
(:attr:`kpass.registry.Family.uncompared_at`: GeoSpectrum*@1 is 0 for every run, its
weights at k = 1 being empty), so comparing them tests nothing."""


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
    sizes: np.ndarray | None = None  # questions summed into each unit (a margin shifts by it)

    def shifted(self, margin: float) -> np.ndarray:
        """Margin - d per unit (summed over its questions): > 0 favours "B not worse"."""
        sizes = np.ones(self.units.size) if self.sizes is None else self.sizes
        return margin * sizes - self.units


def _row_values(point: Any, name: str, first: Any, second: Any, args: tuple[Any, ...],
                kwargs: dict[str, Any], clusters: Any, shared: bool) -> list[_Values]:
    """Per-question values and unit differences of every k, on the compared questions.

    The same alignment as :func:`kpass.compare` (:func:`kpass.stats.align.align_runs`), so
    the units are the ones its SE and p_exact use.
    """
    from ..stats._common import (
        _DATASET_LEVEL,
        _counts_of,
        _dataset_statistic,
        _labels,
        _per_question,
        _state_keys,
    )
    from ..stats.align import align_runs, subset_labels

    aligned = align_runs([first, second], ["A", "B"], shared=shared, verb="compare")
    R_a, R_b = aligned.runs
    labels = subset_labels(clusters, aligned)
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
        return [_Values(pseudo[:, 0, j], pseudo[:, 1, j], pseudo[:, 0, j] - pseudo[:, 1, j],
                        np.ones(groups)) for j in range(full.shape[1])]
    per_a, _ = _per_question(point, name, R_a, args, kwargs)
    per_b, _ = _per_question(point, name, R_b, args, kwargs)
    codes = _labels(labels, per_a[0].size)
    out = []
    for values_a, values_b in zip(per_a, per_b, strict=True):
        used = np.isfinite(values_a) & np.isfinite(values_b)
        d = np.where(used, values_a - values_b, 0.0)
        units = d if codes is None else np.bincount(codes, weights=d)
        sizes = (used.astype(float) if codes is None
                 else np.bincount(codes, weights=used.astype(float)))
        out.append(_Values(values_a, values_b, units, sizes))
    return out


def compare_lines(first: BinaryCounts, second: BinaryCounts, families: list[Family],
                  ks: list[int], taus: list[float], confidence: float, short: str,
                  clusters: list[Any] | None, *, notes: list[str] | None = None,
                  shared: bool = False, answers: tuple[list[Any], list[Any]] | None = None,
                  ties: str = "fractional", primary: str | None = None,
                  adjust: str = "max-t", prior: str = "uniform",
                  margin: float | None = None, equivalence: bool = False) -> list[Line]:
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
        adjust: ``"max-t"`` or ``"holm"``, the joint adjustment of the secondary rows.
        prior: ``"uniform"`` or ``"empirical"`` (``--prior``): the Beta prior behind
            P(A>B), for the metrics whose posterior has one.
        margin: a non-inferiority margin (``--margin``; B the new model): every row tests
            "B is not worse than A by more than margin" (:func:`judge`).
        equivalence: with ``margin``, every row tests |A - B| < margin.

    Returns:
        The lines, family by family, tau by tau, k by k (merged rows at the first's place).

    Raises:
        ValueError: kpass refused the inputs (different questions, too few, ...), or
            ``primary`` names no row.
    """
    from ..families import function
    from ..stats.comparison import compare as paired

    n_label = "n"
    collected: list[str] = [] if notes is None else notes
    lines: list[Line] = []
    for fam in families:
        point = function(fam.function)
        options = family_options(fam.function, clusters, confidence, shared, prior)
        if margin is not None:
            options.update(margin=margin, equivalence=equivalence)
        if fam.answers:
            if answers is None:
                raise InputError(f"{fam.key} needs the sampled answers (--answers)")
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
                raise InputError(f"{fam.key}: {error}") from None
            if not isinstance(results, list):  # one k given as a list: a list comes back
                results = [results]
            lines.extend(Line(fam.key, fam.label(k, tau, n_label), k, tau, result, values=value)
                         for k, result, value in zip(family_ks, results, values, strict=True))
    merged = merge_equal(lines, collected)
    collected.extend(interval_notes(merged))
    return judge(merged, confidence, primary, adjust)


def interval_notes(lines: list[Line]) -> list[str]:
    """Which rows' difference intervals are not difference -/+ t se (kpass.stats.intervals)."""
    notes = []
    for method, words in (("score", "score interval (the t interval reaches past -1 or 1)"),
                          ("exact", "exact bound (se = 0: every question agrees)")):
        named = [line.title for line in lines if getattr(line.result, "method", "t") == method]
        if named:
            notes.append(f"interval: {words} for {', '.join(named[:8])}"
                         f"{' ...' if len(named) > 8 else ''}")
    return notes


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


def _same_label(wanted: str, label: str) -> bool:
    """Labels equal, a threshold after the last ``_`` compared as a number.

    ``_0.50`` is ``_0.5``: a label may print its tau with two decimals (``G-Pass@4_0.50``).
    """
    if wanted == label:
        return True
    head, _, tail = wanted.rpartition("_")
    own_head, _, own_tail = label.rpartition("_")
    if not head or head != own_head:
        return False
    try:
        return math.isclose(float(tail), float(own_tail), abs_tol=1e-9)
    except ValueError:
        return False


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
        if any(_same_label(wanted, "".join(name.split()).lower())
               for name in line.names or [line.label]):
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
                        and (tau is None or (member.tau is not None
                                             and math.isclose(member.tau, tau,
                                                              abs_tol=1e-9)))):
                    return line
    names = ", ".join(name for line in lines for name in (line.names or [line.label]))
    raise InputError(f"--primary {primary}: no such row in this table; rows: {names} (or "
                     "METRIC:K, e.g. pass@k:1)")


def judge(lines: list[Line], confidence: float, primary: str | None, adjust: str = "max-t",
          *, flips: int | None = None) -> list[Line]:
    r"""The primary row alone at alpha; the secondary rows adjusted jointly; verdicts.

    With a margin (the rows' ``result.margin``): the same roles, each row testing its
    margin's claim (B the new model). The primary's p_adjusted is its ``p_margin`` (the
    one-sided t test, or TOST); the secondaries' are the one-sided max-T stepdown
    (``alternative="greater"``) of the shifted unit differences margin * size_u - x_ru,
    under the shifted null "each unit's difference is symmetric about the margin" (for
    equivalence the 2R one-sided hypotheses, margin - d and d + margin, adjusted jointly,
    each row taking the larger of its two: the intersection-union test), or Holm over
    their ``p_margin``. The verdict is "shown" or "not shown".

    Formula:
        alpha = 1 - confidence. The primary row's p_adjusted is its own p (the t test):
        it is the one comparison planned in advance, tested at alpha (``primary="none"``:
        no primary row, every row is secondary). The R secondary
        rows' p_adjusted are the max-T stepdown p-values of
        :func:`kpass.stats.multiplicity.maxt_stepdown` over their unit differences, all
        rows under the same sign flips (``adjust="max-t"``), or Holm's adjustment of their
        t-test p-values (``adjust="holm"``). A row's verdict is "A better" / "B better"
        when p_adjusted < alpha (by the sign of the difference), else "no detectable
        difference". Each of the two families (primary; secondaries) holds alpha on its
        own, so a false verdict anywhere in the table has probability at most 2 alpha
        (Bonferroni over the two families; measured in docs/explanation/statistics.md);
        ``primary="none"`` holds alpha for the whole table.

    Args:
        lines: the merged rows, in table order.
        confidence: 1 - alpha.
        primary: the primary row (:func:`find_row`), None for the first row.
        adjust: ``"max-t"`` or ``"holm"``.
        flips: random sign patterns of the max-T stepdown (default
            :data:`kpass.stats.small_sample.FLIPS`; simulations use fewer).

    Returns:
        The rows, primary first, each with ``role``, ``p_adjusted`` and ``verdict``.

    Raises:
        ValueError: ``adjust`` is not max-t or holm, or ``primary`` names no row.
    """
    from ..stats.multiplicity import ADJUSTMENTS, maxt_stepdown
    from .output import holm

    if adjust not in ADJUSTMENTS:
        raise InputError(f"--adjust must be one of {', '.join(ADJUSTMENTS)}; got {adjust!r}")
    if not lines:
        return lines
    margin = lines[0].result.margin if lines else None
    equivalence = bool(getattr(lines[0].result, "equivalence", False)) if lines else False

    def own_p(line: Line) -> float:
        return float(line.result.p_value if margin is None else line.result.p_margin)

    if primary is not None and primary.strip().lower() == "none":
        ordered, secondary = list(lines), list(lines)  # every row adjusted jointly
    else:
        chosen = lines[0] if primary is None else find_row(lines, primary)
        ordered = [chosen] + [line for line in lines if line is not chosen]
        chosen.role, chosen.p_adjusted, chosen.adjust = "primary", own_p(chosen), None
        secondary = ordered[1:]
    if len(ordered) == 1 and secondary:  # one row: nothing to adjust for
        line = ordered[0]
        line.role, line.p_adjusted, line.adjust = "secondary", own_p(line), None
        secondary = []
    if secondary:
        options: dict[str, Any] = {} if flips is None else {"flips": flips}
        if adjust == "holm":
            adjusted = holm([own_p(line) for line in secondary])
        elif margin is None:
            matrix = np.array([line.values.units for line in secondary])
            adjusted = [float(p) for p in maxt_stepdown(matrix, **options)]
        else:
            upper = [line.values.shifted(margin) for line in secondary]
            if equivalence:  # d + margin > 0 is the other side's evidence
                lower = [2.0 * margin * (line.values.sizes if line.values.sizes is not None
                                         else 1.0) - up for line, up in zip(secondary, upper,
                                                                            strict=True)]
                both = maxt_stepdown(np.array(upper + lower), alternative="greater",
                                     **options)
                adjusted = [float(p) for p in np.maximum(both[:len(upper)],
                                                         both[len(upper):])]
            else:
                adjusted = [float(p) for p in maxt_stepdown(np.array(upper),
                                                            alternative="greater", **options)]
        for line, p in zip(secondary, adjusted, strict=True):
            line.role, line.p_adjusted, line.adjust = "secondary", float(p), adjust
    alpha = 1.0 - confidence
    for line in ordered:
        r = line.result
        assert line.p_adjusted is not None
        if margin is not None:
            line.verdict = "shown" if line.p_adjusted < alpha else "not shown"
            continue
        line.verdict = ("A better" if line.p_adjusted < alpha and r.difference > 0 else
                        "B better" if line.p_adjusted < alpha and r.difference < 0 else
                        "no detectable difference")
    return ordered


__all__ = ["CONSTANT_AT", "compare_lines", "find_row", "judge",
           "merge_equal"]
