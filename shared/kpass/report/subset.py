"""The subset commands: `kpass subset` draws questions, `kpass report --subset` estimates from them.

``kpass subset RUNS... --questions M --seed S`` reads the reference runs (one file per past
model, every question), draws M questions with :func:`kpass.choose_questions` and writes one
row per chosen question: ``id``, ``inclusion``, ``stratum``, ``population``, ``design``,
``seed`` (CSV, or JSONL with ``--format jsonl``). Run the new model on those ids, then
``kpass report NEW --subset FILE --reference-runs RUNS...`` prints
:func:`kpass.subset_estimate` for each metric and k: the estimate of the new model's score on
all the benchmark's questions, its SE over the draw, the interval, the SE a simple random
subset would have had and the share of variance the predictions explained.
``kpass compare A B --subset FILE [FILE_B] --reference-runs RUNS...`` prints
:func:`kpass.subset_compare`: the difference of the two models' scores on all the questions
(one FILE: both ran on it, paired; two: one each, ``all`` for a run on every question).
``kpass leaderboard RUNS... --subset NAME=FILE... --reference-runs RUNS...`` prints
:func:`kpass.subset_leaderboard`: the full runs and the models run on subsets in one table.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..families import function
from ..io.errors import ReportError
from ..stats.subset import subset_estimate
from ..stats.subset_compare import subset_compare
from ..stats.subset_design import DESIGNS, Subset, choose_questions
from ..stats.subset_leaderboard import SUBSET_NOTE, subset_leaderboard, table_text
from .inputs import load_outcomes
from .leaderboard import split_names
from .output import _write, cli_words

#: The columns of a subset file, in order.
SUBSET_FIELDS = ("id", "inclusion", "stratum", "population", "design", "seed")
#: The fields of one difference in ``kpass compare --subset --format json``.
COMPARISON_FIELDS = ("metric", "k", "a", "b", "difference", "se", "lo", "hi", "confidence",
                     "df", "p_value", "se_a", "se_b", "se_unpaired", "same_subset")
#: The fields of one estimate in ``kpass report --subset --format json``.
ESTIMATE_FIELDS = ("metric", "k", "estimate", "se", "lo", "hi", "confidence", "srs_se",
                   "explained", "questions", "population", "design")


def add_subset_parser(commands: Any, count: Any, harness_options: Any) -> None:
    """The ``subset`` subcommand's options (called by the parser with its checks)."""
    command = commands.add_parser(
        "subset", help="draw the questions to run a new model on, from past models' runs",
        description="Read the reference runs (one file per past model, on every question) "
                    "and draw --questions of the benchmark's questions at random with known "
                    "inclusion probabilities (stratified by the references' success rates, "
                    "Neyman allocation), reproducibly from --seed. Run the new model on the "
                    "written ids, then: kpass report NEW --subset FILE --reference-runs "
                    "RUNS...",
        epilog="See docs/how-to/subset.md.")
    command.add_argument("files", nargs="+", metavar="[NAME=]FILE", help="one run per model")
    command.add_argument("--questions", type=count(2), required=True, metavar="M",
                         help="how many questions to choose")
    command.add_argument("--seed", type=count(0), required=True, metavar="S",
                         help="the seed of the draw")
    command.add_argument("--design", choices=DESIGNS, default="stratified",
                         help="stratified (default) or simple random")
    command.add_argument("--id", metavar="COLUMN",
                         help="the question-id column (without it, questions are rows 0..N-1)")
    command.add_argument("--column", metavar="NAME", help="the outcome column")
    harness_options(command)
    command.add_argument("--format", choices=("csv", "jsonl"), default="csv",
                         help="csv (default) or jsonl")
    command.add_argument("--out", metavar="FILE", help="write to FILE (default: stdout)")
    command.add_argument("--chunk-size", type=count(1), default=65536, metavar="ROWS",
                         help="rows read and counted at a time (default: 65536)")
    command.set_defaults(command_parser=command, sample=None)


def _reference(args: argparse.Namespace, files: list[str]) -> dict[str, Any]:
    names, paths = split_names(list(files))
    loaded, _ = load_outcomes(paths, args, "subset")
    return {name: item.counts for name, item in zip(names, loaded, strict=True)}


def render_subset(subset: Subset, form: str) -> str:
    """The subset as CSV or JSONL (:data:`SUBSET_FIELDS`)."""
    rows = [dict(zip(SUBSET_FIELDS, (q, float(p), int(h), subset.population, subset.design,
                                     subset.seed), strict=True))
            for q, p, h in zip(subset.ids, subset.inclusion, subset.stratum, strict=True)]
    if form == "jsonl":
        return "".join(json.dumps(row) + "\n" for row in rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=SUBSET_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def run_subset(args: argparse.Namespace) -> int:
    """Run ``kpass subset``: 0 on success, 1 when an input cannot be used."""
    try:
        reference = _reference(args, args.files)
        try:
            subset = choose_questions(reference, args.questions, seed=args.seed,
                                      design=args.design)
        except (TypeError, ValueError) as error:
            raise ReportError(" ".join(args.files), str(error)) from None
        text = render_subset(subset, args.format)
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
            print(f"kpass subset: wrote {args.out} ({subset.questions} of "
                  f"{subset.population} questions)", file=sys.stderr)
            return 0
    except ReportError as error:
        print(f"kpass subset: error: {cli_words(str(error))}", file=sys.stderr)
        return 1
    return _write(text)


def read_subset(path: str, known: list[Any]) -> Subset:
    """A subset file (CSV or JSONL, :data:`SUBSET_FIELDS`), its ids matched to ``known``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ReportError(path, f"cannot read the subset file: {error.strerror}") from None
    try:
        if text.lstrip().startswith("{"):
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            rows = list(csv.DictReader(io.StringIO(text)))
    except ValueError as error:
        raise ReportError(path, f"not a subset file (CSV or JSONL): {error}") from None
    missing = [field for field in SUBSET_FIELDS[:5] if not rows or field not in rows[0]]
    if missing:
        raise ReportError(path, f"a subset file needs the columns {', '.join(SUBSET_FIELDS)} "
                                f"(kpass subset writes them); missing {', '.join(missing)}")
    by_text = {str(q): q for q in known}
    unknown = [row["id"] for row in rows if str(row["id"]) not in by_text]
    if unknown:
        raise ReportError(path, f"{len(unknown)} ids are not questions of the reference runs, "
                                f"e.g. {unknown[0]!r}")
    try:
        seed = rows[0].get("seed")
        return Subset(ids=tuple(by_text[str(row["id"])] for row in rows),
                      inclusion=np.array([float(row["inclusion"]) for row in rows]),
                      stratum=np.array([int(row["stratum"]) for row in rows]),
                      population=int(rows[0]["population"]), design=str(rows[0]["design"]),
                      seed=None if seed in (None, "") else int(seed))
    except (TypeError, ValueError) as error:
        raise ReportError(path, str(error)) from None


def run_subset_report(args: argparse.Namespace, families: list[Any], ks: list[int]) -> int:
    """``kpass report NEW --subset FILE --reference-runs RUNS...`` (module docstring)."""
    if len(args.files) != 1:
        print("kpass report: error: --subset takes one FILE: the new model's run on the chosen "
              "questions", file=sys.stderr)
        return 2
    if not args.reference_runs or len(args.reference_runs) < 2:
        print("kpass report: error: --subset needs --reference-runs with at least two runs "
              "(the past models' runs the subset was drawn from)", file=sys.stderr)
        return 2
    if args.format not in ("table", "json"):
        print("kpass report: error: --subset prints --format table or json", file=sys.stderr)
        return 2
    try:
        reference = _reference(args, args.reference_runs)
        known = list(next(iter(reference.values())).ids or range(
            next(iter(reference.values())).n_questions))
        subset = read_subset(args.subset, known)
        new, _ = load_outcomes(list(args.files), args, "report")
        results = _each_metric(families, ks, args.files[0], lambda metric, k: subset_estimate(
            metric, new[0].counts, k, subset=subset, reference=reference,
            confidence=args.confidence))
    except ReportError as error:
        print(f"kpass report: error: {cli_words(str(error))}", file=sys.stderr)
        return 1
    if args.format == "json":
        return _write(_json(results, ESTIMATE_FIELDS[2:]))
    digits = args.digits
    level = f"{round(100 * args.confidence):d}% interval"
    header = ["metric", "k", "estimate", "se", level, "srs se", "explained", "questions"]
    lines = [header]
    for key, k, r in results:
        lines.append([key, str(k), f"{r.estimate:.{digits}f}", f"{r.se:.{digits}f}",
                      f"[{r.lo:.{digits}f}, {r.hi:.{digits}f}]", f"{r.srs_se:.{digits}f}",
                      f"{r.explained:.0%}", f"{r.questions} of {r.population}"])
    text = _aligned(lines)
    text += (f"The estimate is of the score on all {results[0][2].population} questions, from "
             f"the {results[0][2].questions} chosen ({subset.design} design); the interval is "
             "over the random draw of the questions.\n") if results else ""
    return _write(text)


def run_subset_compare(args: argparse.Namespace) -> int:
    """``kpass compare A B --subset FILE [FILE_B] --reference-runs RUNS...`` (module docstring)."""
    from ..registry import PRIMARY
    from .table import parse_metrics

    subsets = list(args.subset or [])
    if len(args.files) != 2 or not 1 <= len(subsets) <= 2:
        print("kpass compare: error: --subset compares two runs A B: give two files and "
              "--subset FILE (both ran on it) or --subset FILE_A FILE_B (`all`: a full run)",
              file=sys.stderr)
        return 2
    if not args.reference_runs or len(args.reference_runs) < 2:
        print("kpass compare: error: --subset needs --reference-runs with at least two runs "
              "(the past models' runs the subset was drawn from)", file=sys.stderr)
        return 2
    if subsets == ["all", "all"] or subsets == ["all"]:
        print("kpass compare: error: --subset all all: both runs are full; compare them "
              "without --subset", file=sys.stderr)
        return 2
    if args.format not in ("table", "json"):
        print("kpass compare: error: --subset prints --format table or json", file=sys.stderr)
        return 2
    try:
        families = parse_metrics(args.metrics or str(PRIMARY.report))
    except ValueError as error:
        print(f"kpass compare: error: {cli_words(str(error))}", file=sys.stderr)
        return 2
    ks = sorted({k for group in args.k for k in group}) if args.k else [1]
    try:
        reference = _reference(args, args.reference_runs)
        first = next(iter(reference.values()))
        known = list(first.ids or range(first.n_questions))
        read = {path: None if path == "all" else read_subset(path, known)
                for path in dict.fromkeys(subsets)}
        subset_a, subset_b = read[subsets[0]], read[subsets[-1]]
        runs, _ = load_outcomes(list(args.files), args, "compare")
        results = _each_metric(families, ks, " ".join(args.files),
                               lambda metric, k: subset_compare(
                                   metric, runs[0].counts, runs[1].counts, k,
                                   subset_a=subset_a, subset_b=subset_b, reference=reference,
                                   confidence=args.confidence))
    except ReportError as error:
        print(f"kpass compare: error: {cli_words(str(error))}", file=sys.stderr)
        return 1
    if args.format == "json":
        return _write(_json(results, COMPARISON_FIELDS[2:]))
    digits = 3 if args.digits is None else args.digits
    level = f"{round(100 * args.confidence):d}% interval"
    header = ["metric", "k", "A", "B", "A - B", "se", level, "p-value"]
    lines = [header]
    for key, k, r in results:
        lines.append([key, str(k), f"{r.a:.{digits}f}", f"{r.b:.{digits}f}",
                      f"{r.difference:+.{digits}f}", f"{r.se:.{digits}f}",
                      f"[{r.lo:+.{digits}f}, {r.hi:+.{digits}f}]", f"{r.p_value:.3g}"])
    text = _aligned(lines)
    how = ("both on the same subset, paired per question" if results and results[0][2].same_subset
           else "on " + " and ".join("every question" if path == "all" else path
                                     for path in subsets))
    text += (f"A = {args.files[0]}, B = {args.files[1]}, {how}; the difference is of the scores "
             "on all the benchmark's questions, the interval over the random draw of the "
             "questions.\n")
    return _write(text)


def _each_metric(families: list[Any], ks: list[int], where: str,
                 estimate: Callable[[Any, int], Any]) -> list[tuple[str, int, Any]]:
    """``(key, k, estimate(metric, k))`` for each metric and k; errors name both and ``where``."""
    results = []
    for fam in families:
        for k in ks:
            try:
                results.append((fam.key, k, estimate(function(fam.function), k)))
            except (TypeError, ValueError) as error:
                raise ReportError(where, f"{fam.key} at k={k}: {error}") from None
    return results


def _json(results: list[tuple[str, int, Any]], fields: tuple[str, ...]) -> str:
    """The results as ``{"results": [{"metric", "k", field...}, ...]}``."""
    records = [{"metric": key, "k": k, **{field: getattr(r, field) for field in fields}}
               for key, k, r in results]
    return json.dumps({"results": records}, indent=2) + "\n"


def _aligned(lines: list[list[str]]) -> str:
    """Rows of cells as left-aligned columns two spaces apart."""
    widths = [max(len(row[i]) for row in lines) for i in range(len(lines[0]))]
    return "".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
                   + "\n" for row in lines)


def _subset_names(items: list[str], names: list[str]) -> dict[str, str]:
    """``--subset NAME=FILE...`` as model name -> file, each name one of ``names``."""
    chosen: dict[str, str] = {}
    for item in items:
        name, separator, path = item.partition("=")
        if not separator or not name or not path:
            raise ValueError(f"--subset takes NAME=FILE (a model's name and the subset file it "
                             f"ran on); got {item!r}")
        if name not in names:
            raise ValueError(f"--subset names {name!r}, not a model of the leaderboard (its "
                             f"models: {', '.join(names)})")
        if name in chosen:
            raise ValueError(f"--subset names {name!r} twice")
        chosen[name] = path
    return chosen


def _model_error(message: str, names: list[str], paths: list[str], what: str) -> ReportError:
    """kpass.subset_leaderboard's error as the CLI's: the model's file, its name for `runs[..]`."""
    for name, path in zip(names, paths, strict=True):
        if f"`runs[{name!r}]`" in message:
            return ReportError(path, f"{what}: {message.replace(f'`runs[{name!r}]`', name)}")
    return ReportError(" ".join(paths), f"{what}: {message}")


def run_subset_leaderboard(args: argparse.Namespace) -> int:
    """``kpass leaderboard RUNS... --subset NAME=FILE... --reference-runs RUNS...``."""
    from ..registry import PRIMARY
    from .table import parse_metrics

    def refuse(message: str, status: int = 2) -> int:
        print(f"kpass leaderboard: error: {cli_words(message)}", file=sys.stderr)
        return status

    if not args.subset:
        return refuse("--reference-runs needs --subset NAME=FILE")
    if not args.reference_runs or len(args.reference_runs) < 2:
        return refuse("--subset needs --reference-runs with at least two runs (the past "
                      "models' runs the subset was drawn from)")
    if len(args.files) < 2 or getattr(args, "by", None) is not None:
        return refuse("--subset ranks two or more files, one per model (not --by)")
    if args.format not in ("table", "json"):
        return refuse("--subset prints --format table or json")
    other = [flag for flag, given in (("--clusters", args.clusters), ("--group", args.group),
                                      ("--plot", args.plot), ("--shared", args.shared),
                                      ("--answers", args.answers), ("--explain", args.explain),
                                      ("--cost", args.cost or args.cost_per_1k_tokens))
             if given]
    if other:
        return refuse(f"--subset does not go with {', '.join(other)}")
    try:
        families = parse_metrics(args.metrics or str(PRIMARY.report))
        names, paths = split_names(list(args.files))
        chosen = _subset_names(list(args.subset), names)
    except ValueError as error:
        return refuse(str(error))
    except ReportError as error:
        return refuse(str(error), 1)
    ks = sorted({k for group in args.k for k in group}) if args.k else [1]
    try:
        reference = _reference(args, args.reference_runs)
        first = next(iter(reference.values()))
        known = list(first.ids or range(first.n_questions))
        read = {path: read_subset(path, known) for path in dict.fromkeys(chosen.values())}
        subsets = {name: read[path] for name, path in chosen.items()}  # one file: one draw
        loaded, _ = load_outcomes(paths, args, "leaderboard")
        runs = {name: item.counts for name, item in zip(names, loaded, strict=True)}
        boards = []
        for fam in families:
            for k in ks:
                try:
                    board = subset_leaderboard(function(fam.function), runs, k,
                                               subsets=subsets, reference=reference,
                                               confidence=args.confidence)
                except (TypeError, ValueError) as error:
                    raise _model_error(str(error), names, paths, f"{fam.key} at k={k}"
                                       ) from None
                boards.append((fam.key, k, board))
    except ReportError as error:
        return refuse(str(error), 1)
    if args.format == "json":
        records = [{**board.as_dict(), "metric": key, "k": k} for key, k, board in boards]
        return _write(json.dumps({"results": records}, indent=2) + "\n")
    digits = 3 if args.digits is None else args.digits
    return _write("\n\n".join(table_text(board, digits, key) for key, _, board in boards)
                  + "\n" + SUBSET_NOTE + "\n")
