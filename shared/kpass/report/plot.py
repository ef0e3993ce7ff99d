"""``kpass report --plot``: Pass@k, Pass^k, G-Pass@k_tau and Maj@k against k, with bands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..io.readers import INSTALL_HINT, ReportError
from .table import Row

FIGURE_INCHES = (10.0, 7.5)
DPI = 100
"""A PNG is always FIGURE_INCHES x DPI pixels: 1000 x 750."""

PANELS = (
    ("pass@k", "Pass@k"),
    ("pass^k", "Pass^k"),
    ("g-pass@k", "G-Pass@k$_\\tau$"),
    ("maj@k", "Maj@k"),
)


def plot_curves(path: str, labels: list[str], rows: list[list[Row]], confidence: float) -> None:
    """Draw one panel per family, one line per input, with its credible band.

    The line is the point estimate; the band runs from ``lo`` to ``hi``.

    Args:
        path: where to write the figure (the suffix picks the format: png, pdf, svg).
        labels: one legend entry per input.
        rows: per input, its rows for the plotted families (see ``_report.PLOTTED``).
        confidence: the credibility level, for the caption.

    Raises:
        ReportError: matplotlib is missing, or the figure cannot be written.
    """
    try:
        import matplotlib  # noqa: F401 - only to give a clear message when it is missing
    except ImportError:
        raise ReportError(path, f"--plot needs matplotlib; {INSTALL_HINT}") from None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=FIGURE_INCHES, dpi=DPI)
    FigureCanvasAgg(figure)  # the Agg canvas, without touching pyplot's global backend
    axes = figure.subplots(2, 2, sharex=True)
    all_k = sorted({row.k for input_rows in rows for row in input_rows if row.k is not None})
    logarithmic = len(all_k) > 1 and all_k[-1] / all_k[0] > 8
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
            ax.fill_between(ks, [row.lo for row in points], [row.hi for row in points],
                            color=line.get_color(), alpha=0.2, linewidth=0)
        ax.set_title(title.replace("\\tau", f"\\tau={tau:g}") if tau is not None else title)
        ax.set_ylim(-0.02, 1.02)
        ax.grid(True, alpha=0.3)
        if logarithmic:
            ax.set_xscale("log", base=2)
        if all_k:
            ax.set_xticks(all_k, [str(k) for k in all_k])
    for ax in axes[1]:
        ax.set_xlabel("k")
    axes[0][0].legend(loc="best", fontsize="small")
    figure.suptitle(f"kpass report: estimates with {confidence * 100:g}% credible bands")
    target = Path(path)
    try:
        figure.savefig(target, dpi=DPI, format=target.suffix.lower().lstrip("."))
    except (OSError, ValueError) as error:
        raise ReportError(path, f"cannot write the plot ({error})") from None


def plot_differences(path: str, labels: list[str], lines: list[Any], confidence: float) -> None:
    """``kpass compare --plot``: the difference A - B against k, one line per metric, with bands.

    The band runs from ``lo`` to ``hi`` of the paired interval over questions; a band
    that stays clear of the zero line is a difference the data support.

    Args:
        path: where to write the figure (png, pdf or svg by its suffix).
        labels: the two inputs' labels (A, B).
        lines: the comparison lines (:class:`kpass.report.compare.Line`).
        confidence: the interval's level, for the caption.

    Raises:
        ReportError: matplotlib is missing, or the figure cannot be written.
    """
    try:
        import matplotlib  # noqa: F401 - only to give a clear message when it is missing
    except ImportError:
        raise ReportError(path, f"--plot needs matplotlib; {INSTALL_HINT}") from None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=FIGURE_INCHES, dpi=DPI)
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    series: dict[str, list[Any]] = {}
    for line in lines:
        if line.k is not None:
            key = line.metric + ("" if line.tau is None else f"_{line.tau:g}")
            series.setdefault(key, []).append(line)
    all_k = sorted({line.k for points in series.values() for line in points})
    for key, points in series.items():
        ks = [line.k for line in points]
        drawn, = ax.plot(ks, [line.result.difference for line in points], marker="o",
                         markersize=4, label=key)
        ax.fill_between(ks, [line.result.lo for line in points],
                        [line.result.hi for line in points], color=drawn.get_color(),
                        alpha=0.15, linewidth=0)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.grid(True, alpha=0.3)
    if len(all_k) > 1 and all_k[-1] / all_k[0] > 8:
        ax.set_xscale("log", base=2)
    if all_k:
        ax.set_xticks(all_k, [str(k) for k in all_k])
    ax.set_xlabel("k")
    ax.set_ylabel(f"difference  A - B   (A = {labels[0]}, B = {labels[1]})")
    ax.legend(loc="best", fontsize="small")
    ax.set_title(f"kpass compare: paired difference with {confidence * 100:g}% intervals over "
                 "questions")
    target = Path(path)
    try:
        figure.savefig(target, dpi=DPI, format=target.suffix.lower().lstrip("."))
    except (OSError, ValueError) as error:
        raise ReportError(path, f"cannot write the plot ({error})") from None


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
    try:
        import matplotlib  # noqa: F401 - only to give a clear message when it is missing
    except ImportError:
        raise ReportError(path, f"--plot needs matplotlib; {INSTALL_HINT}") from None
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    models = len(boards[0].result.rows)
    height = min(30.0, 1.2 + sum(0.9 + 0.32 * len(board.result.rows) for board in boards))
    figure = Figure(figsize=(FIGURE_INCHES[0], max(3.0, height)), dpi=DPI,
                    layout="constrained")
    FigureCanvasAgg(figure)
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
    target = Path(path)
    try:
        figure.savefig(target, dpi=DPI, format=target.suffix.lower().lstrip("."))
    except (OSError, ValueError) as error:
        raise ReportError(path, f"cannot write the plot ({error})") from None
