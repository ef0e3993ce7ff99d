"""Is an outcome cell one value or a list? The check that tells a long CSV from a wide one.

A CSV/TSV whose outcome cells hold one value each is the long format (one row per sample)
and needs ``--id``; read as wide it would silently become one-sample questions. Both the
wide reader (:mod:`kpass.io.formats.readers`) and the long reader (:mod:`kpass.io.long.load`)
use it, so it lives below both.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from ..errors import ReportError, read_errors, show
from ..rows import LONG_HINT, pick_column
from .parsers import _open_bytes

__all__ = ["refuse_scalar_cells"]

_SEPARATORS = re.compile(r"[\s,;|]")


def _is_scalar_cell(cell: str) -> bool:
    """One value, not a list: no brackets and none of the list separators of parse_cell."""
    return bool(cell) and cell[:1] not in "[(" and not _SEPARATORS.search(cell)


def refuse_scalar_cells(source: str, path: Path, column: str | None, delimiter: str) -> None:
    """Refuse a CSV/TSV whose first outcome cell is one value: the long format needs ``--id``.

    Read without ``--id``, such a file would silently become one-sample questions.

    Raises:
        ReportError: naming the line, the cell and ``--id``. A file that cannot be
            read is left to the reader, which says why in its words.
    """
    try:
        _first_cell_check(source, path, column, delimiter)
    except read_errors():
        return


def _first_cell_check(source: str, path: Path, column: str | None, delimiter: str) -> None:
    with _open_bytes(path) as (stream, _raw):
        reader = csv.reader(io.TextIOWrapper(stream, encoding="utf-8-sig", errors="replace",
                                             newline=""), delimiter=delimiter)
        header = next(reader, None)
        while header is not None and not any(cell.strip() for cell in header):
            header = next(reader, None)
        if header is None:
            return
        names = [name.strip() for name in header]
        if column is None and not any(n in names for n in ("outcomes", "correct", "scores")):
            return  # the reader reports the missing column in its words
        if column is not None and column not in names:
            return
        index = names.index(pick_column(names, column, source))
        for record in reader:
            if any(cell.strip() for cell in record):
                if index < len(record) and _is_scalar_cell(record[index].strip()):
                    raise ReportError(source, f"`{names[index]}` holds one outcome per row "
                                              f"({show(record[index].strip())}), not a list. "
                                              f"{LONG_HINT}", f"line {reader.line_num}")
                return
