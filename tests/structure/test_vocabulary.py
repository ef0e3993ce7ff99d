"""One vocabulary: one name per quantity, one quantity per name, everywhere kpass speaks.

The declared table is :data:`VOCABULARY` (name -> meaning). The walkers collect every name a
user meets: the parameters and result fields of ``kpass.__all__`` (signatures), the CLI's
flags, the JSON fields of ``kpass report | compare | leaderboard`` (and compare's
sequential records), the CSV headers, the ``evaluate`` modules' key statistics, the keys of
``kpass.inspect`` and ``kpass.lighteval`` and the Space's column names. A name not declared
fails (a new name must be declared with its meaning, where a second name for a quantity
shows); a retired name fails (a synonym came back); and the quantities behind the names
that were once shared are checked by their numbers: ``lo``/``hi`` is the interval over
questions and ``cred_lo``/``cred_hi`` the posterior's credible interval wherever they
appear. ``docs/reference/names.md`` must list exactly this table.
"""

import argparse
import ast
import contextlib
import inspect
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

import kpass
from kpass.hf.keywords import _STATISTICS, SUFFIXES
from kpass.hf.vocabulary import COMPARISON_KEYS
from kpass.report.cli import main
from kpass.report.parser import build_parser

REPO = Path(__file__).resolve().parents[2]
SAMPLE = str(REPO / "shared" / "kpass" / "data" / "tau_bench_airline_gpt4o.jsonl")

#: Every public name and output field, once, with its meaning (docs/reference/names.md).
VOCABULARY = {
    # --- the two intervals and the posterior (never sharing a name)
    "estimate": "the point estimate of a metric (finite-sample unbiased where one exists)",
    "se": "standard error over questions (the questions as a sample; CR2 over clusters)",
    "lo": "lower end of the interval over questions (estimate -/+ t se; score, "
          "beta-binomial or exact bound near 0 or 1); for a comparison, of the difference",
    "hi": "upper end of the interval over questions",
    "mean": "posterior mean (questions fixed, samples uncertain): Posterior.mean",
    "sd": "posterior standard deviation: Posterior.sd",
    "cred_lo": "lower end of the posterior credible interval (mean - z sd, clipped)",
    "cred_hi": "upper end of the posterior credible interval (mean + z sd, clipped)",
    "confidence": "level of every interval, credible interval, test and sequence (0.95)",
    "se_method": "how lo/hi were computed: t, score or beta-binomial (near 0 or 1) or exact "
                 "(se = 0)",
    "interval_method": "which interval over questions Pass@k and Pass^k get: auto (the "
                       "beta-binomial one near 0 or 1), se-based or beta-binomial",
    "method": "how a number was computed (a comparison's reference test; a TailPass "
              "interval's route, mc or normal)",
    # --- inputs
    "R": "outcomes: an (M, N) matrix, ragged per-question lists, or counts",
    "R0": "prior outcomes (pseudo-observations) of Bayes@N, Max@k and TailPass",
    "R_a": "model A's outcomes",
    "R_b": "model B's outcomes on the same questions",
    "predictions1": "R_a under evaluate's Comparison feature name (kpass_compare, "
                    "SequentialMonitor.update)",
    "predictions2": "R_b under evaluate's Comparison feature name",
    "ids1": "kpass_compare: the question id of each row of predictions1 (match by id)",
    "ids2": "kpass_compare: the question id of each row of predictions2",
    "matched_by_id": "kpass_compare: 1.0 when questions were matched by ids1/ids2, 0.0 when "
                     "by position",
    "answers": "sampled answers per question (vote@k)",
    "references": "the reference answer of each question (vote@k)",
    "counts": "pre-counted outcomes (BinaryCounts or CategoricalCounts)",
    "n_samples": "samples per question",
    "n_correct": "correct samples per question",
    "prior_counts": "per-question prior pseudo-counts of each category",
    "n_categories": "number of outcome categories",
    "frame": "a dataframe of one row per sample",
    "id": "the column naming each row's question",
    "ids": "question ids (matching runs by id)",
    "outcome": "the column holding each sample's outcome",
    "sample": "the column numbering the samples of a question",
    "mask": "which questions to keep",
    "parts": "counts to concatenate",
    "runs": "models' outcomes by name (leaderboard)",
    "column": "the input column read",
    "threshold": "the cut turning soft scores into 0/1 outcomes",
    "normalize": "the function making answers comparable",
    # --- metric arguments
    "metric": "a metric: its point function, the function's name or its registry key",
    "metrics": "metrics as --metrics takes them (names, a list, or functions)",
    "name": "a name (a model's, a metric function's)",
    "function": "a metric's point function name",
    "k": "samples drawn per question (budget); a sequence for several k",
    "tau": "G-Pass@k threshold in (0, 1]",
    "w": "reward of each category",
    "weights": ("spectrum or threshold weights; with --group, the aggregate's weighting over "
                "groups: questions (micro) or groups (macro)"),
    "lam": "GeoSpectrum's coupling lambda in [0, 1]",
    "pass_power": "Geom@k's power on Pass@k",
    "unanimous_power": "Geom@k's power on Pass^k",
    "ties": "how vote@k splits ties: fractional, or not",
    "short": "questions with fewer than k samples: error or skip",
    "per_question": "return per-question values instead of their mean",
    "bounds": "clipping bounds of the credible interval, or None",
    "alpha0": "Beta prior alpha (prior='uniform' uses it)",
    "beta0": "Beta prior beta",
    "prior": "the prior of a posterior: 'uniform', 'empirical' or an (a, b) Beta pair; "
             "kpass.tailpass alone: its Dirichlet concentration (scorio's signature, kept "
             "so code written for scorio runs unchanged)",
    "concentration": "Dirichlet prior concentration added to every category (vote_at_k_ci; "
                     "the vote_at_k_bayes and tailpass_bayes modules)",
    "draws": "posterior draws (vote@k's Monte Carlo)",
    "seed": "random seed",
    "rng": "random generator or seed",
    "n_draws": "number of posterior draws",
    "eta": "weight of the prior outcomes R0 (TailPass)",
    "thresholds": "TailPass score thresholds",
    "aggregation": "how TailPass weights thresholds",
    "kappa": "TailPass weight concentration",
    "theta": "TailPass weight location",
    "mean_threshold": "mean threshold of TailPass's maxent weights",
    "payoff": "TailPass payoff per level",
    "alpha": "TailPassDraws.harmonic's exponent (the reference library's name; not a level)",
    "q": "power of TailPassDraws.power_mean",
    "m": "rollouts of TailPassDraws.rollout",
    "target": "shortfall target of TailPassDraws.shortfall",
    "epsilon": "shortfall tolerance",
    "values": "draws of a utility",
    # --- comparisons, rankings, plans, sequences
    "clusters": "a cluster label per question (SEs and tests over clusters)",
    "group": "a group (subtask) label per question: one row per group and the aggregate",
    "groups": "the groups of a breakdown (--group), each with its number of questions",
    "reference": "a comparison's reference distribution: t or normal",
    "shared": "compare only the questions both runs have (by id)",
    "primary": "the comparison tested alone at the level, stated first",
    "adjust": ("joint adjustment of the secondary rows: max-t or holm; min-p for the groups "
               "of a breakdown"),
    "adjustment": "the joint adjustment a leaderboard used (max-t, holm; min-p over groups)",
    "a": "model A: its estimate; --a, its label among the --by models",
    "b": "model B: its estimate; --b, its label among the --by models",
    "difference": "A - B, the paired difference",
    "se_a": "model A's own SE over the same questions",
    "se_b": "model B's own SE over the same questions",
    "se_unpaired": "the SE the difference would have had unpaired",
    "a_only": "with one 0/1 sample per question: the questions A got right and B wrong",
    "b_only": "with one 0/1 sample per question: the questions B got right and A wrong",
    "correlation": "correlation of A's and B's per-question values",
    "df": "degrees of freedom of the t reference",
    "p_value": "p-value of no difference (t reference)",
    "p_exact": "exact sign-flip p-value",
    "p_adjusted": "p-value after the joint adjustment",
    "prob_a_better": "posterior probability that A is better on these questions",
    "mde": "minimum detectable difference at 80% power",
    "questions": "questions used",
    "role": "primary or secondary row",
    "verdict": "the verdict sentence's finding (A better, B better, no difference)",
    "verdicts": "the verdicts of every row",
    "same_as": "the row this one merges with (identical numbers)",
    "better": "the better model of a pair",
    "pairs": "the compared pairs of a leaderboard",
    "rows": "a table's rows",
    "rank": "a model's rank",
    "rank_lo": "best rank in the model's joint rank set",
    "rank_hi": "worst rank in the model's joint rank set",
    "prob_best": "posterior probability of being best",
    "prob_top": "posterior probability of each rank",
    "best": "a leaderboard's confidence set for the best model (every tied best held "
            "jointly at the confidence level)",
    "winner": "a leaderboard's model ranked first, corrected for having won (Winner)",
    "corrected": "the winner's hybrid median-unbiased estimate given that it won",
    "conditional": "the winner's conditional median-unbiased estimate given that it won",
    "power": "power of the planned test",
    "samples": "samples per question",
    "between": "between-question variance",
    "within": "within-question variance at the pilot's samples",
    "model": "a model: its label under --by (report JSON/CSV)",
    "distribution": "a plan's distribution of the questions' success rates: beta-binomial "
                    "(a pilot's) or logit-normal (Plan.assume)",
    "irt": "the IRT model of subset estimation: 2pl (default) or rasch",
    "fit_p_values": "goodness-of-fit p-value of the plan's distribution",
    "populations": "the pilot's populations (one or two runs)",
    "pilot_spread": "the pilot's spread between questions",
    "largest": "the most samples per question a plan considers",
    "budget": "what to spend: extra samples to allocate (next), or the samples or money a "
              "plan splits between questions and samples (plan --budget, Plan.split)",
    "cost_question": "Plan.split, Plan.grow: the cost of one question (default 0)",
    "cost_sample": "Plan.split, Plan.grow: the cost of one sample of one model (default 1)",
    "spent": "what a Split costs: questions x (cost_question + runs x samples x cost_sample)",
    "cost-question": "--cost-question: the cost of one question (plan --budget, next "
                     "--budget)",
    "cost-sample": "--cost-sample: the cost of one sample of one model (plan --budget, next "
                   "--budget)",
    "paired": "a sequence of A - B, not one model",
    "units": "what each step adds: questions or clusters",
    "order": "the order the questions are taken in",
    "half_width": "half-width of an interval: one that ends a sequence, or a plan's target "
                  "(plan --half-width)",
    "margin": "non-inferiority or equivalence margin on the metric's 0-1 scale (B the new "
              "model, A the reference)",
    "equivalence": "with a margin: test abs(A - B) < margin (two one-sided tests) instead of "
                   "non-inferiority",
    "null": "what a confidence sequence assumes: exchangeable or bounded",
    "p_margin": "p-value of the margin's claim (one-sided t test of A - B >= margin, or the "
                "larger of the two one-sided p-values for equivalence)",
    "p_margin_exact": "sign-flip counterpart of p_margin (one-sided sign-flip test of the "
                      "differences shifted by the margin)",
    "margin_verdict": "what the margin's test showed, in words (\"B is not worse than A by "
                      "more than 0.02 (...)\", or \"not shown: ...\")",
    "decided": "whether the sequence reached its verdict",
    "stop_at": "units after which it first did",
    "steps": "units seen",
    "start": "first question of a slice",
    "stop": "end of a slice",
    "baseline": "a plan's assumed value of the metric (model A's, for a pair; the metric's "
                "own units)",
    "spread": "a plan's sd of the questions' success logits (how unlike the questions are)",
    "achieved": "the power a plan reaches at its questions and difference (>= power)",
    "solved": "what a plan solved for: questions (a difference given) or difference",
    "missed_at": "the first unit whose set of plausible means missed the running interval",
    # --- a benchmark's score from a subset of its questions
    "R_new": "the new model's outcomes on the chosen questions (subset_estimate)",
    "subset": "the chosen questions (a Subset from choose_questions; the CLI's --subset file)",
    "design": "how the questions were drawn: stratified or simple",
    "inclusion": "a chosen question's inclusion probability",
    "stratum": "a chosen question's stratum",
    "population": "N, the benchmark's number of questions",
    "srs_se": "the se the plain mean of a simple random subset of the same size would have had",
    "explained": "the share of the questions' variance the IRT predictions explained",
    "prediction": "the IRT prediction alone of the full-benchmark value",
    "ability": "the new model's fitted IRT ability",
    "subset_a": "the subset model A ran on (None: a full run) (subset_compare)",
    "subset_b": "the subset model B ran on (None: a full run) (subset_compare)",
    "same_subset": "whether both models ran on the same subset (the paired estimator)",
    "subsets": "each model run on a subset -> its Subset; the others full runs "
               "(subset_leaderboard; the CLI's --subset NAME=FILE)",
    # --- the report's document
    "file": "an input file's name",
    "path": "an input file's path",
    "label": "a row's label (Pass@4)",
    "inputs": "the files read",
    "results": "the rows",
    "notes": "lines under the table",
    "warnings": "problems worth a look that did not stop the run",
    "n_min": "fewest samples of a question",
    "n_max": "most samples of a question",
    "bad_rows": "rows skipped by --skip-bad",
    "matched_by": "how questions were matched: id or row",
    "models": "the models ranked",
    "names": "the models' names",
    "a_file": "model A's file",
    "b_file": "model B's file",
    "run": "what a harness recorded of a run: model, harness, date, samples, tokens",
    "harness": "the harness that wrote a run (inspect, lm-eval, lighteval)",
    "harness_version": "the version of that harness",
    "task": "the task a run evaluated",
    "date": "when a run started (ISO 8601)",
    "status": "an Inspect log's status (success, started ...)",
    "total_samples": "samples a run scored (questions x epochs)",
    "epochs": "samples per question a run was set to (Inspect epochs, lm-eval repeats)",
    "generate": "the generation settings a run was given",
    "input_tokens": "input tokens over a run",
    "output_tokens": "output tokens over a run",
    "total_tokens": "all tokens over a run",
    "tokens": "the leaderboard's column of each model's total tokens",
    "cost": "cost per question of k samples (--cost: a long file's cost column)",
    "cost-per-1k-tokens": "--cost-per-1k-tokens: the price of 1,000 tokens (X, or IN,OUT)",
    "costs": "each model's per-question costs (cost_front)",
    "cost_se": "se over questions of the cost per question",
    "cost_lo": "lower end of the cost per question's interval",
    "cost_hi": "upper end of the cost per question's interval",
    "solved_rate": "mean per-question Pass@k a cost per solved question divides by",
    "per_solved": "cost per solved question (ratio of means over questions)",
    "per_solved_se": "its delta-method se over questions",
    "per_solved_lo": "lower end of its Fieller interval",
    "per_solved_hi": "upper end of its Fieller interval (null: unbounded)",
    "front": "the models on the estimate-vs-cost Pareto front",
    "dominated_by": "for a model off the front, the models told apart as better and cheaper",
    "cost_difference": "kpass compare's cost: A - B per question and per solved question "
                       "(JSON; CompareTable.cost_difference)",
    "quantity": "which cost a CostDifference (or a cost line) is: cost (per question) or "
                "per_solved (a column of kpass report and compare --cost --format csv)",
    "cost_a": "model A's mean cost of one sample of each question (cost_difference, "
              "compare_table)",
    "cost_b": "model B's mean cost of one sample of each question, in its own order",
    "cost_rows": "ReportTable.cost_rows: the report's cost fields (CostSummary's), one dict per "
                 "input and k",
    # --- CLI flags (as typed after --)
    "band": "--band: what --plot shades (se or posterior)",
    "chunk-size": "--chunk-size: rows per read batch",
    "digits": "--digits: printed digits",
    "filter": "--filter: keep the rows matching",
    "format": "--format: text, markdown, csv or json",
    "from": "--from: the harness that wrote the file",
    "help": "--help",
    "out": "--out: write to a file",
    "percent": "--percent: values x 100",
    "explain": "--explain: the legend, the notes in full and the method notes",
    "posterior": "--posterior: the posterior columns also with one sample per question",
    "plot": "--plot: draw the curves",
    "sequential": "--sequential: the anytime-valid verdict",
    "sequential-null": "--sequential-null: what the sequence assumes (exchangeable, bounded)",
    "skip-bad": "--skip-bad: skip unreadable rows",
    "version": "--version",
    "pool": "read several models' files or a model column as one run, on purpose",
    "by": "--by COLUMN / by=: one model per value of a long table's column (file: per file)",
    "any-task": "pair Inspect logs of different tasks (eval.task) anyway",
    "partial": "read an Inspect log of a run that has not finished (status started)",
    "reference_runs": "--reference-runs: with --subset, the past models' runs the subset was "
                      "drawn from",
    # --- keys of the evaluate modules (after a metric's key)
    "cs_lo": "SequentialMonitor: the sequence's lower bound",
    "cs_hi": "SequentialMonitor: the sequence's upper bound",
    "cs_estimate": "SequentialMonitor: the running mean",
    "cs_questions": "SequentialMonitor: questions seen",
    "cs_decided": "SequentialMonitor: whether it decided",
    "cs_stop_at": "SequentialMonitor: questions after which it decided",
    "cs_verdict": "SequentialMonitor: its verdict",
    "stderr": "lighteval's suffix for se (lighteval's own convention)",
}

#: The Space's column labels that are not field names: label -> the field it shows.
SPACE_LABELS = {"A - B": "difference", "p-value": "p_value", "P(A better)": "prob_a_better",
                "p margin": "p_margin", "p margin exact": "p_margin_exact",
                "P(best)": "prob_best", "rank set": "rank_lo", "interval": "lo",
                "A": "a", "B": "b"}

#: Names retired for one of the above; none may come back anywhere.
RETIRED = {"lower": "lo / cred_lo", "upper": "hi / cred_hi",
           "mu": "mean", "sigma": "sd", "lambda_": "lam", "maxt": "max-t", "se_lo": "lo",
           "se_hi": "hi", "posterior mean": "mean", "SE": "se",
           "difference_se": "se", "a_se": "se_a", "b_se": "se_b"}


def _signature_names():
    found = {}
    for public in kpass.__all__:
        obj = getattr(kpass, public)
        targets = [(public, obj)]
        if isinstance(obj, type):
            own = [m for m in vars(obj) if not m.startswith("_") and callable(getattr(obj, m))]
            targets += [(f"{public}.{m}", getattr(obj, m)) for m in own]
        for label, target in targets:
            try:
                parameters = inspect.signature(target).parameters
            except (TypeError, ValueError):
                continue
            for name in parameters:
                if name not in ("self", "cls", "args", "kwargs") and not name.startswith("_"):
                    found.setdefault(name, label)
    return found


def _flags():
    found = {}

    def walk(parser, where):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command, sub in action.choices.items():
                    walk(sub, command)
            for option in action.option_strings:
                if option.startswith("--"):
                    name = option[2:].replace("-", "_")
                    found.setdefault(name if name in VOCABULARY else option[2:],
                                     f"kpass {where} {option}")

    walk(build_parser(), "")
    return found


def _json_keys():
    found = {}
    for argv in (["report", SAMPLE], ["compare", SAMPLE, SAMPLE],
                 ["leaderboard", SAMPLE, SAMPLE], ["compare", SAMPLE, SAMPLE, "--sequential"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main([*argv, "--format", "json"]) == 0
        stack = [json.loads(out.getvalue())]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, value in item.items():
                    if SAMPLE not in key and "#" not in key:  # a model's name, not a field
                        found.setdefault(key, f"kpass {argv[0]} --format json")
                    stack.append(value)
            elif isinstance(item, list):
                stack.extend(item)
    from kpass.report.compare_render import FIELDS
    from kpass.report.leaderboard import CSV_FIELDS as BOARD
    from kpass.report.render import CSV_FIELDS as REPORT
    for source, fields in (("report csv", REPORT), ("compare csv", FIELDS),
                           ("leaderboard csv", BOARD)):
        for name in fields:
            found.setdefault(name, source)
    return found


def _module_keys():
    found = {suffix[1:]: "evaluate modules" for suffix in SUFFIXES}
    found.update({key: "kpass_compare" for key in COMPARISON_KEYS})
    found.update({name: "evaluate key statistics"
                  for name in _STATISTICS.pattern.split("(", 1)[1].split(")")[0].split("|")})
    source = inspect.getsource(kpass.SequentialMonitor.update)
    found.update({key: "SequentialMonitor" for key in re.findall(r'_(cs_\w+)"', source)})
    return found


def _harness_keys():
    source = (REPO / "shared" / "kpass" / "lighteval.py").read_text(encoding="utf-8")
    found = {key: "kpass.lighteval" for key in re.findall(r'f"\{name\}_(\w+)"', source)}
    inspect_source = (REPO / "shared" / "kpass" / "inspect.py").read_text(encoding="utf-8")
    keys = re.search(r'value is ``\{([^}]*)\}``', inspect_source)[1]
    found.update({key.strip(' "'): "kpass.inspect.interval" for key in keys.split(",")})
    return found


def _space_columns():
    found = {}
    for path, names in (("spaces/space_output.py", ("COLUMNS", "COMPARE_COLUMNS",
                                                    "MARGIN_COLUMNS")),
                        ("spaces/leaderboard_tab.py", ("BOARD_COLUMNS",))):
        tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and node.targets[0].id in names:
                for column in ast.literal_eval(node.value):
                    found.setdefault(column, f"{path} {node.targets[0].id}")
            if isinstance(node, ast.Assign) and node.targets[0].id == "SUFFIXES":
                for suffix, column in ast.literal_eval(node.value).items():
                    assert suffix == f"_{column}", (suffix, column)  # key and column agree
    return found


SOURCES = {"signatures": _signature_names, "CLI flags": _flags, "JSON and CSV": _json_keys,
           "evaluate modules": _module_keys, "harnesses": _harness_keys,
           "the Space": _space_columns}


@pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")
@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_name_is_declared_once_and_no_retired_name_is_back(source):
    found = SOURCES[source]()
    assert found, source
    retired = {name: where for name, where in found.items() if name in RETIRED}
    assert not retired, {name: f"{where}: use {RETIRED[name]}" for name, where in retired.items()}
    undeclared = {name: where for name, where in found.items()
                  if name not in VOCABULARY and SPACE_LABELS.get(name) not in VOCABULARY}
    assert not undeclared, ("names not in the vocabulary (declare each with its meaning, or "
                            f"use the existing name of that quantity): {undeclared}")


def test_alpha_is_never_a_level():
    """The level is confidence= everywhere; alpha is only the reference's TailPass exponent."""
    takers = {label for name, label in _signature_names().items() if name == "alpha"}
    every = [f"{public}.{m}" if m else public for public in kpass.__all__
             for m in [None, *(vars(getattr(kpass, public)) if isinstance(getattr(kpass, public),
                                                                        type) else [])]
             if "alpha" in _parameters(public, m)]
    assert takers <= {"TailPassDraws.harmonic"} and every == ["TailPassDraws.harmonic"]


def _parameters(public, method):
    target = getattr(kpass, public) if method is None else getattr(getattr(kpass, public),
                                                                   method)
    try:
        return inspect.signature(target).parameters if callable(target) else {}
    except (TypeError, ValueError):
        return {}


def test_the_space_labels_and_the_vocabulary_do_not_overlap():
    assert not set(SPACE_LABELS) & set(VOCABULARY)
    assert not set(RETIRED) & set(VOCABULARY)


# ----------------------------------------------------------------------------- one quantity


R = [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1], [0, 1, 0, 0], [1, 1, 0, 1], [0, 0, 0, 1]]


def test_cred_lo_cred_hi_are_the_posterior_and_lo_hi_the_interval_over_questions(tmp_path):
    """The report's JSON, the modules' keys and kpass's objects hold the same numbers."""
    from kpass.stats.intervals import interval

    posterior = kpass.pass_at_k_ci(R, 2)
    se = kpass.standard_error(kpass.pass_at_k, R, 2)
    estimate = kpass.pass_at_k(R, 2)
    over = interval(estimate, se, len(R) - 1, len(R), 0.95)
    assert posterior._fields == ("mean", "sd", "cred_lo", "cred_hi")
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"outcomes": row}) + "\n" for row in R))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["report", str(path), "--metrics", "pass@k", "--k", "2", "--format",
                     "json"]) == 0
    row, = json.loads(out.getvalue())["results"]
    for name in posterior._fields:
        assert row[name] == pytest.approx(getattr(posterior, name), rel=1e-12), name
    assert (row["se"], row["lo"], row["hi"]) == pytest.approx((se, over.lo, over.hi),
                                                             rel=1e-12)
    from kpass.hf.vocabulary import pass_at_k_bayes
    results = pass_at_k_bayes(kpass.binary_counts(R), {"k": [2]})
    for suffix, value in zip(SUFFIXES, posterior, strict=True):
        assert results["pass@2" + suffix] == pytest.approx(value, rel=1e-12), suffix
    assert results["pass@2_se"] == pytest.approx(se, rel=1e-12)
    comparison = kpass.compare(kpass.pass_at_k, R, R[::-1], 2)
    assert comparison.lo < comparison.difference < comparison.hi
    assert np.isclose(comparison.hi - comparison.difference,
                      comparison.difference - comparison.lo)  # t interval of A - B


# ----------------------------------------------------------------------------- the docs table


def test_prior_is_the_beta_prior_everywhere_but_the_reference_librarys_tailpass():
    """prior= means one thing and defaults to "uniform" wherever kpass chose the name, except
    kpass.allocate, whose default is the fitted prior ("empirical": the uniform one makes
    allocation worse than an even spread on rare successes, issue 38 item 16); kpass.tailpass
    keeps scorio's Dirichlet-concentration `prior` (tests/families/test_contract.py freezes
    its signature)."""
    takers = {}
    for public in kpass.__all__:
        obj = getattr(kpass, public)
        members = [m for m in vars(obj) if not m.startswith("_")] if isinstance(obj, type) else []
        for m in [None, *members]:
            if "prior" in _parameters(public, m):
                target = getattr(obj, m) if m else obj
                label = f"{public}.{m}" if m else public
                takers[label] = inspect.signature(target).parameters["prior"].default
    odd = {label: default for label, default in takers.items() if default != "uniform"}
    assert odd == {"tailpass": 1.0, "allocate": "empirical"}
    assert len(takers) > 10 and "vote_at_k_ci" not in takers
    assert "concentration" in inspect.signature(kpass.vote_at_k_ci).parameters


def test_the_docs_table_lists_exactly_the_declared_vocabulary():
    text = (REPO / "docs" / "reference" / "names.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([^`]+)` \| (.+?) \|$", text, flags=re.M))
    declared = {**VOCABULARY, **{label: f"the Space's column for `{field}`"
                                 for label, field in SPACE_LABELS.items()},
                **{name: f"retired: use {new}" for name, new in RETIRED.items()}}
    assert rows == declared
