"""The `evaluate` metric modules (metrics/<name>/) against the kpass core they wrap."""

from __future__ import annotations

import doctest
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

# Offline, and a private modules cache so nothing leaks into ~/.cache (must precede `evaluate`).
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
_MODULES_CACHE = tempfile.mkdtemp(prefix="kpass-hf-modules-")
if "evaluate" not in sys.modules:
    os.environ["HF_MODULES_CACHE"] = _MODULES_CACHE

evaluate = pytest.importorskip("evaluate")
import kpass  # noqa: E402
from kpass.hf.evaluate_module import KPassMetric  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "metrics"
BINARY = ["pass_at_k_bayes", "g_pass_at_k_bayes", "maj_at_k_bayes", "auc_at_k_bayes",
          "geo_spectrum_bayes"]
CATEGORICAL = ["max_at_k_bayes", "bayes_at_n", "avg_at_n_bayes", "tailpass_bayes"]
EIGHT = BINARY + CATEGORICAL
ALL = EIGHT + ["vote_at_k_bayes"]
CLASSES = {"pass_at_k_bayes": "PassAtKBayes", "g_pass_at_k_bayes": "GPassAtKBayes",
           "maj_at_k_bayes": "MajAtKBayes", "auc_at_k_bayes": "AucAtKBayes",
           "geo_spectrum_bayes": "GeoSpectrumBayes", "max_at_k_bayes": "MaxAtKBayes",
           "bayes_at_n": "BayesAtN", "avg_at_n_bayes": "AvgAtNBayes",
           "vote_at_k_bayes": "VoteAtKBayes", "tailpass_bayes": "TailpassBayes"}
SUFFIXES = ("", "_se", "_mean", "_sd", "_cred_lo", "_cred_hi")


def load(name, **kwargs):
    return evaluate.load(str(METRICS / name), keep_in_memory=kwargs.pop("keep_in_memory", True),
                         **kwargs)


def ragged_binary(seed, m=23):
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 2, size=int(rng.integers(4, 9))).tolist() for _ in range(m)]


def ragged_categorical(seed, m=19):
    rng = np.random.default_rng(seed)
    R = [rng.integers(0, 3, size=int(rng.integers(4, 9))).tolist() for _ in range(m)]
    R0 = [rng.integers(0, 3, size=int(rng.integers(0, 3))).tolist() for _ in range(m)]
    return R, R0


def put(out, key, point, interval, se):
    out[key] = point
    out[key + "_se"] = se  # the SE over questions (kpass.standard_error, tested in test_stats)
    for suffix, value in zip(SUFFIXES[2:], interval, strict=True):
        out[key + suffix] = value


def core_results(name, R, ks=(1, 4), R0=None, w=None):
    """What each module must return, computed with the kpass core functions directly."""
    out = {}
    pairs = {
        "pass_at_k_bayes": [("pass@{}", kpass.pass_at_k, kpass.pass_at_k_ci),
                            ("pass^{}", kpass.pass_hat_k, kpass.pass_hat_k_ci)],
        "maj_at_k_bayes": [("maj@{}", kpass.maj_at_k, kpass.maj_at_k_ci)],
        "auc_at_k_bayes": [("auc@{}", kpass.auc_at_k, kpass.auc_at_k_ci)],
        "g_pass_at_k_bayes": [("g-pass@{}", kpass.g_pass_at_k, kpass.g_pass_at_k_ci),
                              ("mg-pass@{}", kpass.mg_pass_at_k, kpass.mg_pass_at_k_ci)],
        "geo_spectrum_bayes": [("geom@{}", kpass.geom_at_k, kpass.geom_at_k_ci),
                               ("geom_ds@{}", kpass.geom_ds_at_k, kpass.geom_ds_at_k_ci),
                               ("geo_spectrum@{}", kpass.geo_spectrum_at_k,
                                kpass.geo_spectrum_at_k_ci),
                               ("geo_spectrum_star@{}", kpass.geo_spectrum_star_at_k,
                                kpass.geo_spectrum_star_at_k_ci)],
    }
    for template, point, interval in pairs.get(name, []):
        for k in ks:
            put(out, template.format(k), point(R, k), interval(R, k),
                kpass.standard_error(point, R, k))
    if name == "geo_spectrum_bayes":
        from kpass._core.moments.credits import mg_spectrum_weights

        for k in ks:
            weights = mg_spectrum_weights(k).tolist()
            put(out, f"threshold_spectrum@{k}", kpass.threshold_spectrum_at_k(R, k, weights),
                kpass.threshold_spectrum_at_k_ci(R, k, weights),
                kpass.standard_error(kpass.threshold_spectrum_at_k, R, k, weights))
    if name == "max_at_k_bayes":
        for k in ks:
            put(out, f"max@{k}", kpass.max_at_k(R, k, w), kpass.max_at_k_ci(R, k, w, R0),
                kpass.standard_error(kpass.max_at_k, R, k, w))
    if name == "bayes_at_n":
        mu, sigma, lo, hi = kpass.bayes_ci(R, w, R0)
        put(out, "bayes@n", mu, (mu, sigma, lo, hi), kpass.standard_error(kpass.bayes, R, w, R0))
    if name == "avg_at_n_bayes":
        a, sigma, lo, hi = kpass.avg_ci(R, w)
        put(out, "avg@n", a, (a, sigma, lo, hi), kpass.standard_error(kpass.avg, R, w))
    if name == "tailpass_bayes":
        out.update(tailpass_results(R, ks, R0, w))
    return out


def tailpass_results(R, ks, R0=None, w=None, thresholds=(0.5,)):
    """tailpass_bayes from kpass.tailpass / tailpass_empirical and Pass@k of binarized rows."""
    out = {}
    rewards = np.array([0.0, 1.0] if w is None else w)
    for k in ks:
        profile = kpass.tailpass(R, k, w, R0, thresholds=list(thresholds))
        lo, hi = (np.asarray(x) for x in profile.ci(method="normal")[2:])
        for key, point, utility, hit in (("discovery", kpass.pass_at_k, "discovery", rewards > 0),
                                         ("stability", kpass.pass_hat_k, "stability",
                                          rewards == 1)):
            binary = [[int(hit[c]) for c in row] for row in R]
            mu, sigma = getattr(profile, utility)()
            z = 1.959963984540054
            put(out, f"tailpass_{key}@{k}", point(binary, k),
                (mu, sigma, max(mu - z * sigma, 0.0), min(mu + z * sigma, 1.0)),
                kpass.standard_error(point, binary, k))
        each = np.array([kpass.tailpass_empirical([row], k, w, thresholds=list(thresholds))
                         for row in R])
        for column, t in enumerate(thresholds):
            values = each[:, column]
            put(out, f"tailpass@{k}_t{t:g}", values.mean(),
                (profile.mean[column], profile.std[column], lo[column], hi[column]),
                values.std(ddof=1) / math.sqrt(len(values)))
    return out


def assert_same(results, expected):
    assert set(results) == set(expected)
    for key, value in expected.items():
        assert type(results[key]) is float, key
        assert results[key] == pytest.approx(value, rel=1e-12, abs=1e-14), key


# ----------------------------------------------------------------------------- loading


@pytest.mark.parametrize("name", ALL)
def test_load_by_path_gives_the_modules_own_class(name):
    module = load(name)
    assert type(module).__name__ == CLASSES[name]
    assert type(module) is not KPassMetric and issubclass(type(module), KPassMetric)
    assert type(module).__module__.startswith("evaluate_modules.")
    assert module.name == name


@pytest.mark.slow
def test_bare_names_load_offline_from_any_directory_after_install(tmp_path):
    cache = tmp_path / "modules"
    env = {**os.environ, "HF_MODULES_CACHE": str(cache), "HF_HUB_OFFLINE": "1",
           "HF_EVALUATE_OFFLINE": "1", "HF_METRICS_CACHE": str(tmp_path / "metrics")}
    subprocess.run([sys.executable, "-m", "kpass.hf.install"], check=True,
                   env=env, cwd=tmp_path, capture_output=True)
    script = textwrap.dedent(f"""
        import evaluate
        names = {ALL!r}
        loaded = {{n: type(evaluate.load(n)).__name__ for n in names}}
        print(loaded)
        print(evaluate.load("pass_at_k_bayes", k=2).compute(predictions=[[1, 0], [1, 1]]))
    """)
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    loaded = eval(done.stdout.splitlines()[0])
    assert loaded == CLASSES
    assert "'pass^2': 0.5" in done.stdout.splitlines()[1]


# ----------------------------------------------------------------------------- same numbers


@pytest.mark.parametrize("name", BINARY)
def test_binary_modules_match_the_core_in_every_ingestion_path(name):
    R = ragged_binary(1)
    expected = core_results(name, R)
    assert_same(load(name).compute(predictions=R, k=[1, 4]), expected)
    by_batch = load(name, k=[1, 4])
    for start in range(0, len(R), 5):
        by_batch.add_batch(predictions=R[start:start + 5])
    assert_same(by_batch.compute(), expected)
    one_by_one = load(name)
    for row in R:
        one_by_one.add(prediction=row)
    assert_same(one_by_one.compute(k=[1, 4]), expected)
    as_array = load(name)
    square = np.array([row[:4] for row in R], dtype=np.int8)
    assert_same(as_array.compute(predictions=square, k=[1, 4]),
                core_results(name, square))


@pytest.mark.parametrize("name", CATEGORICAL)
def test_categorical_modules_match_the_core_with_prior_outcomes_across_batches(name):
    R, R0 = ragged_categorical(2)
    w = [0.0, 0.25, 1.0]
    with_prior = name != "avg_at_n_bayes"
    expected = core_results(name, R, R0=R0 if with_prior else None, w=w)
    module = load(name, w=w)
    for start in range(0, len(R), 4):
        extra = {"R0": R0[start:start + 4]} if with_prior else {}
        module.add_batch(predictions=R[start:start + 4], **extra)
    assert_same(module.compute(k=[1, 4]), expected)
    single = load(name)
    for row, prior in zip(R, R0, strict=True):
        single.add(prediction=row, **({"R0": prior} if with_prior else {}))
    assert_same(single.compute(k=[1, 4], w=w), expected)


def test_combine_over_all_eight_with_shared_keywords_matches_the_core():
    R = ragged_binary(3)
    expected = {}
    for name in EIGHT:
        expected.update(core_results(name, R))
    combined = evaluate.combine([load(name) for name in EIGHT])
    assert_same(combined.compute(predictions=R, k=[1, 4]), expected)
    looped = evaluate.combine([load(name, k=[1, 4]) for name in EIGHT])
    for start in range(0, len(R), 6):
        looped.add_batch(predictions=R[start:start + 6])
    assert_same(looped.compute(), expected)


_WORKER = """
import json, sys
import evaluate
rank, cache, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
R, names = json.loads(sys.argv[4]), {names!r}
half = R[:len(R) // 2] if rank == 0 else R[len(R) // 2:]
results = {{}}
for name in names:
    module = evaluate.load("{metrics}/" + name, num_process=2, process_id=rank, cache_dir=cache,
                           experiment_id="kpass-" + name, k=[1, 4])
    for start in range(0, len(half), 3):
        module.add_batch(predictions=half[start:start + 3])
    results[name] = module.compute()
if rank == 0:
    json.dump(results, open(out, "w"))
"""


@pytest.mark.slow
def test_distributed_two_processes_match_the_core(tmp_path):
    R = ragged_binary(4)
    script = _WORKER.format(names=EIGHT, metrics=METRICS)
    workers = [subprocess.Popen([sys.executable, "-c", script, str(rank), str(tmp_path / "cache"),
                                 str(tmp_path / "out.json"), json.dumps(R)],
                                stderr=subprocess.PIPE, text=True) for rank in (0, 1)]
    for worker in workers:
        _, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
    results = json.loads((tmp_path / "out.json").read_text())
    for name in EIGHT:
        assert_same(results[name], core_results(name, R))


def test_vote_module_matches_the_core():
    from kpass.families import vote

    answers = [["7", "7", "3", "3", "7"], ["a", "b", "b"], ["x", "y", "x", "z"]]
    gold = ["7", "a", "x"]
    module = load("vote_at_k_bayes")
    module.add_batch(predictions=answers[:2], references=gold[:2])
    module.add(prediction=answers[2], reference=gold[2])
    results = module.compute(k=[1, 3])
    expected = {}
    for k in (1, 3):
        put(expected, f"vote@{k}", vote.vote_at_k(answers, gold, k),
            vote.vote_at_k_ci(answers, gold, k),
            kpass.standard_error(vote.vote_at_k, answers, gold, k))
    assert_same(results, expected)
    with pytest.raises(TypeError, match=r"predictions\[0\]\[1\]"):
        module.add_batch(predictions=[["1", 1]], references=["1"])


# ----------------------------------------------------------------------------- keywords


def test_load_time_keywords_are_defaults_that_compute_overrides():
    R = ragged_binary(5)
    module = load("pass_at_k_bayes", k=[1, 4], confidence=0.8)
    module.add_batch(predictions=R)
    results = module.compute(k=2, alpha0=2.0)
    assert set(results) == {f"pass{s}2{x}" for s in "@^" for x in SUFFIXES}
    mu, sigma, lo, hi = kpass.pass_at_k_ci(R, 2, confidence=0.8, alpha0=2.0)
    assert results["pass@2_cred_lo"] == pytest.approx(lo, rel=1e-12)
    assert set(load("pass_at_k_bayes", k=[1, 4]).compute(predictions=R)) == {
        f"pass{s}{k}{x}" for s in "@^" for k in (1, 4) for x in SUFFIXES}


def test_tau_and_lam_appear_in_keys_when_given():
    R = ragged_binary(6)
    g = load("g_pass_at_k_bayes").compute(predictions=R, k=4, tau=[0.5, 0.75])
    assert g["g-pass@4_tau0.75"] == pytest.approx(kpass.g_pass_at_k_tau(R, 4, 0.75), rel=1e-12)
    assert "g-pass@4_tau0.5_cred_hi" in g and "mg-pass@4" in g
    geo = load("geo_spectrum_bayes").compute(predictions=R, k=4, lam=[0.25])
    assert geo["geo_spectrum@4_lam0.25"] == pytest.approx(
        kpass.geo_spectrum_at_k(R, 4, lam=0.25), rel=1e-12)


@pytest.mark.parametrize("name", ALL)
def test_a_typo_is_refused_at_load_and_at_compute(name):
    with pytest.raises(ValueError, match="unknown keyword `kk`.*Did you mean `k`"):
        load(name, kk=4)
    module = load(name)
    with pytest.raises(ValueError, match="unknown keyword `confidance`"):
        module.compute(predictions=[[1, 0]], confidance=0.9)


def test_a_bad_value_is_refused_at_load():
    with pytest.raises(ValueError, match="tau"):
        load("g_pass_at_k_bayes", tau=1.5)
    with pytest.raises(TypeError, match="`k` must be an int"):
        load("pass_at_k_bayes", k=[1, "4"])


# ----------------------------------------------------------------------------- nothing is lost


def test_a_failed_compute_keeps_every_batch_for_the_next_one():
    R = ragged_binary(7)
    module = load("pass_at_k_bayes", keep_in_memory=False, cache_dir=tempfile.mkdtemp())
    module.add_batch(predictions=R[:10])
    module.add_batch(predictions=R[10:])
    with pytest.raises(ValueError, match="`k`.*questions added are kept"):
        module.compute(k=50)
    with pytest.raises(ValueError, match="unknown keyword"):
        module.compute(k=2, typo=1)
    module.add_batch(predictions=[[1, 1, 1, 1]])
    assert_same(module.compute(k=[1, 4]), core_results("pass_at_k_bayes", R + [[1, 1, 1, 1]]))


@pytest.mark.parametrize("bad", [0.5, 2, "1", None, float("nan")])
def test_a_bad_batch_is_rejected_naming_the_question_and_earlier_batches_stay(bad):
    R = ragged_binary(8)
    module = load("pass_at_k_bayes")
    module.add_batch(predictions=R)
    with pytest.raises(ValueError, match=r"predictions\[1\]\[2\].*23 questions added before"):
        module.add_batch(predictions=[[1, 0, 1], [0, 1, bad, 1]])
    assert_same(module.compute(k=[1, 4]), core_results("pass_at_k_bayes", R))


def test_categorical_modules_reject_non_integral_categories():
    module = load("bayes_at_n")
    module.add_batch(predictions=[[0, 1, 2]])
    for bad in (1.5, -1, "2", None):
        with pytest.raises(ValueError, match=r"predictions\[0\]\[1\]"):
            module.add_batch(predictions=[[0, bad]])
    assert module.compute(w=[0, 0.5, 1])["bayes@n"] == pytest.approx(
        kpass.bayes([[0, 1, 2]], [0, 0.5, 1])[0], rel=1e-12)


# ----------------------------------------------------------------------------- outputs


def test_pass_at_k_keys_are_exactly_as_specified_and_python_floats():
    results = load("pass_at_k_bayes").compute(predictions=ragged_binary(9), k=[1, 2, 4])
    assert list(results) == [f"pass{s}{k}{x}" for s in "@^" for k in (1, 2, 4) for x in SUFFIXES]
    assert all(type(value) is float for value in results.values())


def test_per_question_values_are_opt_in():
    R = ragged_binary(10)
    results = load("pass_at_k_bayes").compute(predictions=R, k=2, per_question=True)
    assert results["pass@2_per_question"] == pytest.approx(
        kpass.pass_at_k(R, 2, per_question=True).tolist(), rel=1e-12)
    assert len(results["pass^2_per_question"]) == len(R)


def test_tau_bench_published_pass_hat_figures_are_reproduced():
    from kpass.data import tau_bench_outcomes

    results = load("pass_at_k_bayes").compute(predictions=tau_bench_outcomes(), k=[1, 2, 3, 4])
    published = [0.420, 0.273, 0.220, 0.200]
    assert [round(results[f"pass^{k}"], 3) for k in (1, 2, 3, 4)] == published


# ----------------------------------------------------------------------------- cards and docs

FRONT_MATTER = ["title", "emoji", "colorFrom", "colorTo", "sdk", "sdk_version", "app_file",
                "pinned", "tags", "description"]
SECTIONS = ["Metric Description", "How to Use", "Inputs", "Output Values", "Examples",
            "Limitations and Bias", "Citation", "Further References"]


@pytest.mark.parametrize("name", ALL)
def test_each_module_folder_has_the_four_files_and_a_canonical_card(name):
    folder = METRICS / name
    for file in (f"{name}.py", "README.md", "app.py", "requirements.txt"):
        assert (folder / file).is_file(), file
    card = (folder / "README.md").read_text(encoding="utf-8")
    front = card.split("---")[1]
    for field in FRONT_MATTER:
        assert re.search(rf"^{field}:", front, re.M), field
    assert "sdk: gradio" in front and "app_file: app.py" in front
    assert "- evaluate" in front and "- metric" in front
    headings = re.findall(r"^#+ (.+)$", card, re.M)
    for section in SECTIONS:
        assert section in headings, section
    assert "kpass" in (folder / "requirements.txt").read_text()
    assert re.search(r"arxiv\.org/abs/\d{4}\.\d{5}", card)


def _run_doctest(text, name, monkeypatch):
    monkeypatch.chdir(METRICS)  # bare names resolve to ./<name>/<name>.py
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, name, None, 0)
    assert test.examples, f"{name} has no examples"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, f"{runner.failures} doctest failures in {name}"


@pytest.mark.parametrize("name", ALL)
def test_kwargs_description_examples_run(name, monkeypatch):
    spec = importlib.util.spec_from_file_location(f"_script_{name}", METRICS / name / f"{name}.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for attribute in ("_CITATION", "_DESCRIPTION", "_KWARGS_DESCRIPTION"):
        assert getattr(script, attribute).strip()
    _run_doctest(script._KWARGS_DESCRIPTION, name, monkeypatch)


@pytest.mark.parametrize("name", ALL)
def test_card_examples_run(name, monkeypatch):
    card = (METRICS / name / "README.md").read_text(encoding="utf-8")
    section = card.split("### Examples", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "no python block under Examples"
    _run_doctest("\n".join(blocks), f"{name}/README.md", monkeypatch)


def test_results_are_json_safe():
    results = load("geo_spectrum_bayes").compute(predictions=ragged_binary(11), k=[1, 4])
    assert json.loads(json.dumps(results)) == results
    assert not any(math.isnan(value) for value in results.values())


@pytest.mark.slow
def test_every_app_builds_a_gradio_demo_that_computes():
    pytest.importorskip("gradio")
    import runpy

    for name in ALL:
        namespace = runpy.run_path(str(METRICS / name / "app.py"), run_name="kpass_app")
        assert type(namespace["demo"]).__name__ == "Blocks", name
        assert namespace["module"].name == name


def test_tailpass_module_options_reach_the_core():
    R, R0 = ragged_categorical(9)
    w = [0.0, 0.5, 1.0]
    module = load("tailpass_bayes", w=w)
    results = module.compute(predictions=R, R0=R0, k=[2, 3], thresholds=[0.25, 0.75],
                             moment_power=[1, 2.5], concentration=0.5, eta=0.25, confidence=0.8)
    z = 1.2815515655446004  # Phi^-1(0.9)
    for k in (2, 3):
        profile = kpass.tailpass(R, k, w, R0, prior=0.5, eta=0.25, thresholds=[0.25, 0.75])
        point = kpass.tailpass_empirical(R, k, w, thresholds=[0.25, 0.75])
        for column, t in enumerate(("0.25", "0.75")):
            key = f"tailpass@{k}_t{t}"
            assert results[key] == pytest.approx(point[column], rel=1e-12)
            assert results[key + "_mean"] == pytest.approx(profile.mean[column], rel=1e-12)
            assert results[key + "_cred_lo"] == pytest.approx(
                max(0.0, profile.mean[column] - z * profile.std[column]), rel=1e-12)
        for p, label in ((1.0, "1"), (2.5, "2.5")):
            mu, sigma = profile.moment(p)
            assert results[f"tailpass_moment@{k}_p{label}"] == pytest.approx(mu, rel=1e-12)
            assert results[f"tailpass_moment@{k}_p{label}_sd"] == pytest.approx(sigma,
                                                                                   rel=1e-12)
        mu, sigma = profile.discovery()
        assert results[f"tailpass_discovery@{k}_mean"] == pytest.approx(mu, rel=1e-12)
    # lam is GeoSpectrum's coupling: accepted (shared vocabulary) and ignored here
    assert load("tailpass_bayes").compute(predictions=[[1, 0, 1], [0, 0, 1]], k=2,
                                          lam=0.5) == load("tailpass_bayes").compute(
        predictions=[[1, 0, 1], [0, 0, 1]], k=2)
    with pytest.raises(ValueError, match="thresholds"):
        module.compute(predictions=R, thresholds=[0.5, 0.25])
    with pytest.raises(ValueError, match="eta"):
        load("tailpass_bayes", eta=1.5)
    with pytest.raises(ValueError, match="moment_power"):
        module.compute(predictions=R, moment_power=0)


def test_tailpass_module_keeps_per_question_values_and_skips_short_questions():
    R = [[1, 0, 1, 1], [0, 1], [1, 1, 1]]
    results = load("tailpass_bayes").compute(predictions=R, k=3, short="skip",
                                             per_question=True, thresholds=[0.5, 0.75])
    each = results["tailpass@3_t0.75_per_question"]  # 3 of 3 correct
    assert math.isnan(each[1]) and each[0] == pytest.approx(0.25) and each[2] == 1.0
    assert results["tailpass@3_t0.75"] == pytest.approx(0.625)
    assert results["tailpass@3_t0.5_per_question"][::2] == [1.0, 1.0]  # 2 of 3: sure
    assert results["tailpass_stability@3_per_question"][0] == pytest.approx(0.25)
    # The posterior covers the same two questions as the estimate (as the other families').
    kept = kpass.tailpass([R[0], R[2]], 3, thresholds=[0.5, 0.75])
    assert results["tailpass@3_t0.75_mean"] == pytest.approx(float(kept.mean[1]), rel=1e-12)
    assert results["tailpass_discovery@3_mean"] == pytest.approx(kept.discovery()[0], rel=1e-12)
    assert results["tailpass_stability@3_sd"] == pytest.approx(kept.stability()[1], rel=1e-12)
