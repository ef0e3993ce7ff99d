"""A small progress bar for reading large files, drawn on stderr only when it is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """A one-line progress bar: ``label [#######       ] 47%  1.2 GB / 2.6 GB``.

    It draws nothing unless the stream is a terminal, so pipes, files and CI logs
    stay clean; it redraws at most ten times a second.

    Args:
        label: what is being read (shown before the bar).
        stream: where to draw; defaults to ``sys.stderr``.
        enabled: force drawing on or off; by default, on when ``stream`` is a TTY.
    """

    width = 30

    def __init__(self, label: str, stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.total = 0.0
        self.unit = "bytes"
        self.drawn = False
        self.last = 0.0

    def start(self, total: float, unit: str) -> None:
        """Set the amount of work: ``total`` bytes or rows."""
        self.total, self.unit = float(total), unit

    def update(self, done: float) -> None:
        """Redraw with ``done`` of ``total`` finished."""
        if not self.enabled or self.total <= 0:
            return
        now = time.monotonic()
        if self.drawn and now - self.last < 0.1 and done < self.total:
            return
        self.last = now
        fraction = min(1.0, max(0.0, done / self.total))
        filled = int(round(fraction * self.width))
        bar = "#" * filled + " " * (self.width - filled)
        amount = f"{_amount(done, self.unit)} / {_amount(self.total, self.unit)}"
        self.stream.write(f"\r{self.label} [{bar}] {fraction:4.0%}  {amount}\033[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """Erase the bar, leaving the terminal line clean."""
        if self.drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.drawn = False


def _amount(value: float, unit: str) -> str:
    if unit != "bytes":
        return f"{int(value):,} {unit}"
    for name in ("B", "kB", "MB", "GB"):
        if value < 1000 or name == "GB":
            return f"{value:.0f} {name}" if name == "B" else f"{value:.1f} {name}"
        value /= 1000
    return f"{value:.1f} TB"  # pragma: no cover - the loop returns at GB
