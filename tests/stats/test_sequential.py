"""kpass.confidence_sequence: the betting confidence sequence, pinned and simulated.

Fast tests pin the bounds against the capital process written out plainly (a loop over
questions and candidate means, no shared code) and check the plumbing (pairing by id,
order, clusters, one model). Slow tests are seeded simulations of the claims in
docs/how-to/adaptive.md: validity under continuous monitoring and the sample size at a
0.5-logit shift against a fixed-sample t test of 80% power.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

import kpass
from kpass.stats.sequential import betting_bounds, log_capital


def plain_bounds(x, alpha, steps, c=0.75):
    """The hedged capital process on the grid j/steps, one loop per question and candidate."""
    lo_run, hi_run = 0.0, 1.0
    los, his = [], []
    for t in range(1, len(x) + 1):
        survivors = []
        for j in range(1, steps):
            m = j / steps
            up = down = 1.0
            for i in range(1, t + 1):
                past = x[:i - 1]
                mu = (0.5 + sum(past)) / i
                dev = 0.25
                for h in range(1, i):
                    mean_h = (0.5 + sum(x[:h])) / (h + 1)
                    dev += (x[h - 1] - mean_h) ** 2
                var = dev / i
                bet = (mu - m) / (var + (mu - m) ** 2)
                bet_up = min(max(bet, 0.0), c / m)
                bet_down = min(max(-bet, 0.0), c / (1 - m))
                up *= 1 + bet_up * (x[i - 1] - m)
                down *= 1 - bet_down * (x[i - 1] - m)
            if 0.5 * up + 0.5 * down < 1 / alpha:
                survivors.append(j)
        if survivors:
            new_lo = (survivors[0] - 1) / steps
            new_hi = (survivors[-1] + 1) / steps
            if max(lo_run, new_lo) <= min(hi_run, new_hi):
                lo_run, hi_run = max(lo_run, new_lo), min(hi_run, new_hi)
        los.append(lo_run)
        his.append(hi_run)
    return los, his


def test_bounds_match_the_capital_process_written_plainly():
    x = [0.9, 1.0, 0.75, 1.0, 0.85, 0.95, 1.0, 0.8, 0.9, 1.0, 0.7, 0.95]
    lo, hi = betting_bounds(np.array(x), 0.1, steps=40)
    want_lo, want_hi = plain_bounds(x, 0.1, 40)
    assert lo.tolist() == pytest.approx(want_lo, abs=1e-12)
    assert hi.tolist() == pytest.approx(want_hi, abs=1e-12)
    assert lo[-1] > 0.5  # the tiny input does narrow the interval


def test_log_capital_is_the_plain_product():
    x = np.array([0.2, 0.9, 0.4, 0.6, 1.0])
    m = 0.35
    up = down = 1.0
    expected = []
    for i in range(x.size):
        mu = (0.5 + x[:i].sum()) / (i + 1)
        var = (0.25 + sum((x[h] - (0.5 + x[:h + 1].sum()) / (h + 2)) ** 2
                          for h in range(i))) / (i + 1)
        bet = (mu - m) / (var + (mu - m) ** 2)
        up *= 1 + min(max(bet, 0), 0.75 / m) * (x[i] - m)
        down *= 1 - min(max(-bet, 0), 0.75 / (1 - m)) * (x[i] - m)
        expected.append(math.log(0.5 * up + 0.5 * down))
    assert log_capital(x, m).tolist() == pytest.approx(expected, rel=1e-12)


def test_paired_sequence_maps_differences_and_decides():
    A = [[1, 1, 1, 1]] * 30 + [[0, 1, 1, 1]] * 30
    B = [[0, 0, 0, 1]] * 30 + [[0, 0, 1, 0]] * 30
    cs = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1, null="bounded")
    d = np.array([0.75] * 30 + [0.5] * 30)
    lo, hi = betting_bounds((d + 1) / 2, 0.05)
    assert cs.lo.tolist() == pytest.approx((2 * lo - 1).tolist())
    assert cs.hi.tolist() == pytest.approx((2 * hi - 1).tolist())
    assert cs.estimate[-1] == pytest.approx(d.mean())
    first = int(np.flatnonzero(cs.lo > 0)[0]) + 1
    assert (cs.decided, cs.stop_at, cs.verdict) == (True, first, "A better")
    assert cs.summary().startswith(f"decided after {first} questions: A better")
    flipped = kpass.confidence_sequence(kpass.pass_at_k, B, A, 1, null="bounded")
    assert flipped.verdict == "B better" and flipped.stop_at == first


def test_pairs_by_id_and_follows_order():
    n = np.array([4, 4, 4, 4, 4, 4])
    a = kpass.BinaryCounts(n, np.array([4, 3, 1, 0, 2, 4]), ids=["a", "b", "c", "d", "e", "f"])
    b = kpass.BinaryCounts(n, np.array([1, 0, 2, 2, 4, 1]), ids=["f", "e", "d", "c", "b", "a"])
    cs = kpass.confidence_sequence(kpass.pass_at_k, a, b, 1, order=["c", "a", "f", "b", "e", "d"],
                                    null="bounded")
    by_id = {"a": (1 - 0.25), "b": 0.75 - 1, "c": 0.25 - 0.5, "d": 0 - 0.5, "e": 0.5 - 0,
             "f": 1 - 0.25}
    d = np.array([by_id[q] for q in ["c", "a", "f", "b", "e", "d"]])
    assert cs.ids == ["c", "a", "f", "b", "e", "d"]
    assert cs.estimate.tolist() == pytest.approx((np.cumsum(d) / np.arange(1, 7)).tolist())
    lo, _ = betting_bounds((d + 1) / 2, 0.05)
    assert cs.lo.tolist() == pytest.approx((2 * lo - 1).tolist())


def test_int_ids_in_order_are_ids_not_rows():
    n = np.full(3, 2)
    a = kpass.BinaryCounts(n, np.array([2, 0, 1]), ids=[10, 0, 1])
    b = kpass.BinaryCounts(n, np.array([0, 0, 0]), ids=[10, 0, 1])
    cs = kpass.confidence_sequence(kpass.pass_at_k, a, b, 1, order=[0, 1, 10])
    assert cs.ids == [0, 1, 10] and cs.estimate.tolist() == pytest.approx([0, 0.25, 0.5])
    with pytest.raises(ValueError, match="ids that `R_a` does not have"):
        kpass.confidence_sequence(kpass.pass_at_k, a, b, 1, order=[0, 1, 2])


def test_clusters_become_units_of_their_mean():
    R_a = [[1, 1], [0, 1], [1, 0], [0, 0], [1, 1]]
    R_b = [[0, 0]] * 5
    cs = kpass.confidence_sequence(kpass.pass_at_k, R_a, R_b, 1,
                                   clusters=["x", "y", "x", "z", "y"])
    # units in order of first question: x = mean(1, .5), y = mean(.5, 1), z = 0
    assert cs.units == "clusters" and cs.ids == ["x", "y", "z"]
    assert cs.estimate.tolist() == pytest.approx([0.75, 0.75, 0.5])


def test_one_model_stops_at_its_margin():
    rng = np.random.default_rng(3)
    R = (rng.random((3000, 4)) < 0.6).astype(int)
    cs = kpass.confidence_sequence(kpass.pass_at_k, R, None, 1, half_width=0.05)
    half = (cs.hi - cs.lo) / 2
    assert cs.decided and cs.verdict == "known to +-0.05"
    assert half[cs.stop_at - 1] <= 0.05 < half[cs.stop_at - 2]
    assert cs.lo[-1] <= 0.6 <= cs.hi[-1]


@pytest.mark.parametrize("call, message", [
    (lambda: kpass.confidence_sequence(kpass.pass_at_k, [[1, 0]], None, 1, confidence=1.5),
     "confidence"),
    (lambda: kpass.confidence_sequence(kpass.pass_at_k, [[1, 0], [0, 1]], None, 1,
                                       order=[0, 0]), "permutation"),
    (lambda: kpass.confidence_sequence(kpass.pass_at_k, [[1, 0], [0, 1]], None, 1,
                                       half_width=-1), "half_width"),
    (lambda: kpass.confidence_sequence(kpass.pass_at_k, [[1, 0], [0, 1]], [[1, 0]], 1),
     "same questions"),
    (lambda: kpass.confidence_sequence(kpass.geom_ds_at_k, [[1, 0], [0, 1]], None, 1),
     "dataset-level"),
])
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises((TypeError, ValueError), match=message):
        call()


# ----------------------------------------------------------------------------- simulations

DESIGN = {"samples": 4, "difficulty_sd": 1.0}  # logit p_q ~ N(0, 1), 4 samples per model


def paired_pass1(rng, reps, questions, shift):
    """Per-question Pass@1 differences A - B, rescaled to [0, 1]: (reps, questions)."""
    n = DESIGN["samples"]
    theta = rng.normal(0.0, DESIGN["difficulty_sd"], (reps, questions))
    a = rng.binomial(n, expit(theta + shift)) / n
    b = rng.binomial(n, expit(theta)) / n
    return (a - b + 1) / 2


@pytest.mark.slow
def test_null_crossing_rate_with_a_look_after_every_question():
    # 1000 replications x 1000 looks; the process at the true mean 1/2 (no difference).
    rng = np.random.default_rng(20240)
    x = paired_pass1(rng, 1000, 1000, 0.0)
    crossed = (log_capital(x, 0.5) >= math.log(1 / 0.05)).any(axis=1)
    assert crossed.mean() <= 0.05  # measured 0.022 (seed 20240)
    # End to end: 0 never leaves confidence_sequence's interval more often either.
    rng = np.random.default_rng(20241)
    left = 0
    for _ in range(100):
        theta = rng.normal(0, 1, 1000)
        A = kpass.BinaryCounts(np.full(1000, 4), rng.binomial(4, expit(theta)))
        B = kpass.BinaryCounts(np.full(1000, 4), rng.binomial(4, expit(theta)))
        cs = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1)
        left += bool(((cs.lo > 0) | (cs.hi < 0)).any())
        assert cs.decided == bool(((cs.lo > 0) | (cs.hi < 0)).any())
    assert left <= 10  # alpha 0.05 of 100: 5 expected, 10 is +2.3 sd


@pytest.mark.slow
@pytest.mark.parametrize("mu", [0.0, -3.0, 3.5])
def test_one_model_covers_its_population_mean_under_continuous_monitoring(mu):
    # Pass@1 of 4 samples, logit p ~ N(mu, 1): means 0.5, 0.069, 0.956 (quadrature).
    mean = integrate.quad(lambda z: stats.norm.pdf(z) * expit(mu + z), -12, 12)[0]
    rng = np.random.default_rng(31)
    x = rng.binomial(4, expit(mu + rng.normal(0, 1, (1000, 1000)))) / 4
    left = (log_capital(x, mean) >= math.log(1 / 0.05)).any(axis=1).mean()
    assert left <= 0.05  # measured 0.037, 0.013, 0.015


def t_test_questions(delta, sd, alpha=0.05, power=0.8):
    """Smallest M with two-sided one-sample t power >= power (noncentral t)."""
    for m in range(3, 100000):
        crit = stats.t.ppf(1 - alpha / 2, m - 1)
        nc = delta / sd * math.sqrt(m)
        if stats.nct.sf(crit, m - 1, nc) + stats.nct.cdf(-crit, m - 1, nc) >= power:
            return m
    raise AssertionError("no M")


@pytest.mark.slow
def test_decides_a_half_logit_shift_within_1_5_times_the_t_test_sample():
    rng = np.random.default_rng(7)
    big = 2 * paired_pass1(rng, 1, 2_000_000, 0.5)[0] - 1
    needed = t_test_questions(big.mean(), big.std())  # about 77 questions
    rng = np.random.default_rng(2024)
    horizon = 600
    stops = []
    for _ in range(200):
        theta = rng.normal(0, 1, horizon)
        A = kpass.BinaryCounts(np.full(horizon, 4), rng.binomial(4, expit(theta + 0.5)))
        B = kpass.BinaryCounts(np.full(horizon, 4), rng.binomial(4, expit(theta)))
        cs = kpass.confidence_sequence(kpass.pass_at_k, A, B, 1)
        stops.append(cs.stop_at if cs.decided else horizon)  # undecided count as the horizon
        assert cs.verdict in ("A better", None)
    ratio = np.mean(stops) / needed
    assert ratio <= 1.5  # measured about 1.3


def difference_pmf(n, shift, nodes=120):
    """Exact pmf of d = (A - B) / n: Gauss-Hermite over logit p ~ N(0, 1), binomial sums."""
    z, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    k = np.arange(n + 1)
    pmf = np.zeros(2 * n + 1)
    for theta, weight in zip(z, w, strict=True):
        a = stats.binom.pmf(k, n, expit(theta + shift))
        b = stats.binom.pmf(k, n, expit(theta))
        pmf += weight * np.convolve(a, b[::-1])  # index j + n: P(A - B = j)
    return np.arange(-n, n + 1) / n, pmf


@pytest.mark.slow
def test_at_16_samples_no_bounded_bet_can_reach_1_5_times_the_t_test():
    """The floor of docs/how-to/adaptive.md: a test valid for every distribution of d on [-1, 1]
    with mean 0 bets at most b in [0, 1] on d each question, so by Wald's identity it needs
    E[tau] >= log(1 / alpha) / max_b E log(1 + b d) questions: 34.8 at 16 samples, more
    than 1.5 x the t test's 22."""
    d, pmf = difference_pmf(16, 0.5)
    rng = np.random.default_rng(11)  # the pmf against simulation
    draws = 2 * paired_pass1_n(rng, 400_000, 16, 0.5) - 1
    assert abs(pmf @ d - draws.mean()) < 3 * draws.std() / math.sqrt(draws.size)
    mean, sd = pmf @ d, math.sqrt(pmf @ (d - pmf @ d) ** 2)
    needed = t_test_questions(mean, sd)
    bets = np.linspace(0, 1, 1001)
    with np.errstate(divide="ignore", invalid="ignore"):  # b = 1 at d = -1: log(0)
        rates = [pmf[pmf > 0] @ np.log1p(b * d[pmf > 0]) for b in bets]
    growth = max(rate for rate in rates if np.isfinite(rate))
    floor = math.log(1 / 0.05) / growth
    assert needed == 22 and floor > 1.5 * needed  # 34.8 > 33
    # Simulated: the oracle's constant bet (b = 0.999, one-sided) and kpass's sequence.
    rng = np.random.default_rng(2024)
    x = paired_pass1_n(rng, 300 * 600, 16, 0.5).reshape(300, 600)
    for log_k, low, high in ((np.cumsum(np.log1p(0.999 * (2 * x - 1)), axis=1), 1.0, 1.1),
                             (log_capital(x, 0.5), 1.0, 2.0)):
        crossed = log_k >= math.log(1 / 0.05)
        assert crossed.any(axis=1).all()
        stops = crossed.argmax(axis=1) + 1
        assert low * floor <= stops.mean() + 2 * stops.std() / math.sqrt(300)
        assert stops.mean() <= high * floor  # measured 36.3 (1.04x), 61.6 (1.77x)


def paired_pass1_n(rng, size, n, shift):
    """size per-question Pass@1 differences A - B of n samples each, rescaled to [0, 1]."""
    theta = rng.normal(0.0, 1.0, size)
    return (rng.binomial(n, expit(theta + shift)) / n - rng.binomial(n, expit(theta)) / n
            + 1) / 2


# ----------------------------------------------------------------------------- in the loop


@pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")  # compute() at 30 questions
def test_monitor_after_each_compute_equals_the_sequence_so_far():
    evaluate = pytest.importorskip("evaluate")
    from pathlib import Path

    from kpass import SequentialMonitor

    path = Path(__file__).resolve().parents[2] / "comparisons" / "kpass_compare"
    module = evaluate.load(str(path), keep_in_memory=True)
    rng = np.random.default_rng(5)
    theta = rng.normal(0, 1, 90)
    A = rng.binomial(1, expit(theta + 1.5)[:, None], (90, 4)).tolist()
    B = rng.binomial(1, expit(theta)[:, None], (90, 4)).tolist()
    monitor = SequentialMonitor("pass@k", k=2)
    for end in range(30, 91, 30):
        results = module.compute(predictions1=A[:end], predictions2=B[:end], k=2)
        results.update(monitor.update(A[end - 30:end], B[end - 30:end]))
        cs = kpass.confidence_sequence(kpass.pass_at_k, A[:end], B[:end], 2)
        assert results["pass@2_cs_lo"] == cs.lo[-1] and results["pass@2_cs_hi"] == cs.hi[-1]
        assert results["pass@2_cs_questions"] == end
        assert results["pass@2_cs_decided"] is cs.decided == monitor.decided
        assert results["pass@2_difference"] == pytest.approx(cs.estimate[-1])
    assert monitor.decided and results["pass@2_cs_verdict"] == "A better"
    with pytest.raises(ValueError, match="predictions2"):
        monitor.update(A[:2])


def test_monitor_refuses_bad_options():
    from kpass import SequentialMonitor

    with pytest.raises(ValueError, match="metric"):
        SequentialMonitor("pass@zz")
    with pytest.raises(TypeError, match="k"):
        SequentialMonitor("pass@k", k=0.5)
    with pytest.raises(ValueError, match="tau"):
        SequentialMonitor("g-pass@k_tau", k=2)


@pytest.fixture(scope="module")
def space(space_app):
    """The Space's app module and its Pass@k page: (app, module, controls, default values)."""
    from pathlib import Path

    import evaluate

    app = space_app
    repo = Path(__file__).resolve().parents[2]
    module = evaluate.load(str(repo / "metrics" / "pass_at_k_bayes" / "pass_at_k_bayes.py"))
    space_controls = app.space_controls
    controls = space_controls.module_controls(module)
    return app, module, controls, [space_controls.control_value(c) for c in controls]


def test_space_compare_tab_shows_the_sequential_verdict(space):
    app, module, controls, values = space
    text_a = "\n".join(["1 1 1 1"] * 20 + ["0 1 1 1"] * 20)
    text_b = "\n".join(["0 0 0 1"] * 20 + ["0 0 1 0"] * 20)
    message, table, _ = app.run_compare(module, controls, text_a, text_b, "1, 2", *values)
    first, second = message.split("\n\n")
    assert first.startswith("Compared") and len(table) > 0
    cs = kpass.confidence_sequence(kpass.pass_at_k, [[1, 1, 1, 1]] * 20 + [[0, 1, 1, 1]] * 20,
                                   [[0, 0, 0, 1]] * 20 + [[0, 0, 1, 0]] * 20, 1)
    assert second == ("Sequential (anytime-valid, 95%, exchangeable null, questions in line "
                      "order): pass@1 "
                      f"{cs.summary()}.")
    assert "decided after" in second


# ----------------------------------------------------------------------------- the CLI


def write_runs(tmp_path, shift, questions=120, seed=8):
    import json

    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, questions)
    paths = []
    for name, s in (("a", shift), ("b", 0.0)):
        path = tmp_path / f"{name}.jsonl"
        with path.open("w") as f:
            for q in range(questions):
                row = rng.binomial(1, expit(theta[q] + s), 4).tolist()
                f.write(json.dumps({"id": f"q{q}", "outcomes": row}) + "\n")
        paths.append(path)
    return paths


def test_cli_compare_sequential_prints_the_running_verdict(tmp_path, capsys):
    from kpass.report.cli import main

    a, b = write_runs(tmp_path, 2.0)
    assert main(["compare", str(a), str(b), "--id", "id", "--sequential", "--k", "1",
                 "--metrics", "pass@k"]) == 0
    out = capsys.readouterr().out.splitlines()
    import json

    rows_a = [json.loads(line)["outcomes"] for line in a.read_text().splitlines()]
    rows_b = [json.loads(line)["outcomes"] for line in b.read_text().splitlines()]
    cs = kpass.confidence_sequence(kpass.pass_at_k, rows_a, rows_b, 1)
    assert out[0].startswith("A = a.jsonl, B = b.jsonl: 120 questions paired by id (id); "
                             "anytime-valid 95% confidence sequence")
    assert out[1] == f"Pass@1  {cs.summary()}"
    assert cs.decided and "decided after" in out[1]
    assert main(["compare", str(a), str(b), "--id", "id", "--sequential", "--k", "1",
                 "--metrics", "pass@k", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)[0]
    assert record["stop_at"] == cs.stop_at and record["lo"] == cs.lo[-1]


def test_cli_compare_sequential_not_yet(tmp_path, capsys):
    from kpass.report.cli import main

    a, b = write_runs(tmp_path, 0.0, questions=40)
    assert main(["compare", str(a), str(b), "--id", "id", "--sequential", "--k", "1",
                 "--metrics", "pass@k"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith("Pass@1  not yet: ") and line.endswith("after 40 questions")


def test_cli_compare_sequential_shared_and_clusters(tmp_path, capsys):
    import json

    from kpass.report.cli import main

    a, b = write_runs(tmp_path, 0.0, questions=40)
    short = tmp_path / "b_short.jsonl"
    short.write_text("".join(b.read_text().splitlines(keepends=True)[:30]))
    assert main(["compare", str(a), str(short), "--id", "id", "--sequential", "--k", "1",
                 "--metrics", "pass@k"]) == 1
    assert "pass --shared" in capsys.readouterr().err
    assert main(["compare", str(a), str(short), "--id", "id", "--sequential", "--k", "1",
                 "--metrics", "pass@k", "--shared"]) == 0
    assert capsys.readouterr().out.splitlines()[1].endswith("after 30 questions")
    labelled = tmp_path / "a_topics.jsonl"
    rows = [json.loads(line) for line in a.read_text().splitlines()]
    labelled.write_text("".join(json.dumps({**r, "topic": f"t{i % 7}"}) + "\n"
                                for i, r in enumerate(rows)))
    assert main(["compare", str(labelled), str(b), "--clusters", "topic", "--sequential",
                 "--k", "1", "--metrics", "pass@k"]) == 0
    assert capsys.readouterr().out.splitlines()[1].endswith("after 7 clusters")


def test_space_sequential_verdict_matches_questions_by_id(space):
    """Boxes with ids in different orders: the second line follows the questions by id (as
    the tab's table does), equal to confidence_sequence on counts carrying the same ids, and
    not to the line-order pairing."""
    import json

    app, module, controls, values = space
    rng = np.random.default_rng(5)
    ids = [f"q{i}" for i in range(40)]
    a = {q: [int(x) for x in rng.random(4) < 0.8] for q in ids}
    b = {q: [int(x) for x in rng.random(4) < 0.3] for q in ids}
    order_b = list(rng.permutation(ids))
    text_a = "\n".join(json.dumps({"id": q, "outcomes": a[q]}) for q in ids)
    text_b = "\n".join(json.dumps({"id": q, "outcomes": b[q]}) for q in order_b)
    message, _, _ = app.run_compare(module, controls, text_a, text_b, "1", *values)
    second = message.split("\n\n")[1]
    by_id = kpass.confidence_sequence(kpass.pass_at_k,
                                      [a[q] for q in ids], [b[q] for q in ids], 1)
    by_line = kpass.confidence_sequence(kpass.pass_at_k,
                                        [a[q] for q in ids], [b[q] for q in order_b], 1)
    assert by_id.summary() != by_line.summary()
    assert second == ("Sequential (anytime-valid, 95%, exchangeable null, questions matched "
                      "by id, in A's line "
                      f"order): pass@1 {by_id.summary()}.")


@pytest.mark.parametrize("bad_a, bad_b", [
    ([[1, 2, 0, 1]], [[0, 0, 0, 1]]),  # an outcome that is not 0/1
    ([[1, 0]], [[0, 0]]),              # fewer samples than k = 4
])
def test_monitor_keeps_nothing_of_a_batch_that_fails(bad_a, bad_b):
    from kpass import SequentialMonitor

    A = [[1, 1, 1, 1], [0, 1, 1, 1]] * 15
    B = [[0, 0, 0, 1], [0, 0, 1, 0]] * 15
    monitor = SequentialMonitor("pass@k", k=4)
    monitor.update(A[:4], B[:4])
    before = (monitor.questions, monitor.sequence)
    with pytest.raises(ValueError):
        monitor.update(bad_a, bad_b)
    assert (monitor.questions, monitor.sequence) == before
    # the failed batch left no trace: later batches give exactly the sequence without it
    out = monitor.update(A[4:], B[4:])
    cs = kpass.confidence_sequence(kpass.pass_at_k, A, B, 4)
    assert monitor.questions == 30 and out["pass@4_cs_lo"] == cs.lo[-1]
    assert out["pass@4_cs_hi"] == cs.hi[-1]


def test_monitor_first_batch_failing_does_not_fix_the_kind():
    from kpass import SequentialMonitor

    monitor = SequentialMonitor("pass@k", k=1)
    with pytest.raises(ValueError):
        monitor.update([[1, 2]])  # one model, bad outcome: the monitor stays undecided on kind
    out = monitor.update([[1, 0]], [[0, 0]])  # a pair is then accepted
    assert out["pass@1_cs_questions"] == 1.0 and monitor.questions == 1


def test_a_new_set_missing_the_running_interval_is_reported():
    # easy questions first: the sequence soon excludes the later mean; the set of
    # plausible means then misses the running interval, which is kept (issue 38, item 18)
    A = [[1, 1, 1, 1]] * 40 + [[0, 0, 0, 0]] * 60
    with pytest.warns(UserWarning, match="no longer fit the running interval"):
        cs = kpass.confidence_sequence(kpass.pass_at_k, A, None, 1)
    assert cs.missed_at is not None and 40 < cs.missed_at <= 100
    # the plain capital process: at missed_at no grid mean keeps K_t(m) < 1/alpha inside
    # the interval held just before
    x = np.array([1.0] * 40 + [0.0] * 60)
    t = cs.missed_at
    grid = np.arange(1, 2000) / 2000
    inside = grid[(grid >= cs.lo[t - 2]) & (grid <= cs.hi[t - 2])]
    capital = np.array([log_capital(x[:t], m)[-1] for m in inside])
    assert (capital >= np.log(1 / 0.05)).all()
    assert cs.as_dict()["missed_at"] == cs.missed_at
    # shuffled, the same values share one mean: nothing to report
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        shuffled = kpass.confidence_sequence(kpass.pass_at_k, A, None, 1,
                                             order=rng.permutation(100).tolist())
    assert shuffled.missed_at is None


def test_cli_compare_sequential_says_how_it_paired_and_refuses_joint_options(tmp_path, capsys):
    """Issue 38 item 10: --sequential begins with plain compare's pairing line (row order
    gets its note too), and --primary / --adjust, which it cannot honour (each sequence
    holds on its own), are refused in one line with exit 2 instead of ignored."""
    import json

    from kpass.report.cli import main

    a, b = write_runs(tmp_path, 0.0, questions=40)
    plain_a, plain_b = tmp_path / "pa.jsonl", tmp_path / "pb.jsonl"
    for source, target in ((a, plain_a), (b, plain_b)):
        target.write_text("".join(json.dumps({"outcomes": json.loads(line)["outcomes"]}) + "\n"
                                  for line in source.read_text().splitlines()))
    args = ["--k", "1", "--metrics", "pass@k"]
    assert main(["compare", str(plain_a), str(plain_b), *args]) == 0
    plain = capsys.readouterr().out.splitlines()
    assert main(["compare", str(plain_a), str(plain_b), "--sequential", *args]) == 0
    out = capsys.readouterr().out.splitlines()
    assert plain[0] == "A = pa.jsonl, B = pb.jsonl: 40 questions paired by row order"
    assert out[0].startswith(plain[0] + "; anytime-valid 95% confidence sequence")
    row_order = [line for line in plain if line.startswith("note: rows were paired by order")]
    assert len(row_order) == 1 and out[-1] == row_order[0]
    assert main(["compare", str(plain_a), str(plain_b), "--sequential", "--format", "json",
                 *args]) == 0
    assert json.loads(capsys.readouterr().out)[0]["matched_by"] == "row order"
    for extra, named in ((["--primary", "Pass@1"], "--primary"), (["--adjust", "holm"],
                                                                  "--adjust"),
                         (["--adjust", "max-t"], "--adjust")):
        assert main(["compare", str(a), str(b), "--id", "id", "--sequential", *extra,
                     *args]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and len(captured.err.splitlines()) == 1, captured.err
        assert f"{named} cannot be combined with --sequential" in captured.err
