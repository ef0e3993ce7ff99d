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
