"""``kpass plan``: how many questions a difference needs, or what a number of questions detects.

Without a file it plans from assumed numbers (:func:`kpass.plan` without a pilot, a
:class:`kpass.Design`)::

    $ kpass plan --baseline 0.6 --difference 0.03 --samples 4
    $ kpass plan --baseline 0.6 --questions 300 --samples 4 --metric pass^k --k 4

With one pilot file (or two: a paired pilot of models A and B) it plans from the pilot's
variance (:func:`kpass.plan` with a pilot, a :class:`kpass.Plan`)::

    $ kpass plan pilot.jsonl --difference 0.05 --k 1

and how to spend a budget (:meth:`kpass.Plan.split`: the questions x samples per question
with the smallest SE), or the questions an interval of half-width H needs
(:meth:`kpass.Plan.questions_for_half_width`), from a pilot or, for one model, from an
assumed value and spread (:meth:`kpass.Plan.assume`)::

    $ kpass plan pilot.jsonl --k 4 --budget 4000 --cost-question 5
    $ kpass plan --baseline 0.3 --metric pass@k --k 4 --budget 4000 --cost-question 5
    $ kpass plan --baseline 0.3 --metric pass@k --k 4 --samples 8 --half-width 0.02
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from typing import Any

from .._core.counting.checks import InputError
from ..io.errors import ReportError
from ..registry import PRIMARY

#: Flags of the Python keywords, for messages.
_FLAGS = {"`baseline`": "--baseline", "`difference`": "--difference",
          "`questions`": "--questions", "`samples`": "--samples", "`spread`": "--spread",
          "`correlation`": "--correlation", "`power`": "--power",
          "`confidence`": "--confidence", "`k`": "--k", "`R`": "the pilot",
          "`R_b`": "the second pilot", "`budget`": "--budget",
          "`cost_question`": "--cost-question", "`cost_sample`": "--cost-sample",
          "`half_width`": "--half-width"}


def add_plan_parser(commands: Any, count: Callable[..., Any],
                    harness_options: Callable[..., Any], finite: Callable[..., Any],
                    taus: Callable[..., Any]) -> None:
    """The ``plan`` subcommand's options.

    Called by :func:`kpass.report.parser.build_parser` with its argument checks, so this
    module does not import the parser back.
    """
    command = commands.add_parser(
        "plan", help="how many questions a difference needs (no data needed), or what a "
                     "number of questions detects",
        description="Plan a paired comparison of two models: the questions needed to detect "
                    "--difference with --power at --confidence (two-sided paired t test, the "
                    "one kpass compare runs), or with --questions the smallest difference "
                    "they detect; with --budget, the questions x samples per question with "
                    "the smallest SE; with --half-width, the questions an interval of that "
                    "half-width needs. Without a file, from assumed numbers (--baseline, "
                    "--samples, --spread, --correlation; --budget and --half-width plan one "
                    "model); with a pilot file (or two, models A and B), from the pilot's "
                    "variance.",
        epilog="The model without a pilot: each question's success rate is logit-normal "
               "with sd --spread on the logit scale (default 2.0: fitted to the bundled "
               "tau-bench sample); the two models' logits correlate --correlation (default "
               "0.5, an assumption: higher for two checkpoints of one model, lower plans "
               "more questions). Whatever the spread, one model's SE is at most "
               "sqrt(B (1 - B) / questions); --budget and --half-width say what it gives. See "
               "docs/statistics.md and docs/how-to/adaptive.md.")
    command.add_argument("files", nargs="*", metavar="PILOT",
                         help="a pilot run's outcome file (two: models A and B, paired); "
                              "none: plan from --baseline")
    from ..registry import names
    from .table import FAMILIES

    credit = set(names(credit=True))
    command.add_argument("--metric", default=PRIMARY.report, metavar="NAME",
                         help=f"the metric (default: {PRIMARY.report}): one of "
                              + ", ".join(fam.key for fam in FAMILIES if fam.function in credit))
    command.add_argument("--k", type=count(1), default=1, metavar="K",
                         help="the metric's k (default: 1)")
    command.add_argument("--tau", type=taus, default=[0.5], metavar="TAU",
                         help="G-Pass@k threshold (default: 0.5)")
    command.add_argument("--baseline", type=finite, metavar="B",
                         help="without a pilot: the metric's assumed value (model A's, for a "
                              "pair), e.g. 0.6")
    command.add_argument("--difference", type=finite, metavar="D",
                         help="the difference B - A to detect, in the metric's units")
    command.add_argument("--questions", type=count(2), metavar="M",
                         help="instead of --difference: the questions you have; prints the "
                              "smallest difference they detect")
    command.add_argument("--budget", type=finite, metavar="B",
                         help="instead of --difference: what the evaluation may spend "
                              "(samples, or money with --cost-question and --cost-sample); "
                              "prints the questions and samples per question with the "
                              "smallest SE")
    command.add_argument("--half-width", type=finite, metavar="H",
                         help="instead of --difference: prints the questions needed for an "
                              "interval of value -/+ H at --confidence")
    command.add_argument("--cost-question", type=finite, default=0.0, metavar="C",
                         help="with --budget: the cost of each question, e.g. writing or "
                              "checking it (default: 0)")
    command.add_argument("--cost-sample", type=finite, default=1.0, metavar="C",
                         help="with --budget: the cost of one sample of one model (default: "
                              "1, so that --budget counts samples)")
    command.add_argument("--samples", type=count(1), metavar="N",
                         help="samples per question and model (required without a pilot, "
                              "but for --budget, which chooses it; with one, default the "
                              "pilot's)")
    command.add_argument("--spread", type=finite, metavar="S",
                         help="without a pilot: sd of the questions' success rates on the "
                              "logit scale (default: 2.0)")
    command.add_argument("--correlation", type=finite, metavar="R",
                         help="without a pilot: correlation in [0, 1] of the two models' "
                              "question logits (default: 0.5)")
    command.add_argument("--power", type=finite, default=0.8, metavar="P",
                         help="the power asked for (default: 0.8)")
    command.add_argument("--confidence", type=finite, default=0.95, metavar="C",
                         help="the test's level is 1 - C, two-sided (default: 0.95)")
    command.add_argument("--format", choices=("table", "json"), default="table",
                         help="output format (default: table)")
    command.add_argument("--column", metavar="NAME", help="the pilot's outcome column")
    harness_options(command)
    command.add_argument("--id", metavar="COLUMN", help="the pilot's question-id column "
                                                        "(matches two pilots by id)")
    command.set_defaults(command_parser=command)


def run_plan(args: argparse.Namespace) -> int:
    """Run ``kpass plan`` with parsed arguments; the exit status."""
    from ..families import function
    from ..registry import names
    from .table import FAMILIES, parse_metrics

    try:
        families = parse_metrics(args.metric)
        if len(families) != 1:
            raise InputError(f"--metric takes one metric; got {args.metric!r}")
        credit = set(names(credit=True))
        if families[0].function not in credit:
            plannable = ", ".join(fam.key for fam in FAMILIES if fam.function in credit)
            raise InputError(f"--metric {families[0].key}: plans are for {plannable} (means "
                             "of per-question U-statistics)")
        if len(args.files) > 2:
            raise InputError(f"give at most two pilot files (models A and B); got "
                             f"{len(args.files)}")
        asked = [flag for flag, value in (("--difference", args.difference),
                                          ("--questions", args.questions),
                                          ("--budget", args.budget),
                                          ("--half-width", args.half_width))
                 if value is not None]
        if len(asked) != 1:
            raise InputError("give one of --difference (prints the questions needed), "
                             "--questions (prints the detectable difference), --budget "
                             "(prints the questions and samples with the smallest SE) and "
                             "--half-width (prints the questions an interval needs)"
                             + (f"; got {' and '.join(asked)}" if asked else ""))
        if args.budget is None and (args.cost_question, args.cost_sample) != (0.0, 1.0):
            raise InputError("--cost-question and --cost-sample price a --budget; give "
                             "--budget too")
    except ValueError as error:
        return _refuse(str(error))
    family = families[0]
    point = function(family.function)
    options = {"tau": args.tau[0]} if family.uses_tau else {}
    if args.files:
        return _run_pilot(args, point, family, options)
    if args.budget is not None or args.half_width is not None:
        return _run_assumed(args, point, family, options)
    import kpass

    try:
        design = kpass.plan(point, k=args.k, baseline=args.baseline,
                            difference=args.difference, samples=args.samples,
                            questions=args.questions, spread=args.spread,
                            correlation=args.correlation, power=args.power,
                            confidence=args.confidence, **options)
    except (TypeError, ValueError) as error:
        return _refuse(str(error))
    assert isinstance(design, kpass.Design)  # no pilot: a Design (for mypy)
    if args.format == "json":
        text = json.dumps({"pilot": None, **design.as_dict()}, indent=2) + "\n"
    else:
        text = str(design) + "\n"
    sys.stdout.write(text)
    return 0


def _refuse(message: str) -> int:
    for word, flag in _FLAGS.items():
        message = message.replace(word, flag)
    print(f"kpass plan: error: {message}", file=sys.stderr)
    return 2


def _run_pilot(args: argparse.Namespace, point: Any, family: Any,
               options: dict[str, Any]) -> int:
    """``kpass plan PILOT [PILOT_B]``: the plan from a pilot's variance."""
    import warnings

    import kpass

    from ..stats.power import _noncentrality

    assumed = [flag for flag, value in (("--baseline", args.baseline),
                                        ("--spread", args.spread),
                                        ("--correlation", args.correlation))
               if value is not None]
    if assumed:
        return _refuse(f"{assumed[0]} plans without a pilot; with a pilot file its variance "
                       "takes the place of --baseline, --spread and --correlation")
    try:
        pilots = [_load(source, args).counts for source in args.files]
    except ReportError as error:
        print(f"kpass plan: error: {error}", file=sys.stderr)
        return 1
    notes: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", kpass.SmallSampleWarning)
            pilot = kpass.plan(point, pilots[0], args.k,
                               R_b=pilots[1] if len(pilots) > 1 else None, **options)
        assert isinstance(pilot, kpass.Plan)  # a pilot: a Plan (for mypy)
        notes = [str(w.message) for w in caught]
        if args.budget is not None:
            if args.samples is not None:
                raise InputError("--samples: with --budget the samples per question are "
                                 "what the plan chooses; leave --samples out")
            split = pilot.split(args.budget, cost_question=args.cost_question,
                                cost_sample=args.cost_sample)
            return _write_split(args, pilot, family, options, split, notes)
        if args.half_width is not None:
            confidence = _unit(args.confidence, "confidence")
            needed = pilot.questions_for_half_width(args.half_width, args.samples,
                                                    confidence=confidence)
            return _write_half_width(args, pilot, family, options, needed, notes)
        power = _unit(args.power, "power")
        confidence = _unit(args.confidence, "confidence")
        alpha = 1.0 - confidence
        samples = args.samples
        if args.difference is not None:
            questions = pilot.questions_for(args.difference, samples, power=power,
                                          confidence=confidence)
            difference = abs(args.difference)
        else:
            questions = args.questions
            se = pilot.se(questions, samples)
            difference = _noncentrality(questions - 1, power, alpha) * se
    except (TypeError, ValueError) as error:
        return _refuse(str(error))
    n = samples if samples is not None else pilot.samples
    label = family.title.format(k=args.k, tau=options.get("tau", ""))
    sd = pilot.se(2, samples) * math.sqrt(2)
    if args.format == "json":
        fields = {"pilot": list(args.files), "metric": pilot.metric, "label": label,
                  "k": args.k, "difference": difference, "samples": n,
                  "questions": questions, "power": power, "confidence": confidence,
                  "paired": pilot.paired, "sd": sd, "between": pilot.between,
                  "within": pilot.within_at(int(n)) if samples is not None else pilot.within,
                  "solved": "questions" if args.difference is not None else "difference",
                  "pilot_questions": pilot.questions, "pilot_spread": list(pilot.pilot_spread),
                  "notes": notes}
        sys.stdout.write(json.dumps(fields, indent=2) + "\n")
        return 0
    test = (f"{label}, {power:.0%} power, {confidence:.0%} confidence, "
            f"{'paired ' if pilot.paired else ''}two-sided t test")
    if args.difference is not None:
        answer = f"Questions needed: {questions:,} (difference {difference:.3f} in {test})"
    else:
        answer = (f"Detectable difference: {difference:.3f} with {questions:,} questions "
                  f"({test})")
    low, high = pilot.pilot_spread
    lines = [answer,
             f"From the pilot: {pilot.questions} questions x {pilot.samples:g} samples; at "
             f"{n:g} samples per question a question's {'difference' if pilot.paired else 'value'}"
             f" has sd {sd:.3f}; from a pilot this size the questions needed may be off by a "
             f"factor {low:.2f}-{high:.2f} (80%)"]
    lines += [f"note: {note}" for note in notes]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _write_split(args: argparse.Namespace, pilot: Any, family: Any, options: dict[str, Any],
                 split: Any, notes: list[str]) -> int:
    """``kpass plan PILOT --budget B``: the split, beside what the pilot's own n would give."""
    label = family.title.format(k=args.k, tau=options.get("tau", ""))
    runs = 2 if pilot.paired else 1
    n0 = max(args.k, int(round(pilot.samples)))
    m0 = int(math.floor(args.budget / (args.cost_question + runs * n0 * args.cost_sample)
                        + 1e-9))
    same = pilot.se(m0, n0) if m0 >= 2 else math.nan
    if args.format == "json":
        fields = {"pilot": list(args.files) or None, "metric": pilot.metric, "label": label,
                  "k": args.k, "paired": pilot.paired, **split.as_dict(),
                  "cost_question": args.cost_question, "cost_sample": args.cost_sample,
                  "between": pilot.between, "within": pilot.within_at(split.samples),
                  "pilot_questions": pilot.questions, **_assumed_fields(pilot),
                  "notes": notes}
        sys.stdout.write(json.dumps(fields, indent=2) + "\n")
        return 0
    what = "difference" if pilot.paired else "value"
    unit = " samples" if (args.cost_question, args.cost_sample) == (0.0, 1.0) else ""
    plural = "s" if split.samples != 1 else ""
    answer = (f"Best split of a budget of {args.budget:,g}{unit}: {split.questions:,} "
              f"questions x {split.samples} sample{plural}"
              f"{' per model' if pilot.paired else ''} (cost {split.spent:,g}); SE of the "
              f"{label} {what} {split.se:.4f}")
    if pilot.questions == 0:
        ceiling = math.sqrt(pilot.baseline * (1.0 - pilot.baseline) / split.questions)
        lines = [answer, f"Assumed: {label} {pilot.baseline:.3f}, spread {pilot.spread:g} (sd "
                         f"of question logits); whatever the spread, SE at most {ceiling:.4f}"]
        sys.stdout.write("\n".join(lines) + "\n")
        return 0
    lines = [answer,
             f"From the pilot: {pilot.questions} questions x {pilot.samples:g} samples; "
             f"between-question variance {pilot.between:.4g}, within "
             f"{pilot.within_at(split.samples):.4g} at {split.samples} sample{plural}"
             + (f"; the pilot's {n0} samples would buy {m0:,} questions, SE {same:.4f}"
                if m0 >= 2 and n0 != split.samples else "")]
    lines += [f"note: {note}" for note in notes]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _assumed_fields(plan: Any) -> dict[str, Any]:
    """JSON fields of a plan from assumed numbers (none for a pilot's)."""
    if plan.questions:
        return {}
    return {"baseline": plan.baseline, "spread": plan.spread,
            "distribution": plan.distribution}


def _run_assumed(args: argparse.Namespace, point: Any, family: Any,
                 options: dict[str, Any]) -> int:
    """``kpass plan --baseline V --budget B`` or ``--half-width H``: one model, no pilot."""
    import kpass

    try:
        if args.baseline is None:
            raise InputError(f"{'--budget' if args.budget is not None else '--half-width'} "
                             "without a pilot file needs --baseline (the metric's assumed "
                             "value, e.g. 0.3)")
        if args.correlation is not None:
            raise InputError("--correlation: --budget and --half-width without a pilot plan "
                             "one model (for two, give two pilot files)")
        if args.budget is not None and args.samples is not None:
            raise InputError("--samples: with --budget the samples per question are what the "
                             "plan chooses; leave --samples out")
        if args.half_width is not None and args.samples is None:
            raise InputError("--half-width without a pilot file needs --samples (per "
                             "question)")
        plan = kpass.Plan.assume(point, args.k, baseline=args.baseline, samples=args.samples,
                                 spread=args.spread, **options)
        if args.budget is not None:
            split = plan.split(args.budget, cost_question=args.cost_question,
                               cost_sample=args.cost_sample)
            return _write_split(args, plan, family, options, split, [])
        confidence = _unit(args.confidence, "confidence")
        needed = plan.questions_for_half_width(args.half_width, confidence=confidence)
        cautious = kpass.Plan.assume(point, args.k, baseline=args.baseline, spread=math.inf,
                                     **options)
        worst = cautious.questions_for_half_width(args.half_width, confidence=confidence)
    except (TypeError, ValueError) as error:
        return _refuse(str(error))
    return _write_half_width(args, plan, family, options, needed, [], worst)


def _write_half_width(args: argparse.Namespace, plan: Any, family: Any,
                      options: dict[str, Any], needed: int, notes: list[str],
                      worst: int = 0) -> int:
    """``--half-width H``: the questions needed, then what the plan rests on.

    ``worst``: for a plan from assumed numbers, the questions needed whatever the spread.
    """
    label = family.title.format(k=args.k, tau=options.get("tau", ""))
    n = args.samples if args.samples is not None else plan.samples
    se = plan.se(needed, args.samples)
    sd = se * math.sqrt(needed)
    what = "difference" if plan.paired else "value"
    if args.format == "json":
        fields = {"pilot": list(args.files) or None, "metric": plan.metric, "label": label,
                  "k": args.k, "paired": plan.paired, "half_width": args.half_width,
                  "confidence": args.confidence, "questions": needed, "samples": n, "se": se,
                  "sd": sd, "between": plan.between, "within": plan.within_at(int(n))
                  if args.samples is not None else plan.within,
                  "pilot_questions": plan.questions, **_assumed_fields(plan), "notes": notes}
        sys.stdout.write(json.dumps(fields, indent=2) + "\n")
        return 0
    answer = (f"Questions needed: {needed:,} ({label} {what} -/+ {args.half_width:g}, "
              f"{args.confidence:.0%} interval; SE {se:.4f})")
    if plan.questions == 0:
        lines = [answer, f"Assumed: {label} {plan.baseline:.3f}, {n:g} samples per question, "
                         f"spread {plan.spread:g} (sd of question logits); a question's value "
                         f"has sd {sd:.3f}; whatever the spread, at most {worst:,} questions"]
    else:
        low, high = plan.pilot_spread
        lines = [answer, f"From the pilot: {plan.questions} questions x {plan.samples:g} "
                         f"samples; at {n:g} samples per question a question's {what} has sd "
                         f"{sd:.3f}; from a pilot this size the questions needed may be off by "
                         f"a factor {low:.2f}-{high:.2f} (80%)"]
    lines += [f"note: {note}" for note in notes]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _unit(value: float, name: str) -> float:
    if not 0.0 < value < 1.0:
        raise InputError(f"`{name}` must be in (0, 1); got {name}={value:g}")
    return value


def _load(source: str, args: argparse.Namespace) -> Any:
    from ..io.inputs import load_file
    from ..io.progress import Progress

    if args.id is not None:
        from ..io.long.load import load_long

        return load_long(source, id=args.id, column=args.column, tool=args.from_,
                         filter=args.filter, partial=args.partial)
    return load_file(source, tool=args.from_, filter=args.filter, column=args.column,
                     skip_bad=False, progress=Progress(f"reading {source}"),
                     partial=args.partial)
