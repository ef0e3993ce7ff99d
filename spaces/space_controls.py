"""The Space's controls and what it compares: which options a module offers, read back.

Shipped beside ``app.py`` (``spaces/build.py`` copies it) and loaded by it as one of its
modules (``app.space_controls``). Which options and comparisons each module has
comes from :mod:`kpass.registry`; this file chooses only how to show them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import evaluate

from kpass import registry


def module_family(module: evaluate.EvaluationModule) -> str:
    """The module's family name (its script name for a non-kpass module)."""
    return getattr(module, "family", "") or module.name


def module_kind(module: evaluate.EvaluationModule) -> str:
    """``binary``, ``categorical`` or ``answers``: what one question's outcomes are."""
    kind = getattr(module, "kind", "")
    if kind:
        return kind
    return "answers" if "references" in input_names(module) else "binary"


# Modules whose families have no budget k (bayes@n, avg@n), from the registry.
WITHOUT_K = tuple(m.name for m in registry.MODULES
                  if (families := registry.reported(m.name))
                  and not any(f.per_k for f in families))


def uses_k(module: evaluate.EvaluationModule) -> bool:
    """Whether the module's results are indexed by a sample budget k."""
    return module_family(module) not in WITHOUT_K


def input_names(module: evaluate.EvaluationModule) -> list[str]:
    """Names of the module's input columns, in declaration order."""
    features = module.features
    if isinstance(features, list):
        features = features[0]
    return list(features)


# ----------------------------------------------------------------------------- controls


@dataclass(frozen=True)
class Control:
    """A keyword option of the module as a page control, with the default it shows.

    ``kind``: ``number``, ``numbers`` (a list), ``choice``, ``bounds`` (lo, hi) or
    ``weights`` (a list, or ``k: list`` parts for a per-k dict).
    """

    name: str
    kind: str
    default: Any
    help: str = ""
    choices: tuple[str, ...] = ()


# The keyword vocabulary, its checks and its meaning live in kpass; this chooses what to show.
SPECS: dict[str, tuple[str, Any, tuple[str, ...]]] = {
    "confidence": ("number", 0.95, ()),
    "alpha0": ("number", 1.0, ()),
    "beta0": ("number", 1.0, ()),
    "concentration": ("number", 1.0, ()),
    "pass_power": ("number", 0.5, ()),
    "unanimous_power": ("number", 0.5, ()),
    "w": ("numbers", [0, 1], ()),
    "tau": ("numbers", None, ()),
    "lam": ("numbers", None, ()),
    "thresholds": ("numbers", None, ()),
    "moment_power": ("numbers", None, ()),
    "eta": ("number", 1.0, ()),
    "weights": ("weights", None, ()),
    "bounds": ("bounds", None, ()),
    "short": ("choice", "error", ("error", "skip")),
    "ties": ("choice", "fractional", ("fractional", "wrong")),
}
# The options each module uses, from the registry: those of its kind, then its own.
BY_KIND = dict(registry.KIND_OPTIONS)
BY_FAMILY = {m.name: m.options for m in registry.MODULES if m.options}
# Options of a module's kind that this module does not use (its interval is clipped to [0, 1]).
UNUSED = {m.name: m.unused for m in registry.MODULES if m.unused}
HELP = {
    "bounds": "lo, hi: where the interval is clipped; empty = {default}",
    "weights": "length-k weights w_1..w_k (e.g. 0, 0, 0.5, 0.5), or one list per k: "
               "2: 0, 1; 4: 0, 0, 0.5, 0.5. Empty = upper-half mG weights",
    "tau": "thresholds in [0, 1], e.g. 0.5, 0.75 (adds G-Pass@k_tau rows)",
    "lam": "couplings in [0, 1], e.g. 0.25, 0.5 (adds GeoSpectrum rows)",
    "thresholds": "required average scores in [0, 1], increasing, e.g. 0.25, 0.5, 0.75 "
                  "(one TailPass row each); empty = 0.5",
    "moment_power": "exponents p > 0, e.g. 1, 2 (adds rows for the moment E[B^p])",
    "eta": "weight in [0, 1] of the prior outcomes R0",
    "short": "questions with fewer than k samples: error refuses them, skip leaves them out "
             "at that k (see the questions column)",
    "ties": "a tie with the gold answer: fractional credits 1/(t+1) for t tied answers, "
            "wrong counts it as wrong",
}
EXAMPLE_K = "1, 2, 3, 4"


def module_controls(module: evaluate.EvaluationModule) -> list[Control]:
    """The options the page offers for this module, defaulting to its load-time options."""
    try:
        from kpass.hf.keywords import KEYWORDS
    except ImportError:  # a module outside kpass: no descriptions
        KEYWORDS = {}
    loaded = dict(getattr(module, "options", {}) or {})
    names = BY_KIND.get(module_kind(module), ()) + BY_FAMILY.get(module_family(module), ())
    names = tuple(name for name in names if name not in UNUSED.get(module_family(module), ()))
    if not uses_k(module):
        names = tuple(name for name in names if name != "short")
    controls = []
    for name in names:
        kind, default, choices = SPECS[name]
        # The shared description minus what the page shows otherwise: defaults, module names.
        described = re.sub(r"\s*\([^)]*(default|_bayes|_at_n)[^)]*\)", "",
                           KEYWORDS.get(name, ""))
        described = re.sub(r"^[^:]*: ", "", described)  # the type, shown by the control
        help_text = HELP.get(name, described).format(
            default="[min w, max w]" if module_kind(module) == "categorical" else "[0, 1]")
        controls.append(Control(name, kind, loaded.get(name, default), help_text, choices))
    return controls


def control_value(control: Control) -> Any:
    """What the control shows at first: its default, lists as comma-separated text."""
    default = control.default
    if control.kind in ("numbers", "bounds", "weights"):
        if isinstance(default, dict):
            return "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in default.items())
        return "" if default is None else ", ".join(str(item) for item in default)
    return default


def _numbers(text: str, name: str) -> list[float]:
    tokens = [t for t in re.split(r"[,\s;]+", text.strip().strip("[]()")) if t]
    values = []
    for token in tokens:
        try:
            values.append(number(token, name))
        except ValueError:
            raise ValueError(f"`{name}` must be numbers separated by commas; got "
                             f"{token[:40]!r}") from None
    if not values:
        raise ValueError(f"`{name}` is empty")
    return values


def number(value: Any, name: str, example: str = "0.95") -> float:
    """One number typed into a control (``confidence``, ``alpha0``, ...).

    Raises:
        ValueError: the text is not a number (naming the control and the text).
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip()
    if not re.fullmatch(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?", text):
        raise ValueError(f"`{name}` must be a number, e.g. {example}; got {text[:40]!r}")
    return float(text)


def parse_control(control: Control, value: Any) -> Any:
    """A control's value -> the Python value for the module (None: leave the default)."""
    if control.kind == "number":
        return None if value is None or value == "" else number(value, control.name)
    if control.kind == "choice":
        return value or None
    text = str(value or "").strip()
    if text.lower() in ("", "none", "default"):
        return None
    if control.kind == "bounds":
        values = _numbers(text, "bounds")
        if len(values) != 2:
            raise ValueError(f"`bounds` must be two numbers lo, hi; got {text!r}")
        return values
    if control.kind == "weights" and ":" in text:
        weights = {}
        for part in (p for p in re.split(r"[;\n]+", text) if p.strip()):
            budget, sep, vector = part.partition(":")
            if not sep or not re.fullmatch(r"\s*[0-9]+\s*", budget):
                raise ValueError(f"`weights`: expected 'k: w1, w2, ...' parts separated by ';'; "
                                 f"got {part.strip()!r}")
            weights[int(budget)] = _numbers(vector, f"weights[{int(budget)}]")
        return weights
    values = _numbers(text, control.name)
    if control.name in ("tau", "lam") and len(values) == 1:
        return values[0]
    return values


# ----------------------------------------------------------------------------- compare


def box_ids(questions: list[Any], where: str) -> list[Any] | None:
    """A box's question ids, in its order: an id on every line, or None on none.

    Raises:
        ValueError: some lines name their question and others do not (naming the box and
            the first line without an id).
    """
    named = [q for q in questions if q.qid is not None]
    if not named:
        return None
    if len(named) != len(questions):
        missing = next(q for q in questions if q.qid is None)
        raise ValueError(f"{where}, line {missing.line}: no question id, but line "
                         f"{named[0].line} has one ({named[0].qid!r}): give every line a "
                         "question id (to match questions by id) or none (to match by line "
                         "order)")
    return [q.qid for q in named]


def match_ids(sides: dict[str, list[Any]], where: dict[str, str], reorder: bool = False
              ) -> tuple[dict[str, list[Any]], dict[str, list[Any]] | None]:
    """How the boxes' questions pair: by id when every line of every box has one, else by line.

    The sets of ids must agree (the library's rule, as in ``kpass compare --id``); the
    check is made here so that a refusal names the box and line. The questions are then
    matched by ``kpass.compare`` / ``kpass.leaderboard`` on counts carrying the ids, each box
    in its own order; with ``reorder`` (answer strings, which have no counts type) every
    box is put in the first box's order here.

    Args:
        sides: each box's questions, by model name (the first is the reference order).
        where: each model's box or file, for messages (``model A box``).
        reorder: put every box in the first box's order.

    Returns:
        The questions per model, and each model's ids (None: matched by line order).

    Raises:
        ValueError: some lines or boxes have ids and others not; a box lacks an id the
            first box has, or has one it lacks.
    """
    names = list(sides)
    ids = {name: box_ids(sides[name], where[name]) for name in names}
    given = [name for name in names if ids[name] is not None]
    if given and len(given) != len(names):
        without = next(name for name in names if ids[name] is None)
        first = sides[given[0]][0]
        raise ValueError(f"{where[given[0]]} names its questions (line {first.line}: id "
                         f"{first.qid!r}) but {where[without]} does not: give every line of "
                         "every box a question id (to match by id) or none (to match by line "
                         "order)")
    if not given:  # matched by line order: the caller checks the numbers of questions
        return dict(sides), None
    first = {q.qid: q for q in sides[names[0]]}
    for name in names[1:]:
        own = {q.qid: q for q in sides[name]}
        missing = next((qid for qid in first if qid not in own), None)
        if missing is not None:
            raise ValueError(f"{where[name]} has no question {missing!r} ({where[names[0]]}, "
                             f"line {first[missing].line}): give every model the same "
                             "questions")
        extra = next((q for q in sides[name] if q.qid not in first), None)
        if extra is not None:
            raise ValueError(f"{where[name]}, line {extra.line}: question {extra.qid!r} is "
                             f"not among the questions of {where[names[0]]}: give every "
                             "model the same questions")
    if reorder:
        order = list(first)
        sides = {name: [{q.qid: q for q in sides[name]}[qid] for qid in order]
                 for name in names}
        return sides, {name: order for name in names}
    return dict(sides), {name: [q.qid for q in sides[name]] for name in names}


def same_golds(sides: dict[str, list[Any]], where: dict[str, str]) -> None:
    """Every box that gives gold answers gives the first box's, question by question.

    Answers compare by kpass's canonical rule (``170`` is ``"170.0"``). The boxes are
    already paired (:func:`match_ids`); a box without gold answers uses the first box's.

    Raises:
        ValueError: a gold answer differs from the first box's (naming the box and line).
    """
    from kpass._core.counting.canonical import canonical_answer

    names = list(sides)
    for name in names[1:]:
        for question, first in zip(sides[name], sides[names[0]], strict=True):
            given = question.extras.get("references")
            gold = first.extras.get("references")
            if given is not None and canonical_answer(given) != canonical_answer(gold):
                raise ValueError(f"{where[name]}, line {question.line}: gold answer "
                                 f"{given!r}, but {gold!r} in {where[names[0]]} (line "
                                 f"{first.line}): give every model the same gold answers")


BOXES = {"A": "model A box", "B": "model B box"}


def check_paired(sides: dict[str, list[Any]]) -> None:
    """Both boxes must hold the same number of questions (paired in line order)."""
    if len(sides["A"]) != len(sides["B"]):
        raise ValueError(f"model A has {len(sides['A'])} questions and model B "
                         f"{len(sides['B'])}: give both the same questions, in the same "
                         "order (one a line)")


def paired(sides: dict[str, list[Any]], kind: str
           ) -> tuple[dict[str, list[Any]], dict[str, list[Any]] | None]:
    """How the Compare tab's two boxes pair: by question id when every line has one, else
    by line order (:func:`match_ids`); answer strings also need the same gold answers.

    Returns the questions of each box (answer strings put in A's order) and each box's ids
    for ``kpass.compare`` to match (None: line order).
    """
    found, ids = match_ids(sides, BOXES, reorder=kind == "answers")
    if ids is None:
        check_paired(found)
    if kind == "answers":
        if not any("references" in q.extras for q in found["A"]):
            raise ValueError("give each question's gold answer after '|' on model A's lines")
        same_golds(found, BOXES)
    return found, ids




# The point functions a module's comparison pairs per question (through kpass.compare):
# label -> function name, from the registry.
COMPARED = {m.name: pairs for m in registry.MODULES
            if (pairs := tuple((f.key, f.function) for f in registry.compared(m.name)))}
# TailPass's two ends are Pass@k and Pass^k of the attempts with positive / full credit.
_RULES = {"positive": lambda w: w > 0, "full": lambda w: w == 1}
BINARIZED = {f.key: _RULES[f.binarize] for f in registry.FAMILIES if f.binarize}
# Options of the point functions; the posteriors' options only enter P(A better).
POINT_OPTIONS = ("short", "w", "pass_power", "unanimous_power", "ties")


def binarized(predictions: Any, w: Any, rule: Any) -> list[list[int]]:
    """Categorical outcomes -> 1 where ``rule(w)`` holds for the category's reward, else 0."""
    import kpass

    rewards = [float(x) for x in w] if w else [0.0, 1.0]
    kpass.categorical_counts(predictions, n_categories=len(rewards))  # names a bad category
    return [[int(rule(rewards[int(c)])) for c in row] for row in predictions]


def with_ids(runs: dict[str, Any], ids: dict[str, list[Any]] | None, kind: str
             ) -> dict[str, Any]:
    """Each model's checked outcomes as counts carrying its question ids, in its own order.

    ``kpass.compare`` and ``kpass.leaderboard`` then match the questions by id (the
    library's one rule, as ``kpass compare --id`` does). Binary outcomes become
    ``BinaryCounts``, categories ``CategoricalCounts`` (as wide as the largest category of
    any model); without ids the outcomes are returned as they are (matched by line order).
    Answer strings have no counts type: the page puts them in the first model's order
    before this point (:func:`match_ids`).
    """
    if ids is None or kind == "answers":
        return runs
    import kpass

    if kind == "binary":
        counted = {name: kpass.binary_counts(data) for name, data in runs.items()}
        return {name: kpass.BinaryCounts(c.n_samples, c.n_correct, ids=ids[name])
                for name, c in counted.items()}
    width = 1 + max(int(value) for data in runs.values() for row in data for value in row)
    counts = {name: kpass.categorical_counts(data, n_categories=width)
              for name, data in runs.items()}
    return {name: kpass.CategoricalCounts(c.counts, c.prior_counts, ids=ids[name])
            for name, c in counts.items()}


def compare_rows(family: str, kind: str, a: dict[str, Any], b: dict[str, Any],
                 ks: list[int] | None, options: dict[str, Any],
                 ids: dict[str, list[Any]] | None = None, margin: float | None = None,
                 equivalence: bool = False) -> list[dict[str, Any]]:
    """The rows of the Compare tab: model A against model B for each of the module's metrics.

    ``kpass.compare`` pairs the per-question values: the difference, its SE over
    questions, interval and p-value, and P(A better) from the two posteriors.
    Each model's input is first checked alone, so a bad value names its model. With
    ``ids`` (``{"A": [...], "B": [...]}``, each box's question ids in its own order),
    ``kpass.compare`` matches the questions by id; without, by line. With a ``margin``
    (and ``equivalence``) each row tests the margin's claim instead (``kpass.compare``'s
    ``p_margin``, its sign-flip ``p_margin_exact`` and the verdict, shown or not shown).
    """
    import inspect

    import kpass

    rows = []
    references = (a["references"],) if kind == "answers" else ()
    budget = (ks,) if ks is not None else ()
    for label, name in COMPARED[family]:
        function = getattr(kpass, name)
        accepted = inspect.signature(function).parameters
        kwargs = {key: value for key, value in options.items()
                  if key in POINT_OPTIONS and key in accepted}
        outcomes = {"A": a["predictions"], "B": b["predictions"]}
        for which, data in outcomes.items():
            try:
                if label in BINARIZED:
                    outcomes[which] = binarized(data, options.get("w"), BINARIZED[label])
                function(outcomes[which], *references, *budget, **kwargs)
            except (ValueError, TypeError) as error:
                raise type(error)(f"model {which}: {error}") from None
        outcomes = with_ids(outcomes, ids, "binary" if label in BINARIZED else kind)
        found = kpass.compare(function, outcomes["A"], outcomes["B"], *references,
                              *budget, confidence=options.get("confidence", 0.95),
                              margin=margin, equivalence=equivalence, **kwargs)
        for one in found if isinstance(found, list) else [found]:
            row = {"metric": label, "k": one.k, "A": one.a, "B": one.b,
                   "A - B": one.difference, "se": one.se, "lo": one.lo, "hi": one.hi,
                   "p-value": one.p_value, "P(A better)": one.prob_a_better,
                   "questions": one.questions}
            if margin is not None:
                row.update({"verdict": margin_verdict(one), "p margin": one.p_margin,
                            "p margin exact": one.p_margin_exact})
            rows.append(row)
    return rows


def margin_verdict(comparison: Any) -> str:
    """``shown`` or ``not shown``: whether the row's margin claim holds at its level."""
    return "shown" if comparison.p_margin < 1.0 - comparison.confidence else "not shown"


def parse_margin(value: Any) -> float | None:
    """The Compare tab's margin box: empty for no margin, else a number in (0, 1).

    Raises:
        ValueError: not a number, or outside (0, 1) (``kpass.compare``'s check, naming
            ``margin``).
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    from kpass.stats.comparison import check_margin

    return check_margin(number(value, "margin", "0.02"))
