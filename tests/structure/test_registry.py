"""The family registry (issue 19): every consumer's list derives from ``kpass.registry``, and
every declaration there is checked against the functions themselves.

What each declaration is checked against (never against the registry itself):
- ``values="state"``: the SE the library reports equals the CLT SE of the per-question
  values, computed here with numpy; ``"dataset"``: it equals a delete-one jackknife
  computed here by recomputing the metric M times;
- ``credit``: the per-question value at (n, c) is the U-statistic of its value at k, the
  hypergeometric average sum_j C(c, j) C(n-c, k-j) / C(n, k) v(k, j), in exact Fractions;
  the one state family without it (Geom@k) is shown to break that identity;
- ``module``: the keys the ``evaluate`` module really computes are exactly the declared
  families' keys;
- ``interval``, ``per_k``, ``parameters``: the signatures in :mod:`kpass.families`;
- report names and aliases: ``kpass report --metrics`` on a real file.
"""

import ast
import inspect
import json
import re
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest

import kpass
from kpass import families, registry
from kpass.hf import keywords, vocabulary
from kpass.report import render, table
from kpass.stats import _common, errors

REPO = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(19)
R = RNG.integers(0, 2, (14, 6))
C = RNG.integers(0, 3, (14, 6))
W = [0.0, 0.5, 1.0]
ANSWERS = [[str(x) for x in row] for row in RNG.integers(0, 3, (14, 6))]
REFERENCES = ["1"] * 14
ARGUMENTS = {"tau": 0.5, "weights": [0.0, 0.5, 0.5], "thresholds": [0.5]}


def call(fam, data, k, **kwargs):
    """The family's point function on ``data`` at budget k (its parameters filled in)."""
    function = families.function(fam.function)
    args = [ARGUMENTS[name] for name in fam.parameters if name != "weights"]
    if "weights" in fam.parameters:
        args.append([1.0 / k] * k)
    before = (REFERENCES,) if fam.answers else ()
    budget = (k,) if fam.per_k else ()
    if fam.data == "categorical":
        kwargs.setdefault("w", W)
    return function(data, *before, *budget, *args, **kwargs)


def data_of(fam):
    return {"binary": R, "categorical": C, "answers": ANSWERS}[fam.data]


OWN = [f for f in registry.FAMILIES if f.binarize is None and f.values != "posterior"]


# ----------------------------------------------------------------------------- consumers


def test_stats_kinds_are_the_registrys():
    assert _common._DATASET_LEVEL == tuple(
        f.function for f in registry.FAMILIES if f.values == "dataset")
    assert _common._CREDIT_METRICS == tuple(
        f.function for f in registry.FAMILIES if f.credit and f.binarize is None)
    assert _common._STATE_METRICS == tuple(
        f.function for f in registry.FAMILIES
        if f.values == "state" and f.per_k and f.binarize is None)
    assert _common._PER_STATE == tuple(
        f.function for f in registry.FAMILIES if f.values == "state" and f.binarize is None)


def test_the_report_table_is_the_registrys():
    reported = [f for f in registry.FAMILIES if f.report is not None]
    assert [f.key for f in table.FAMILIES] == [f.report for f in reported]
    for view, fam in zip(table.FAMILIES, reported, strict=True):
        assert (view.function, view.title, view.aliases, view.per_k, view.uses_tau,
                view.default, view.answers, view.constant_at, view.registry_key) == (
            fam.function, fam.title, fam.aliases, fam.per_k, "tau" in fam.parameters,
            fam.default, fam.data == "answers", fam.constant_at, fam.key)
    assert table.PLOTTED == tuple(f.report for f in reported if f.plotted)
    from kpass.report.plot import PANELS

    assert PANELS == (("pass@k", "Pass@k"), ("pass^k", "Pass^k"),
                      ("g-pass@k", "G-Pass@k$_\\tau$"), ("maj@k", "Maj@k"))
    assert render.CONSTANT_AT == {"mg-pass@k": (1,)}


def test_the_evaluate_vocabulary_is_the_registrys():
    assert list(keywords.COMPARED) == [f.key for f in registry.FAMILIES if f.comparable]
    assert list(vocabulary.FAMILIES) == [m.name for m in registry.MODULES]
    assert vocabulary.COMPARISONS == ("kpass_compare",)
    for m in registry.MODULES:
        assert vocabulary.FAMILIES[m.name][0] == m.kind
        assert vocabulary.module_inputs(m.name) == m.inputs
    for key in keywords.COMPARED:
        assert f'"{key}"' in keywords.KEYWORDS["metric"]


def test_every_module_has_its_folder_and_card_naming_its_keys():
    for m in registry.MODULES:
        folder = REPO / ("comparisons" if m.comparison else "metrics") / m.name
        assert (folder / f"{m.name}.py").is_file(), folder
        card = (folder / "README.md").read_text(encoding="utf-8")
        for fam in registry.reported(m.name):
            assert fam.template.split("{")[0] in card, (m.name, fam.key)
    on_disk = {p.name for p in (REPO / "metrics").iterdir() if (p / "README.md").is_file()}
    assert on_disk == {m.name for m in registry.MODULES if not m.comparison}



def test_the_space_offers_what_the_registry_declares(space_app):
    space_controls = space_app.space_controls
    space_output = space_app.space_output

    assert space_controls.COMPARED == {
        m.name: tuple((f.key, f.function) for f in registry.FAMILIES if f.module == m.name
                      and f.values in ("state", "question") and not f.parameters)
        for m in registry.MODULES if not m.comparison}
    assert sorted(space_controls.BINARIZED) == ["tailpass_discovery@k", "tailpass_stability@k"]
    assert [space_controls.BINARIZED["tailpass_discovery@k"](x) for x in W] == [False, True, True]
    assert [space_controls.BINARIZED["tailpass_stability@k"](x) for x in W] == [False, False, True]
    assert set(space_controls.WITHOUT_K) == {"bayes_at_n", "avg_at_n_bayes"}
    assert set(space_output.FORMULAS) == {m.name for m in registry.MODULES if not m.comparison}
    for m in registry.MODULES:
        for name in (*m.options, *registry.KIND_OPTIONS.get(m.kind, ())):
            assert name in space_controls.SPECS and name in keywords.KEYWORDS, (m.name, name)


FAMILY_WORDS = ({f.function for f in registry.FAMILIES} | {f.key for f in registry.FAMILIES}
                | {f.report for f in registry.REPORTED} | {m.name for m in registry.MODULES})
FAMILY_WORDS.discard("avg")  # also an ordinary word


def listed_families(path):
    """Literal tuples, lists, sets and dict keys of three or more family names in a file,
    other than ``__all__`` (a module's exports) and the Space's formulas (text per module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in ("__all__", "FORMULAS")
                   for t in targets):
                allowed.add(id(node.value))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) and id(node) not in allowed:
            elements = [*node.keys, *node.values] if isinstance(node, ast.Dict) else node.elts
            # and one level down: (("pass@k", "Pass@k"), ("pass^k", "Pass^k"), ...)
            elements = [inner for e in elements for inner in (
                e.elts if isinstance(e, (ast.Tuple, ast.List)) else [e])]
            names = [e.value for e in elements if isinstance(e, ast.Constant)
                     and isinstance(e.value, str) and e.value in FAMILY_WORDS]
            if len(names) >= 3:
                found.append((node.lineno, names))
    return found


@pytest.mark.parametrize("path", sorted(
    [p for p in (REPO / "shared" / "kpass").rglob("*.py") if p.name != "registry.py"]
    + list((REPO / "spaces").glob("*.py"))), ids=lambda p: str(p.relative_to(REPO)))
def test_no_consumer_lists_the_families_again(path):
    assert listed_families(path) == []


def test_the_listing_check_finds_a_planted_list(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('KINDS = ("pass_at_k", "maj_at_k", "geom_at_k")\n'
                       '__all__ = ["pass_at_k", "maj_at_k", "geom_at_k"]\n'
                       'PANELS = (("pass@k", "Pass@k"), ("pass^k", "Pass^k"), ("maj@k", "M"))\n')
    assert listed_families(planted) == [(1, ["pass_at_k", "maj_at_k", "geom_at_k"]),
                                        (3, ["pass@k", "pass^k", "maj@k"])]


SPOKEN = ({f.function for f in registry.FAMILIES} | {f.key for f in registry.FAMILIES}
          | {f.report for f in registry.REPORTED} | {a for f in registry.FAMILIES
                                                     for a in f.aliases})


def named_families(path):
    """String literals (docstrings left out) that name one family: a key, a point function,
    a ``--metrics`` name or alias. ``stats`` and ``report`` read what a family is from its
    registry fields, so ``name == "vote_at_k"`` there is a second declaration."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and node.value in SPOKEN]


@pytest.mark.parametrize("path", sorted(
    p for folder in ("stats", "report") for p in (REPO / "shared" / "kpass" / folder).glob("*.py")),
    ids=lambda p: str(p.relative_to(REPO)))
def test_stats_and_report_name_no_family(path):
    assert named_families(path) == []


def test_the_naming_check_finds_a_planted_name(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""About avg and vote_at_k."""\n'
                       'def f(name):\n'
                       '    """Not "avg"."""\n'
                       '    if name in ("avg", "bayes"):\n'
                       '        return 1\n'
                       '    return {"pass@k": 2}.get(name, name == "vote_at_k")\n')
    assert sorted(named_families(planted)) == [(4, "avg"), (4, "bayes"), (6, "pass@k"),
                                               (6, "vote_at_k")]


def test_k_stands_where_the_registry_says():
    """``k_position`` (what ``kpass.compare`` and ``leaderboard`` read) is the signature's."""
    functions = families.functions()
    for fam in OWN:
        parameters = list(inspect.signature(functions[fam.function]).parameters)[1:]
        if fam.per_k:
            assert parameters[:fam.k_position] == list(fam.before_k), fam.key
            assert parameters[fam.k_position] == "k", fam.key
        else:
            assert fam.k_position is None and "k" not in parameters
        assert registry.of_function(fam.function).function == fam.function
    assert registry.of_function("pass_at_k").key == "pass@k"  # not the TailPass view
    with pytest.raises(LookupError, match="no kpass family has the point function 'pass'"):
        registry.of_function("pass")


# ----------------------------------------------------------------------------- declarations


def test_lookups_find_each_entry_and_name_what_exists_otherwise():
    for fam in registry.FAMILIES:
        assert registry.family(fam.key) is fam
    for m in registry.MODULES:
        assert registry.module(m.name) is m
    with pytest.raises(LookupError, match=r"no kpass family has key 'pass@n'; keys: pass@k, "):
        registry.family("pass@n")
    with pytest.raises(LookupError, match=r"modules: pass_at_k_bayes, g_pass_at_k_bayes"):
        registry.module("pass_at_k")
    assert len({m.name for m in registry.MODULES}) == len(registry.MODULES)


def test_every_point_function_of_the_families_is_declared():
    point = {name for name, function in families.functions().items()
             if not name.endswith("_ci") and name != "tailpass_draws"}
    assert point == {f.function for f in registry.FAMILIES}
    assert len({f.key for f in registry.FAMILIES}) == len(registry.FAMILIES)


@pytest.mark.parametrize("fam", registry.FAMILIES, ids=lambda f: f.key)
def test_signature_matches_the_declaration(fam):
    functions = families.functions()
    parameters = list(inspect.signature(functions[fam.function]).parameters)
    assert (f"{fam.function}_ci" in functions) == fam.interval
    assert ("k" in parameters) == fam.per_k
    assert ("per_question" in parameters) == (fam.values in ("state", "question")), parameters
    for name in fam.parameters:
        if name != "moment_power":  # the module's name for the posterior's `lam`
            assert name in parameters, (name, parameters)
    assert fam.data in ("binary", "categorical", "answers")
    assert fam.module is None or fam.module in vocabulary.FAMILIES


@pytest.mark.parametrize("fam", [f for f in OWN if f.values == "state"],
                         ids=lambda f: f.key)
def test_a_state_familys_se_is_the_clt_se_of_its_per_question_values(fam):
    for k in ([2, 4] if fam.per_k else [None]):
        rewards = {"w": [0.0, 1.0]} if fam.data == "categorical" else {}
        values = np.asarray(call(fam, R, k, per_question=True, **rewards), dtype=float)
        expected = values.std(ddof=1) / np.sqrt(values.size)
        se = errors._standard_error(families.function(fam.function), R,
                                          *([k] if k else []),
                                          *[ARGUMENTS[p] if p != "weights" else [1.0 / k] * k
                                            for p in fam.parameters], **rewards)
        assert se == pytest.approx(expected, rel=1e-10, abs=1e-15), (fam.key, k)


@pytest.mark.parametrize("fam", [f for f in OWN if f.values == "dataset"],
                         ids=lambda f: f.key)
def test_a_dataset_familys_se_is_the_delete_one_jackknife(fam):
    k = 3
    m = R.shape[0]
    leave_out = np.array([call(fam, np.delete(R, q, axis=0), k) for q in range(m)])
    expected = np.sqrt((m - 1) / m * np.square(leave_out - leave_out.mean()).sum())
    se = errors._standard_error(families.function(fam.function), R, k)
    assert se == pytest.approx(expected, rel=1e-9)


def u_statistic_holds(fam, n, k):
    """v(n, c) == sum_j Hyp(j; n, c, k) v(k, j) for every c, in Fractions of the floats."""
    at_n = np.asarray(call(fam, kpass.BinaryCounts(np.full(n + 1, n), np.arange(n + 1)), k,
                           per_question=True), dtype=float)
    at_k = np.asarray(call(fam, kpass.BinaryCounts(np.full(k + 1, k), np.arange(k + 1)), k,
                           per_question=True), dtype=float)
    for c in range(n + 1):
        mixed = sum(Fraction(comb(c, j) * comb(n - c, k - j), comb(n, k)) * Fraction(at_k[j])
                    for j in range(k + 1))
        if abs(float(mixed) - at_n[c]) > 1e-12:
            return False
    return True


@pytest.mark.parametrize("fam", [f for f in OWN if f.credit], ids=lambda f: f.key)
def test_a_credit_family_is_the_u_statistic_of_its_value_at_k(fam):
    for n, k in ((6, 1), (6, 3), (7, 4)):
        assert u_statistic_holds(fam, n, k), (fam.key, n, k)


def test_the_u_statistic_check_tells_a_non_credit_family():
    assert not u_statistic_holds(registry.family("geom@k"), 7, 3)


def result_families(results):
    """The registry keys behind a module's result keys (budgets, labels and suffixes out)."""
    found = set()
    for key in results:
        key = re.sub(r"_(mean|sd|cred_lo|cred_hi|se|per_question)$", "", key)
        key = re.sub(r"([@^])\d+", r"\1k", key)
        key = re.sub(r"_tau[\d.]+$", "_tau", re.sub(r"_t[\d.]+$", "_t", key))
        found.add(re.sub(r"_p[\d.]+$", "_p", re.sub(r"_lam[\d.]+$", "", key)))
    return found


@pytest.mark.parametrize("module", [m for m in registry.MODULES if not m.comparison],
                         ids=lambda m: m.name)
def test_a_module_reports_exactly_its_declared_families(module):
    state = {"binary": kpass.binary_counts(R), "categorical": kpass.categorical_counts(C),
             "answers": (ANSWERS, REFERENCES)}[module.kind]
    options = {"tau": 0.5, "lam": 0.5, "moment_power": 2, "w": W, "per_question": True}
    if any(f.per_k for f in registry.reported(module.name)):
        options["k"] = [1, 3]
    accepted = {name: value for name, value in options.items()
                if name in (*module.options, *registry.KIND_OPTIONS[module.kind], "k",
                            "per_question")}
    checked = keywords.check_options(module.name, accepted, when="compute")
    results = vocabulary.compute_results(module.name, state, checked)
    assert result_families(results) == {f.key for f in registry.reported(module.name)}


def test_the_comparison_module_compares_each_declared_family():
    state = vocabulary.PairedCounts(kpass.binary_counts(R), kpass.binary_counts(1 - R))
    for fam in registry.compared():
        options = keywords.check_options("kpass_compare", {
            "k": [2], "metric": fam.key, **({"tau": 0.5} if fam.uses_tau else {})},
            when="compute")
        with pytest.warns(kpass.SmallSampleWarning):
            results = vocabulary.compute_results("kpass_compare", state, options)
        key = fam.template.format(k=2, tau="0.5")
        assert results[f"{key}_difference"] == pytest.approx(
            results[f"{key}_a"] - results[f"{key}_b"])
        with pytest.warns(kpass.SmallSampleWarning):  # 14 questions
            expected = kpass.compare(families.function(fam.function), R, 1 - R, 2,
                                     *([0.5] if fam.uses_tau else []), reference="t")
        assert results[f"{key}_p_value"] == pytest.approx(expected.p_value)


def test_every_report_name_and_alias_selects_its_family(tmp_path, capsys):
    from kpass.report.cli import main

    data = tmp_path / "runs.jsonl"
    data.write_text("".join(json.dumps({"outcomes": [int(x) for x in row]}) + "\n" for row in R))
    for fam in registry.REPORTED:
        if fam.answers:
            continue
        for name in (fam.report, fam.key, *fam.aliases):
            assert main(["report", str(data), "--metrics", name, "--format", "json",
                         "--k", "2"]) == 0
            out = capsys.readouterr().out
            assert {row["metric"] for row in json.loads(out)["results"]} == {
                fam.report}, name
    assert [f.key for f in table.parse_metrics(None)] == [
        f.report for f in registry.REPORTED if f.default]
