"""``kpass report --plot``: Pass@k, Pass^k, G-Pass@k_tau and Maj@k against k, with bands."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from .. import registry
from .._core.counting.checks import check_choice
from ..io.errors import ReportError
from ..io.rows import INSTALL_HINT
from .rows import Row

FIGURE_INCHES = (10.0, 7.5)
DPI = 100
"""A PNG is always FIGURE_INCHES x DPI pixels: 1000 x 750."""

PANELS = tuple((str(f.report), f.title.format(k="k", tau="{tau}", n="n").replace(
    "_{tau}", "$_\\tau$")) for f in registry.REPORTED if f.plotted)
"""(family, panel title) of the 2 x 2 figure: the registry's plotted families, e.g.
``("g-pass@k", "G-Pass@k$_\\tau$")``."""


def _figure(path: str, inches: tuple[float, float]) -> Any:
    """A matplotlib Figure on the Agg canvas (pyplot's global backend untouched).

    Raises:
        ReportError: matplotlib is missing.
    """
    try:
        importlib.import_module("matplotlib")  # only to fail early with a clear message
    except ImportError:
        raise ReportError(path, f"--plot needs matplotlib; {INSTALL_HINT}") from None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=inches, dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Any, path: str) -> None:
    """Write the figure in the format its suffix names (png, pdf, svg)."""
    target = Path(path)
    try:
        figure.savefig(target, dpi=DPI, format=target.suffix.lower().lstrip("."))
    except (OSError, ValueError) as error:
        raise ReportError(path, f"cannot write the plot ({error})") from None


def _k_axis(ax: Any, all_k: list[int]) -> None:
    """Put k on a log-2 axis when it spans more than a factor 8, every k a tick."""
    if len(all_k) > 1 and all_k[-1] / all_k[0] > 8:
        ax.set_xscale("log", base=2)
    if all_k:
        ax.set_xticks(all_k, [str(k) for k in all_k])


BANDS = ("se", "posterior")
"""What ``kpass report --plot`` shades around each line: the interval over questions
(``se``, default: the error bar readers expect) or the posterior credible interval on these
very questions (``posterior``)."""


def plot_curves(path: str, labels: list[str], rows: list[list[Row]], confidence: float,
                band: str = "se") -> None:
    """Draw one panel per family, one line per input, with its band.

    The line is the point estimate; the band runs from ``lo`` to ``hi`` (the
    confidence interval over questions of :mod:`kpass.stats.intervals`, ``band="se"``) or
    from ``cred_lo`` to ``cred_hi`` (the posterior credible interval with the questions fixed,
    ``band="posterior"``).

    Args:
        path: where to write the figure (the suffix picks the format: png, pdf, svg).
        labels: one legend entry per input.
        rows: per input, its rows for the plotted families (see ``_report.PLOTTED``).
        confidence: the level, for the caption.
        band: ``"se"`` or ``"posterior"``.

    Raises:
        ReportError: matplotlib is missing, or the figure cannot be written.
        ValueError: an unknown ``band``.
    """
    check_choice(band, "band", BANDS)
    figure = _figure(path, FIGURE_INCHES)
    axes = figure.subplots(2, 2, sharex=True)
    all_k = sorted({row.k for input_rows in rows for row in input_rows if row.k is not None})
    for ax, (key, title) in zip(axes.flat, PANELS, strict=True):
        tau = None
        for label, input_rows in zip(labels, rows, strict=True):
            points = [row for row in input_rows if row.metric == key]
            if not points:
                continue
            tau = points[0].tau if tau is None else tau
            ks = [row.k for row in points]
            line, = ax.plot(ks, [row.estimate for row in points], marker="o", markersize=4,
                            label=label)
            ends = ([(row.cred_lo, row.cred_hi) for row in points] if band == "posterior"
                    else [(row.lo, row.hi) for row in points])
            low = [end[0] for end in ends if end[0] is not None and end[1] is not None]
            high = [end[1] for end in ends if end[0] is not None and end[1] is not None]
            if len(low) < len(points):
                continue  # fewer than 2 questions: no interval over questions
            ax.fill_between(ks, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
        # The threshold in words beside the name: "G-Pass@k_tau=0.5" read as a value.
        name = f"{title} with $\\tau$ = {tau:g}" if tau is not None and "tau" in title else title
        ax.set_title(name, fontsize=10)
        ax.set_ylabel(f"{title} (estimate)")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(True, alpha=0.3)
        _k_axis(ax, all_k)
    for ax in axes[1]:
        ax.set_xlabel("k (samples per question drawn)")
    axes[0][0].legend(loc="lower right", fontsize="small")
    level = f"{confidence * 100:g}%"
    caption = (f"bands: {level} confidence interval over questions (t; score near 0 or 1; "
               "exact when se = 0)" if band == "se"
               else f"bands: {level} posterior credible interval, these questions held fixed")
    figure.suptitle(f"kpass report: estimates against k; {caption}", fontsize=11)
    _save(figure, path)


def plot_differences(path: str, labels: list[str], lines: list[Any], confidence: float) -> None:
    """``kpass compare --plot``: small multiples, one panel per metric, A - B against k.

    Each panel draws the paired difference with its interval over questions as a band, the
    zero line, and which side favours which model. The bands are unadjusted (each row's own
    interval), while the verdicts of a table with several rows use the adjusted p (the
    title says so): a band clear of zero on a secondary row is not yet a verdict.

    Args:
        path: where to write the figure (png, pdf or svg by its suffix).
        labels: the two inputs' labels (A, B).
        lines: the comparison lines (:class:`kpass.report.compare_render.Line`).
        confidence: the interval's level, for the caption.

    Raises:
        ReportError: matplotlib is missing, or the figure cannot be written.
    """
    series: dict[str, list[Any]] = {}
    for merged in lines:
        for line in getattr(merged, "members", None) or [merged]:
            if line.k is None:
                continue
            key = line.metric + ("" if line.tau is None else f" (tau={line.tau:g})")
            series.setdefault(key, []).append(line)
    for points in series.values():  # the primary row comes first in the table
        points.sort(key=lambda line: line.k)
    columns = min(3, max(1, len(series)))
    count = max(1, len(series))
    grid_rows = -(-count // columns)
    figure = _figure(path, (FIGURE_INCHES[0], max(3.2, 2.9 * grid_rows + 0.8)))
    axes = figure.subplots(grid_rows, columns, squeeze=False, sharex=True)
    all_k = sorted({line.k for points in series.values() for line in points})
    for ax, (key, points) in zip(axes.flat, series.items(), strict=False):
        ks = [line.k for line in points]
        ax.fill_between(ks, [line.result.lo for line in points],
                        [line.result.hi for line in points], color="tab:blue", alpha=0.2,
                        linewidth=0)
        ax.plot(ks, [line.result.difference for line in points], marker="o", markersize=4,
                color="tab:blue")
        ax.axhline(0.0, color="black", linewidth=0.9)
        ax.set_title(key, fontsize=10)
        ax.grid(True, alpha=0.3)
        _k_axis(ax, all_k)
        for text, height, where in (("favours A", 0.98, "top"), ("favours B", 0.02, "bottom")):
            ax.annotate(text, xy=(0.99, height), xycoords="axes fraction", ha="right",
                        va=where, fontsize=8, color="dimgray",
                        bbox={"boxstyle": "round,pad=0.2", "facecolor": "white",
                              "edgecolor": "none", "alpha": 0.8})
        low, high = ax.get_ylim()
        reach = max(abs(low), abs(high))
        ax.set_ylim(-reach, reach)  # zero in the middle: up favours A, down favours B
    for ax in list(axes.flat)[len(series):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("k")
    for ax in axes[:, 0]:
        ax.set_ylabel("A - B")
    level = f"{confidence * 100:g}%"
    several = len(lines) > 1
    figure.suptitle(f"kpass compare: A = {labels[0]} minus B = {labels[1]}, paired, with "
                    f"{level} intervals over questions"
                    + ("\nbands unadjusted, one row at a time; the verdicts use p adj "
                       "(primary alone, the other rows adjusted jointly)" if several else ""),
                    fontsize=11)
    _save(figure, path)


def plot_leaderboard(path: str, boards: list[Any], confidence: float) -> None:
    """``kpass leaderboard --plot``: a forest plot per metric and k, best model on top.

    Each model's estimate is a dot with its interval over questions as a bar; its joint rank
    set is written at the right. Panels stack vertically, one per metric and k.

    Args:
        path: where to write the figure (png, pdf or svg by its suffix).
        boards: the leaderboards (:class:`kpass.report.leaderboard.Board`).
        confidence: the level of the intervals and rank sets, for the caption.

    Raises:
        ReportError: matplotlib is missing, or the figure cannot be written.
    """
    models = len(boards[0].result.rows)
    height = min(30.0, 1.2 + sum(0.9 + 0.32 * len(board.result.rows) for board in boards))
    figure = _figure(path, (FIGURE_INCHES[0], max(3.0, height)))
    axes = figure.subplots(len(boards), 1, squeeze=False)[:, 0]
    level = f"{confidence * 100:g}%"
    for ax, board in zip(axes, boards, strict=True):
        rows = board.result.rows
        y = list(range(len(rows)))[::-1]  # best on top
        estimates = [row.estimate for row in rows]
        ax.errorbar(estimates, y, xerr=[[row.estimate - row.lo for row in rows],
                                        [row.hi - row.estimate for row in rows]],
                    fmt="o", color="tab:blue", ecolor="tab:blue", elinewidth=2, capsize=3,
                    markersize=5)
        ax.set_yticks(y, [f"{row.rank}. {row.name}" for row in rows])
        ax.set_ylim(-0.7, len(rows) - 0.3)
        for position, row in zip(y, rows, strict=True):
            rank_set = (f"rank {row.rank_lo}" if row.rank_lo == row.rank_hi
                        else f"ranks {row.rank_lo}-{row.rank_hi}")
            ax.annotate(rank_set, xy=(1.0, position), xycoords=("axes fraction",
                                                                            "data"),
                        xytext=(8, 0), textcoords="offset points", va="center", fontsize=9)
        ax.set_title(f"{board.label} on {board.result.questions} questions", loc="left",
                     fontsize=10)
        ax.set_xlabel(f"{board.label}: estimate with {level} interval over questions")
        ax.grid(True, axis="x", alpha=0.3)
    figure.suptitle(f"kpass leaderboard: {models} models; right: {level} joint rank sets")
    _save(figure, path)
