"""How a reading problem is said: :class:`ReportError`, the one-line error of every reader.

Raised by the readers of :mod:`kpass.io` (a file, row or argument they cannot use, with
the file and line) and by the commands of :mod:`kpass.report` on top of them; the command
line prints ``str(error)`` as one line on stderr. Beside it: :func:`one_line` and
:func:`show` (a value as a message shows it), :func:`read_errors` and
:func:`describe_read_error` (what a broken file raises, in words), and the internal
:class:`BadRowError` a batch raises before its reader names the line.
"""

from __future__ import annotations

import csv
import re
import sys
import zlib
from typing import Any

from .._core.counting.checks import InputError

_LINE_BREAKS = re.compile(r"\s*[\r\n]+\s*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class ReportError(InputError):
    """A file, row or argument ``kpass report`` cannot use; ``str()`` is a one-line message."""

    def __init__(self, source: str, problem: str, where: str | None = None) -> None:
        self.source = one_line(source)
        self.where = where
        self.problem = one_line(problem)
        super().__init__(f"{self.source}: {where}: {self.problem}" if where
                         else f"{self.source}: {self.problem}")


def one_line(text: str) -> str:
    r"""``text`` as one printable line, so that any stderr can print it.

    Line breaks become spaces; control characters and undecodable bytes (surrogates)
    are escaped.

    Example:
        >>> one_line("Invalid data\nDeserializing page header failed.\n)")
        'Invalid data Deserializing page header failed. )'
    """
    text = _LINE_BREAKS.sub(" ", text.strip())
    text = _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def read_errors() -> tuple[type[BaseException], ...]:
    """The exception types a broken or unreadable file raises while it is read.

    OSError covers permissions, directories, a full disk and ``gzip.BadGzipFile``;
    EOFError a truncated gzip stream; zlib.error corrupt compressed data;
    csv.Error a malformed CSV; pyarrow's errors a corrupt Parquet or Arrow file.
    """
    types: list[type[BaseException]] = [OSError, EOFError, zlib.error, UnicodeDecodeError,
                                        csv.Error]
    if "pyarrow" in sys.modules:  # never import pyarrow just to name its error type
        types.append(sys.modules["pyarrow"].ArrowException)
    return tuple(types)


def describe_read_error(error: BaseException) -> str:
    """A one-line description of an error raised while reading a file (see :func:`read_errors`).

    Example:
        >>> describe_read_error(EOFError("Compressed file ended"))
        'the compressed file is truncated (it ends before the end of the gzip stream)'
    """
    import gzip

    if isinstance(error, gzip.BadGzipFile):
        return "not a gzip file (named .gz, but its content is not gzip-compressed)"
    if isinstance(error, EOFError):
        return "the compressed file is truncated (it ends before the end of the gzip stream)"
    if isinstance(error, zlib.error):
        return f"the compressed data is corrupt ({error})"
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text ({error.reason} at byte {error.start + 1} of the line)"
    if isinstance(error, csv.Error):
        return f"not valid CSV ({error})"
    if isinstance(error, PermissionError):
        return "cannot read the file (permission denied)"
    if isinstance(error, OSError):
        reason = error.strerror or str(error) or type(error).__name__
        return f"cannot read the file ({reason})"
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"not a readable file ({text})"


class BadRowError(Exception):
    """Row ``index`` of a batch cannot be read (internal; becomes a ReportError)."""

    def __init__(self, index: int, problem: str) -> None:
        super().__init__(problem)
        self.index = index
        self.problem = problem


def show(value: Any) -> str:
    """A short repr of ``value`` for messages."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
