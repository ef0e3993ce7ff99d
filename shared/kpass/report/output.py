"""Output and option checks shared by ``kpass report``, ``compare`` and ``leaderboard``.

Writing to stdout, and the notes (warnings about small samples) printed under a table. It
sits below the commands, so none of them imports another to print.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from .. import registry
from .._core.counting.checks import InputError
from ..stats.rank_sets import _holm

__all__ = ["BRIEF_WIDTH", "brief", "brief_lines", "brief_notes", "capped_k_note", "cli_words",
           "collect_notes", "family_options", "holm", "_check_answers_options", "_write"]


def _write(text: str) -> int:
    """Write the report to stdout; a closed pipe is the reader's choice, a full disk an error."""
    if sys.stdout is None:  # started with stdout closed (`kpass report >&-`)
        print("kpass report: error: cannot write the report: standard output is closed",
              file=sys.stderr)
        return 1
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `kpass report | head`: the reader has had enough
        _discard_stdout()
        return 0
    except OSError as error:  # e.g. `kpass report > /dev/full`
        _discard_stdout()
        reason = error.strerror or str(error)
        print(f"kpass report: error: cannot write the report to standard output ({reason})",
              file=sys.stderr)
        return 1
    return 0


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so the exit-time flush of what is still buffered cannot fail."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # a StringIO (tests): nothing is flushed at exit
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, descriptor)
    os.close(null)


#: The core's Python words -> the command line's (options and columns), in order.
_CLI_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    # keep_at_least (kpass._core.counting.states): a k some question cannot supply
    (re.compile(r"`k` must be an int in \[1, n\]; got k=(\d+) but every question has fewer "
                r"than k (\w+) \(smallest n=(\d+)\)"),
     r"--k \1 is larger than every question's number of \2 (the smallest has n=\3)"),
    (re.compile(r"`k` must be an int in \[1, n\]; got k=(\d+) but (\d+ of \d+ questions) have "
                r"fewer than k (\w+) \(smallest n=(\d+)\); pass short=['\"]skip['\"] to "
                r"leave them out for that k"),
     r"--k \1: \2 have fewer than \1 \3 (smallest n=\4); choose --k up to \4, or pass "
     r"--short skip to leave them out at that k"),
    (re.compile(r"pass short=['\"]skip['\"]"), "pass --short skip"),
    (re.compile(r"short=['\"]skip['\"]"), "--short skip"),
    (re.compile(r"pass shared=True"), "pass --shared"),
    (re.compile(r"the Bayesian interval \(\*_ci\)"),
     "the Bayesian columns (mean, sd and the credible interval)"),
)


_KEYS = {str(family.function): str(family.key) for family in registry.REPORTED}


def cli_words(message: str) -> str:
    """A core (Python) message in the words of the command line: its flags and columns.

    The library speaks of its keywords (``short='skip'``, ``shared=True``, ``*_ci``); the
    CLI prints every error and note through this one function, so its user reads
    ``--short skip``, ``--shared``, ``choose --k up to N`` and the names of its columns.

    Example:
        >>> cli_words("pass short='skip' to leave them out for that k")
        'pass --short skip to leave them out for that k'
    """
    for pattern, replacement in _CLI_WORDS:
        message = pattern.sub(replacement, message)
    # compare's notes: "kpass.compare(pass_at_k): ..." names the row's family key, and the
    # exact sign test's p is the column "p exact"
    message = re.sub(r"kpass\.compare\((\w+)\): ",
                     lambda match: f"{_KEYS.get(match.group(1), match.group(1))}: ", message)
    return message.replace("(p_exact)", "(column p exact)").replace("p_exact", "p exact")


def capped_k_note(loaded: list[Any], ks: list[int], n_min: int, option: str = "--k"
                  ) -> list[str]:
    """A note when a few short questions hold the default k below the others' samples.

    The default k ladder stops at the smallest number of samples of any question, so one
    question with 1 sample among questions with 8 gives k = 1 alone; say so, naming it.

    Args:
        loaded: the inputs (each with ``n_max``, ``shortest`` and ``counts``).
        ks: the default ks chosen.
        n_min: the smallest number of samples over the inputs.
        option: how the caller asks for k (``--k``, or ``k=`` in Python).

    Returns:
        One note, or none when every question has the same number of samples.
    """
    n_max = max(item.n_max for item in loaded)
    if n_max == n_min or max(ks) >= n_max:
        return []
    item = next(item for item in loaded if item.n_min == n_min)
    short = int((item.counts.n_samples < n_max).sum())
    larger = "--k " if option == "--k" else "k="
    skip = "--short skip" if option == "--k" else 'short="skip"'
    return [f"k stops at {max(ks)} by default: {item.shortest} has only n={n_min} samples, "
            f"in {item.source} ({short} of {item.counts.n_questions} questions have fewer "
            f"than {n_max}); ask for larger k with {larger}{min(n_max, 8)} and {skip} to leave "
            "the short questions out at those k."]


BRIEF_WIDTH = 100
"""The longest line :func:`brief` makes of a note."""


def brief(note: str) -> str:
    """One short line of a note for the default output, pointing to ``--explain``.

    A note of one short sentence is returned as it is; a longer one up to its first clause
    break (``"; "``, or ``". "`` ending a sentence), then, if still longer than
    :data:`BRIEF_WIDTH` characters, up to its last ``": "``, ``" ("`` or ``", "`` that fits
    (else cut at a word); ``--explain`` prints it whole.

    Example:
        >>> print(brief("rows were paired by order: row q of A and row q of B must be the "
        ...             "same question; pass --id COLUMN to match them by id"))
        rows were paired by order: row q of A and row q of B must be the same question (--explain)
    """
    suffix = " (--explain)"
    cuts = [at for at in (note.find("; "), note.find(". ")) if at > 0]
    if not cuts and len(note) <= BRIEF_WIDTH:
        return note  # already one short line: nothing more to explain
    text = note[:min(cuts)] if cuts else note.rstrip(".")
    limit = BRIEF_WIDTH - len(suffix)
    if len(text) > limit:  # the longest run of whole clauses that fits, else cut at a word
        breaks = [match.start() for match in re.finditer(r": | \(|, ", text[:limit + 1])]
        text = (text[:max(breaks)] if breaks and max(breaks) > limit // 2 else
                text[:limit - 4].rsplit(" ", 1)[0].rstrip(",;:") + " ...")
    return text + suffix


#: The small-sample problems of a compare or leaderboard note -> their short line.
_PROBLEMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^only (\d+) (questions|clusters) \(fewer than \d+\)"),
     r"only \1 \2: the t intervals are rough; read p exact beside p"),
    (re.compile(r"^a standard error of 0"), "se = 0 on a row: its interval is the exact bound"),
    (re.compile(r"^an estimate \(([^)]*)\) within"),
     r"an estimate (\1) near 0 or 1: its interval is the score interval"),
)


def brief_lines(note: str) -> list[str]:
    """The short lines of one note: one per small-sample problem it lists, else :func:`brief`.

    A :class:`~kpass.SmallSampleWarning` of ``kpass.compare`` reads ``"what: problem;
    problem"``; each problem gets its own line, so none hides behind the first.

    Example:
        >>> for line in brief_lines("pass@k: only 5 questions (fewer than 30): intervals use "
        ...                         "Student's t with 4 degrees of freedom; check the exact "
        ...                         "test (column p exact) before acting; a standard error "
        ...                         "of 0: every question agrees"):
        ...     print(line)
        pass@k: only 5 questions: the t intervals are rough; read p exact beside p (--explain)
        pass@k: se = 0 on a row: its interval is the exact bound (--explain)
    """
    what, separator, rest = note.partition(": ")
    if separator and " " not in what:
        found = [match.expand(short) for part in rest.split("; ")
                 for pattern, short in _PROBLEMS if (match := pattern.match(part))]
        if found:
            return [f"{what}: {short} (--explain)" for short in found]
    return [brief(note)]


def brief_notes(notes: Sequence[str]) -> list[str]:
    """The default output's lines for ``notes``: :func:`brief_lines`, one per problem.

    The method notes (``interval: ...``, which rows' intervals are score or exact ones)
    are left to ``--explain``.

    A problem several rows share (``pass@k: only 5 questions ...``, ``pass^k: only 5
    questions ...``) is one line naming them (``pass@k, pass^k: ...``; ``3 metrics: ...``
    beyond two).
    """
    grouped: dict[str, list[str]] = {}
    for note in notes:
        if note.startswith("interval"):  # which rows are score or exact intervals: a method
            continue  # note, for --explain (se = 0 and few questions have their own lines)
        for line in brief_lines(note):
            what, separator, rest = line.partition(": ")
            if separator and " " not in what and rest.endswith("(--explain)"):
                grouped.setdefault(rest, []).append(what)
            else:
                grouped.setdefault(line, [])
    out = []
    for text, whats in grouped.items():
        if not whats:
            out.append(text)
            continue
        names = ", ".join(whats) if len(whats) <= 2 else f"{len(whats)} metrics"
        out.append(f"{names}: {text}")
    return out


@contextmanager
def collect_notes(notes: list[str]) -> Iterator[None]:
    """Catch kpass's :class:`~kpass.SmallSampleWarning` (and other UserWarnings) as notes.

    Inside, warnings are recorded instead of printed (no Python warning trace reaches the
    terminal); each distinct message is appended once to ``notes``, in the command line's
    words (:func:`cli_words`).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for item in caught:
        if issubclass(item.category, UserWarning):
            text = cli_words(str(item.message))
            if text not in notes:
                notes.append(text)


def family_options(function_name: str, clusters: Any, confidence: float, shared: bool,
                   prior: str) -> dict[str, Any]:
    """The options ``kpass compare`` and ``leaderboard`` pass with one family's call.

    ``clusters``, ``confidence`` and ``shared`` always; ``prior`` only when it is not the
    default and the family's posterior (``kpass.<function_name>_ci``) has a Beta prior to
    fit (the others keep their own prior; the note says so).
    """
    from .._core.moments.prior import has_beta_prior
    from ..families import function

    options: dict[str, Any] = {"clusters": clusters, "confidence": confidence, "shared": shared}
    if prior != "uniform" and has_beta_prior(function(function_name + "_ci")):
        options["prior"] = prior
    return options


def holm(p_values: list[float]) -> list[float]:
    r"""Holm's step-down adjusted p-values (family-wise error control at any level).

    Formula:
        with p_(1) <= ... <= p_(m) sorted, adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)).

    References:
        Holm (1979), "A simple sequentially rejective multiple test procedure", Scand. J.
        Statist. 6(2).
    """
    adjusted = _holm(np.asarray(p_values, dtype=float))  # the leaderboard's: one Holm in kpass
    return [float(x) for x in adjusted]


def _check_answers_options(args: argparse.Namespace) -> None:
    """Refuse options that would be ignored with (or without) ``--answers``.

    ``--threshold`` turns soft scores into 0/1 outcomes; with ``--answers`` an answer
    is correct when it equals its reference, so there is no score to threshold.
    ``--from``/``--filter`` read harness outcome files, which ``--answers`` does not.

    Raises:
        ValueError: the message for stderr.
    """
    if args.answers and args.threshold is not None:
        raise InputError("--threshold applies to soft scores, not to --answers (an answer is "
                         "correct when it equals its reference; to change what counts as equal, "
                         "use --normalize MODULE:FUNCTION)")
    if not args.answers and args.normalize is not None:
        raise InputError("--normalize applies to sampled answers: add --answers")
    if args.answers and (args.from_ is not None or args.filter is not None):
        option = "--from" if args.from_ is not None else "--filter"
        raise InputError(f"{option} reads a harness's 0/1 outcomes; --answers reads answers and "
                         "references (drop one of them)")
