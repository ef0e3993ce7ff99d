r"""Which files are Inspect AI logs, and which folders hold them (without inspect-ai).

An Inspect log is an ``.eval`` file (a zip) or a ``.json`` document as Inspect writes it
(``{"version": 2, "status": ...``), also re-saved by another tool: keys sorted (``status``
and ``version`` then come last) or a byte-order mark first. ``inspect eval-set`` writes its
logs into one folder beside its own bookkeeping (``logs.json``, ``eval-set.json``,
``.eval-set-id``); runs are often kept in sub-folders (``logs/<model>/...``). Each log is
one run (a model on a task): a folder of logs is several inputs, never one pooled table.

Before Inspect's reader opens an ``.eval`` log, :func:`check_members` refuses a member
declared larger than a limit (a zip bomb would otherwise be inflated into memory).
"""

from __future__ import annotations

import math
import os
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path

from ..errors import ReportError

__all__ = ["BOOKKEEPING", "MAX_MEMBER_MB", "check_members", "expand_inspect_logs",
           "is_inspect_log"]

_KEY = rb'"(?:version|status|eval|error|invalidated|location|etag|plan|results|stats)"'
_JSON_HEAD = re.compile(rb"\A\s*\{\s*" + _KEY + rb"\s*:")
"""The first bytes of an Inspect ``.json`` log: ``{"version": 2`` (or, keys sorted,
``{"eval": {``)."""
_FIELDS = (re.compile(rb'"eval"\s*:\s*\{'), re.compile(rb'"version"\s*:\s*\d'),
           re.compile(rb'"status"\s*:\s*"(?:started|success|cancelled|error)"'))
"""What an Inspect ``.json`` log holds, at its start or (keys sorted) at its end."""
_SCAN = 65536

BOOKKEEPING = frozenset({"logs.json", "eval-set.json"})
"""The files ``inspect eval-set`` writes beside its logs (they are not logs)."""


def is_inspect_log(path: str | Path) -> bool:
    """Whether ``path`` is an Inspect log.

    An ``.eval`` file, or a ``.json`` file starting as Inspect writes one (``{"version":
    N, "status": ...``), also with its keys sorted or a byte-order mark first: its first
    and last 64 KB then hold the log's ``eval``, ``version`` and ``status``. Never raises.

    Example:
        >>> is_inspect_log("README.md")
        False
    """
    path = Path(path)
    try:
        if not path.is_file():
            return False
        suffix = path.suffix.lower()
        if suffix == ".eval":
            return True
        if suffix != ".json" or path.name in BOOKKEEPING:
            return False
        with open(path, "rb") as handle:
            head = handle.read(_SCAN).removeprefix(b"\xef\xbb\xbf")
            if _JSON_HEAD.match(head) is None:
                return False
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - _SCAN))
            tail = handle.read(_SCAN)
    except OSError:
        return False
    return all(field.search(head) or field.search(tail) for field in _FIELDS)


def _logs_in(source: str) -> list[str] | None:
    """The Inspect logs of a folder (its sub-folders too) or pattern; None if it holds others.

    Inspect's bookkeeping files (``logs.json``, ``eval-set.json``) are passed over.
    """
    from ..shards import is_pattern, shard_parts

    if Path(source).is_dir():
        pattern = os.path.join(source, "**", "*")
    elif is_pattern(source):
        pattern = source
    else:
        return None
    try:  # the one walker of folders and patterns: links followed, each real file once
        parts = shard_parts(pattern, formats=False)
    except ReportError:
        return None  # the reader says what is wrong with this input
    files = [path for path in (parts.paths if parts else [])
             if Path(path).name not in BOOKKEEPING]
    if files and all(is_inspect_log(file) for file in files):
        return files
    return None


def expand_inspect_logs(sources: Iterable[str]) -> list[str]:
    """Each folder or glob pattern holding only Inspect logs -> its logs, one input each.

    Every log is its own run (a model on a task), so a folder of logs (as ``inspect
    eval-set`` writes it, or with a sub-folder per run) is several inputs, not one pooled
    table; any other source is kept as it is (a folder of part files is still one input,
    :func:`kpass.io.shards.shard_paths`).

    Example:
        >>> expand_inspect_logs(["runs.jsonl"])
        ['runs.jsonl']
    """
    out: list[str] = []
    for source in sources:
        logs = _logs_in(source)
        out.extend([source] if logs is None else logs)
    return out


MAX_MEMBER_MB = 1024
"""The largest member an ``.eval`` log may inflate to, in MB (``KPASS_INSPECT_MAX_MB``)."""


def check_members(source: str, limit_mb: float | None = None) -> None:
    """Refuse an ``.eval`` log (a zip) with a member declared larger than ``limit_mb``.

    Checked before Inspect's reader opens it: a member that inflates to gigabytes (a zip
    bomb, or a log that is not what it seems) would otherwise be inflated into memory.
    The declared size bounds what Python's ``zipfile`` inflates (it stops there and fails
    the CRC), so with every member under the limit memory stays bounded.

    Args:
        source: the log; files that are not ``.eval`` are not checked.
        limit_mb: the limit in MB (10^6 bytes); default ``KPASS_INSPECT_MAX_MB`` from the
            environment, else :data:`MAX_MEMBER_MB`.

    Raises:
        ReportError: a member over the limit (naming it, its size and the limit), or a
            limit that is not a positive number.
    """
    if Path(source).suffix.lower() != ".eval" or not Path(source).is_file():
        return
    if limit_mb is None:
        text = os.environ.get("KPASS_INSPECT_MAX_MB", "").strip()
        try:
            limit_mb = float(text) if text else float(MAX_MEMBER_MB)
        except ValueError:
            limit_mb = math.nan
        if not limit_mb > 0 or not math.isfinite(limit_mb):
            raise ReportError(source, f"KPASS_INSPECT_MAX_MB={text!r} is not a positive "
                                      "number of MB")
    try:
        with zipfile.ZipFile(source) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError) as error:
        raise ReportError(source, f"not a readable Inspect log ({error})") from None
    limit = limit_mb * 1e6
    for member in members:
        if member.file_size > limit:
            raise ReportError(source, f"member {member.filename!r} inflates to "
                                      f"{member.file_size:,} bytes, over the limit of "
                                      f"{limit_mb:g} MB for one member of an .eval log; if "
                                      "you trust the file, raise it with "
                                      "KPASS_INSPECT_MAX_MB=N")
