"""Each built Space served by its own ``python app.py`` and driven in headless Chromium.

For every module, at 1280x800: the page opens on the tau-bench example and the
table shown matches the kpass core; a bad input shows a located message in view,
next to the button (no traceback); after Compute the whole results table is in
view without scrolling. At 420 px wide the page does not scroll sideways. An
upload recomputes. Screenshots go to ``screenshots/``. About 10 s per Space.

The layout of issue 21, on every tab (Compute, Compare two models, Leaderboard): the
plot's label badge sits above the figure, not on it; every table fits its box at 1280 px
(no column cut); pressing the button says what happened (the message's time changes);
at 420 px the results come into view after the button is pressed.
"""

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
MODULES = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file())

if not Path(CHROMIUM).exists():
    pytest.skip(f"Debian's chromium is not installed at {CHROMIUM} (make browser)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


def load_builder():
    spec = importlib.util.spec_from_file_location("kpass_spaces_build_b", REPO / "spaces" /
                                                  "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


STANDARD_ERRORS = {"pass@k": "pass_at_k", "pass^k": "pass_hat_k", "maj@k": "maj_at_k",
                   "auc@k": "auc_at_k", "mg-pass@k": "mg_pass_at_k"}


def core_reference(label, k):
    """(estimate, mu, sigma, lo, hi) of a row, straight from the kpass core."""
    import kpass
    from kpass.data import tau_bench_outcomes
    from kpass.families import vote

    R = tau_bench_outcomes()
    binary = {"pass@k": "pass_at_k", "pass^k": "pass_hat_k", "g-pass@k": "g_pass_at_k",
              "mg-pass@k": "mg_pass_at_k", "maj@k": "maj_at_k", "auc@k": "auc_at_k",
              "geom@k": "geom_at_k", "max@k": "max_at_k"}
    if label in binary:
        point = getattr(kpass, binary[label])(R, k)
        return (point, *getattr(kpass, binary[label] + "_ci")(R, k))
    if label == "bayes@n":
        mu, sigma, lo, hi = kpass.bayes_ci(R)
        return mu, mu, sigma, lo, hi
    if label == "avg@n":
        return (kpass.avg(R)[0] if isinstance(kpass.avg(R), tuple) else kpass.avg(R),
                *kpass.avg_ci(R))
    if label.startswith("tailpass"):
        import numpy as np
        from scipy.special import ndtri

        profile = kpass.tailpass(R, k, thresholds=[0.5])

        def clipped(mu, sigma):
            z = float(ndtri(0.975))
            return mu, sigma, max(0.0, mu - z * sigma), min(1.0, mu + z * sigma)

        if label == "tailpass_discovery@k":
            return (kpass.pass_at_k(R, k), *clipped(*profile.discovery()))
        if label == "tailpass_stability@k":
            return (kpass.pass_hat_k(R, k), *clipped(*profile.stability()))
        if label == "tailpass@k_t0.5":
            estimate = float(np.mean(kpass.tailpass_empirical(R, k, thresholds=[0.5])))
            return (estimate, *clipped(float(profile.mean[0]), float(profile.std[0])))
    if label == "vote@k":
        answers = [[str(x) for x in row] for row in R]
        golds = ["1"] * len(R)
        return (vote.vote_at_k(answers, golds, k), *vote.vote_at_k_ci(answers, golds, k))
    return None


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("spaces")
    return {p.name: p for p in load_builder().build(out=out)}


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(folder):
    """Start ``python app.py`` in the Space folder; return (process, url) once it answers."""
    port = free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "MPLBACKEND": "Agg"}
    env.pop("KPASS_METRIC", None)
    log = open(folder / "server.log", "w")  # noqa: SIM115 (closed with the process)
    process = subprocess.Popen([sys.executable, "app.py"], cwd=folder, env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError((folder / "server.log").read_text())
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return process, url
        except OSError:
            time.sleep(0.3)
    process.kill()
    raise TimeoutError(f"{folder.name}: app did not answer on {url}")


def wait_for_message(page, text):
    page.wait_for_function(
        "text => (document.querySelector('#kpass-message') || {innerText: ''})"
        ".innerText.includes(text)", arg=text, timeout=60_000)
    page.wait_for_timeout(400)  # the outputs' fade-in, for the screenshots
    return page.inner_text("#kpass-message")


def table(page, selector="#kpass-table"):
    """A results table: (header, rows of cell texts) as rendered (rows are virtualised)."""
    return page.evaluate("""selector => {
        const root = document.querySelector(selector);
        const text = cell => cell.textContent.replace('\u22ee', '').trim();
        const header = Array.from(root.querySelectorAll('thead th')).map(text);
        const rows = Array.from(root.querySelectorAll('.virtual-row'))
            .map(row => Array.from(row.querySelectorAll('[role=gridcell]')).map(text));
        return [header, rows];
    }""", selector)


def assert_in_viewport(page, selector, viewport):
    # The page scrolls its results into view 150 and 450 ms after drawing them (SCROLL_JS),
    # later on a busy machine: wait up to 10 s for them to be in view, then measure.
    try:
        page.wait_for_function(
            "selector => { const b = document.querySelector(selector).getBoundingClientRect();"
            " return b.top >= 0 && b.bottom <= window.innerHeight; }", arg=selector,
            timeout=10_000)
    except sync_api.TimeoutError:
        pass  # measured below, which names the element and its box
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    assert box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= viewport["width"], (selector, box)
    assert box["y"] + box["height"] <= viewport["height"], (selector, box)


def assert_matches_core(page, name):
    header, rows = table(page)
    assert rows, "no results table shown"
    columns = [header.index(c) for c in ("estimate", "mean", "sd", "cred_lo", "cred_hi")]
    checked = 0
    for row in rows:
        label, k = row[header.index("metric")], row[header.index("k")]
        expected = core_reference(label, int(k) if k else None)
        if expected is None:
            continue
        shown = [float(row[i]) for i in columns]
        assert shown == pytest.approx([float(e) for e in expected], abs=6e-5), (label, k)
        assert "questions" not in header  # the same for every row: said by the message
        if label in STANDARD_ERRORS:  # the SE over questions, straight from the core
            import kpass
            from kpass.data import tau_bench_outcomes

            se = kpass.standard_error(getattr(kpass, STANDARD_ERRORS[label]),
                                      tau_bench_outcomes(), int(k))
            assert float(row[header.index("se")]) == pytest.approx(se, abs=6e-5), (label, k)
        checked += 1
    assert checked >= 1, f"no row of {name} has a core reference: {rows[:3]}"


def assert_plot_clear(page, selector):
    """The plot's label badge lies above the figure (it used to cover its top tick)."""
    boxes = page.evaluate("""selector => {
        const root = document.querySelector(selector);
        const box = e => e ? e.getBoundingClientRect().toJSON() : null;
        const badge = root.querySelector('[data-testid=block-label]');
        const figure = Array.from(root.querySelectorAll('img, svg, canvas'))
            .find(e => !(badge && badge.contains(e)));
        return [box(badge), box(figure)];
    }""", selector)
    badge, figure = boxes
    assert figure is not None, f"{selector}: no figure shown"
    if badge is not None:
        assert badge["bottom"] <= figure["top"] + 0.5, (selector, badge, figure)


def assert_fits(page, selector):
    """The table's every column lies inside its box: no horizontal overflow, none cut."""
    widths = page.evaluate("""selector => {
        const root = document.querySelector(selector);
        const right = root.getBoundingClientRect().right;
        const cells = Array.from(root.querySelectorAll('thead th'));
        const inner = Array.from(root.querySelectorAll('table, .table-wrap'));
        return {box: root.clientWidth, right: right,
                cells: cells.map(c => c.getBoundingClientRect().right),
                scroll: inner.map(e => e.scrollWidth - e.clientWidth),
                content: Math.max(0, ...inner.map(e => e.scrollWidth))};
    }""", selector)
    assert widths["cells"], f"{selector}: no table header"
    assert max(widths["cells"]) <= widths["right"] + 0.5, (selector, widths)
    assert max(widths["scroll"]) <= 0 and widths["content"] <= widths["box"], (selector, widths)


# A finished message: the word or an input error, and no progress text. Gradio writes
# "processing | 0.7s" into the component while an event runs (a tab's load event can still
# be running when the test reaches the tab: waiting for any text was a race).
FINISHED = ("([selector, word]) => { const e = document.querySelector(selector); if (!e) "
            "return false; const t = e.innerText; return !t.includes('processing') && "
            "(t.includes(word) || t.includes('Input error')); }")


def press_and_wait(page, button, message, word):
    """Press ``button`` once no event is running; return its message, finished."""
    page.wait_for_function(FINISHED, arg=[message, word], timeout=60_000)
    before = page.inner_text(message)
    page.wait_for_timeout(1100)  # the message's clock has seconds
    page.click(button)
    page.wait_for_function(
        "([selector, before, word]) => { const e = document.querySelector(selector);"
        " return e && e.innerText !== before && !e.innerText.includes('processing')"
        " && (e.innerText.includes(word) || e.innerText.includes('Input error')); }",
        arg=[message, before, word], timeout=60_000)
    page.wait_for_timeout(600)  # the outputs' fade-in and the scroll
    page.wait_for_function(FINISHED, arg=[message, word], timeout=60_000)
    return page.inner_text(message)


def no_sideways_scroll(page):
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("name", MODULES)
def test_space_in_browser(built, browser, name):
    process, url = serve(built[name])
    try:
        page = browser.new_page(viewport=DESKTOP)
        page.goto(url)
        message = wait_for_message(page, "Computed")
        assert "50 question(s)" in message
        assert_matches_core(page, name)
        assert page.locator("#kpass-plot img, #kpass-plot svg, #kpass-plot canvas").count() > 0
        assert page.locator("#kpass-formulas .katex").count() > 0, "formulas not rendered"
        assert_plot_clear(page, "#kpass-plot")
        assert_fits(page, "#kpass-table")
        SCREENSHOTS.mkdir(exist_ok=True)

        example = page.input_value("#kpass-input textarea")
        bad = "0 1 x 1\n1 0 0 1" if "| 1" not in example else "a b | a\nb b"
        page.fill("#kpass-input textarea", bad)
        page.click("#kpass-run")
        message = wait_for_message(page, "Input error")
        assert "Traceback" not in message and page.get_by_text("Traceback").count() == 0
        assert "line" in message, message
        assert_in_viewport(page, "#kpass-message", DESKTOP)
        page.screenshot(path=str(SCREENSHOTS / f"{name}_error.png"))

        page.fill("#kpass-input textarea", example)
        page.click("#kpass-run")
        wait_for_message(page, "Computed")
        assert_in_viewport(page, "#kpass-table", DESKTOP)
        assert page.evaluate("() => window.scrollY") == 0
        assert_matches_core(page, name)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))

        page.set_viewport_size({"width": 420, "height": 800})
        page.wait_for_timeout(300)
        assert no_sideways_scroll(page), page.evaluate(
            "() => [document.documentElement.scrollWidth, window.innerWidth]")
        page.screenshot(path=str(SCREENSHOTS / f"{name}_420.png"), full_page=True)
        page.close()
    finally:
        stop(process)


def test_upload_recomputes(built, browser, tmp_path):
    import kpass

    process, url = serve(built["pass_at_k_bayes"])
    try:
        page = browser.new_page(viewport=DESKTOP)
        page.goto(url)
        wait_for_message(page, "Computed")
        upload = tmp_path / "long.csv"
        R = [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1]]
        lines = [f"q{q},{row[j]}" for j in range(4) for q, row in enumerate(R)]
        upload.write_text("id,correct\n" + "\n".join(lines) + "\n")
        page.set_input_files("#kpass-upload input[type=file]", str(upload))
        message = wait_for_message(page, "from the file long.csv")
        assert "over 3 question(s)" in message
        header, rows = table(page)
        got = {(r[0], r[1]): float(r[header.index("estimate")]) for r in rows}
        for k in (1, 2, 3, 4):
            assert got[("pass@k", str(k))] == pytest.approx(kpass.pass_at_k(R, k), abs=6e-5)
            assert got[("pass^k", str(k))] == pytest.approx(kpass.pass_hat_k(R, k), abs=6e-5)
        assert_in_viewport(page, "#kpass-table", DESKTOP)
        page.screenshot(path=str(SCREENSHOTS / "upload.png"))
        page.close()
    finally:
        stop(process)


def test_compare_tab_values_equal_the_core(built, browser):
    import kpass
    from kpass.data import tau_bench_outcomes

    process, url = serve(built["pass_at_k_bayes"])
    try:
        page = browser.new_page(viewport=DESKTOP)
        page.goto(url)
        wait_for_message(page, "Computed")
        page.get_by_role("tab", name="Compare two models").click()
        # the tab's own load event first: it must not finish after the press and win
        page.wait_for_function(FINISHED, arg=["#kpass-compare-message", "Compared"],
                               timeout=60_000)
        page.fill("#kpass-compare-k textarea, #kpass-compare-k input", "1, 2, 3")
        rows = [list(row) for row in tau_bench_outcomes()]
        A = [row[:2] + row[:1] for row in rows]  # three trials each: k = 3 is valid
        B = [row[2:] + row[3:] for row in rows]
        page.fill("#kpass-compare-a textarea", "\n".join(" ".join(map(str, r)) for r in A))
        page.fill("#kpass-compare-b textarea", "\n".join(" ".join(map(str, r)) for r in B))
        page.click("#kpass-compare-run")
        page.wait_for_function(
            "() => document.querySelector('#kpass-compare-message').innerText"
            ".includes(': 6 value(s)')", timeout=60_000)
        page.wait_for_timeout(400)
        header, shown = table(page, "#kpass-compare-table")
        assert len(shown) == 6
        functions = {"pass@k": kpass.pass_at_k, "pass^k": kpass.pass_hat_k}
        for row in shown:
            label, k = row[header.index("metric")], int(row[header.index("k")])
            c = kpass.compare(functions[label], A, B, k)
            values = [float(row[header.index(name)]) for name in
                      ("A", "B", "A - B", "se", "lo", "hi", "p-value", "P(A better)")]
            assert values == pytest.approx([c.a, c.b, c.difference, c.se, c.lo, c.hi,
                                            c.p_value, c.prob_a_better], abs=6e-5), (label, k)
        assert page.locator("#kpass-compare-plot img, #kpass-compare-plot svg").count() > 0
        assert_in_viewport(page, "#kpass-compare-table", DESKTOP)
        page.screenshot(path=str(SCREENSHOTS / "compare.png"))
        # a margin: the verdict and p margin columns, the claim in the note (issue 40, item 4)
        page.fill("#kpass-compare-margin textarea, #kpass-compare-margin input", "0.1")
        page.click("#kpass-compare-run")
        page.wait_for_function(
            "() => document.querySelector('#kpass-compare-message').innerText"
            ".includes('Margin 0.1 (B the new model)')", timeout=60_000)
        page.wait_for_timeout(400)
        header, shown = table(page, "#kpass-compare-table")
        assert {"verdict", "p margin"} <= set(header) and "p-value" not in header
        for row in shown:
            label, k = row[header.index("metric")], int(row[header.index("k")])
            c = kpass.compare(functions[label], A, B, k, margin=0.1)
            assert float(row[header.index("p margin")]) == pytest.approx(c.p_margin, abs=6e-5)
            assert row[header.index("verdict")] == ("shown" if c.p_margin < 0.05
                                                    else "not shown")
        page.screenshot(path=str(SCREENSHOTS / "compare_margin.png"))
        page.set_viewport_size({"width": 420, "height": 800})
        page.wait_for_timeout(300)
        assert no_sideways_scroll(page)
        page.close()
    finally:
        stop(process)


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


TABS = (("Compute", "#kpass-run", "#kpass-message", "#kpass-table", "#kpass-plot", "Computed"),
        ("Compare two models", "#kpass-compare-run", "#kpass-compare-message",
         "#kpass-compare-table", "#kpass-compare-plot", "Compared"),
        ("Leaderboard", "#kpass-board-run", "#kpass-board-message", "#kpass-board-table",
         "#kpass-board-plot", "Ranked"),
        ("Plan", "#kpass-plan-run", "#kpass-plan-message", "#kpass-plan-table",
         "#kpass-plan-plot", "Planned"))


def test_layout_of_every_tab_at_1280_and_420(built, browser):
    """Issue 21's layout, measured on each tab: badge off the figure, tables inside their
    box, a message that changes when the button is pressed, results in view on a phone."""
    import re

    process, url = serve(built["pass_at_k_bayes"])
    try:
        page = browser.new_page(viewport=DESKTOP)
        page.goto(url)
        wait_for_message(page, "Computed")
        SCREENSHOTS.mkdir(exist_ok=True)
        for tab, button, message, table_id, plot, word in TABS:
            page.get_by_role("tab", name=tab).click()
            page.wait_for_function(
                "selector => document.querySelector(selector).innerText.length > 0",
                arg=message, timeout=60_000)
            text = press_and_wait(page, button, message, word)
            assert re.match(word + r" at \d\d:\d\d:\d\d UTC: ", text), text
            page.mouse.move(0, 0)
            assert_plot_clear(page, plot)
            assert_fits(page, table_id)
            slug = tab.split()[0].lower()
            page.screenshot(path=str(SCREENSHOTS / f"tab_{slug}_1280.png"), full_page=True)
        page.close()
        phone = {"width": 420, "height": 800}
        page = browser.new_page(viewport=phone)
        page.goto(url)
        wait_for_message(page, "Computed")
        for tab, button, message, table_id, plot, word in TABS:
            page.get_by_role("tab", name=tab).click()
            page.wait_for_function(
                "selector => document.querySelector(selector).innerText.length > 0",
                arg=message, timeout=60_000)
            page.locator(button).scroll_into_view_if_needed()
            text = press_and_wait(page, button, message, word)
            assert text.startswith(word), text
            assert_in_viewport(page, table_id, phone)  # the results came into view
            assert no_sideways_scroll(page)
            assert_plot_clear(page, plot)
            slug = tab.split()[0].lower()
            page.screenshot(path=str(SCREENSHOTS / f"tab_{slug}_420.png"))  # as seen
            page.screenshot(path=str(SCREENSHOTS / f"tab_{slug}_420_page.png"), full_page=True)
        page.close()
    finally:
        stop(process)


def tab_boxes():
    """How many model boxes the Leaderboard tab shows when it opens (its module, loaded as the
    page loads it: a module of app.py)."""
    name = "kpass_spaces_app_b"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "spaces" / "app.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return importlib.import_module(f"{name}.leaderboard_tab").OPEN_BOXES


def test_leaderboard_tab_values_equal_the_core_and_errors_are_located(built, browser):
    import kpass

    process, url = serve(built["pass_at_k_bayes"])
    try:
        page = browser.new_page(viewport=DESKTOP)
        page.goto(url)
        wait_for_message(page, "Computed")
        page.get_by_role("tab", name="Leaderboard").click()
        page.wait_for_function(
            "() => document.querySelector('#kpass-board-message').innerText.includes('Ranked')",
            timeout=60_000)
        page.wait_for_timeout(400)
        boxes = []
        for index in range(1, 6):
            name = page.input_value(f"#kpass-board-name-{index} input, "
                                    f"#kpass-board-name-{index} textarea")
            text = page.input_value(f"#kpass-board-text-{index} textarea")
            boxes.append((name, [[int(x) for x in line.split()] for line in text.splitlines()]))
        board = kpass.leaderboard(kpass.pass_at_k, dict(boxes), 1)
        header, rows = table(page, "#kpass-board-table")
        assert [r[header.index("model")] for r in rows] == [row.name for row in board.rows]
        for shown, row in zip(rows, board.rows, strict=True):
            assert float(shown[header.index("estimate")]) == pytest.approx(row.estimate, abs=6e-5)
            assert float(shown[header.index("se")]) == pytest.approx(row.se, abs=6e-5)
            assert float(shown[header.index("P(best)")]) == pytest.approx(row.prob_best,
                                                                         abs=6e-5)
            expected = (str(row.rank_lo) if row.rank_lo == row.rank_hi
                        else f"{row.rank_lo}-{row.rank_hi}")
            assert shown[header.index("rank set")] == expected
        assert not page.locator(f"#kpass-board-text-{tab_boxes() + 1}").is_visible()
        page.click("#kpass-board-add")  # one more model box
        page.locator(f"#kpass-board-text-{tab_boxes() + 1} textarea").wait_for(timeout=10_000)
        lines = page.input_value("#kpass-board-text-2 textarea").splitlines()
        page.fill("#kpass-board-text-2 textarea", "\n".join([lines[0], "0 1 x 0", *lines[2:]]))
        text = press_and_wait(page, "#kpass-board-run", "#kpass-board-message", "Ranked")
        assert text.startswith("Input error: box 2 (model 'sft'), line 2, column 5: "), text
        assert "Traceback" not in text
        assert_in_viewport(page, "#kpass-board-message", DESKTOP)
        page.screenshot(path=str(SCREENSHOTS / "tab_leaderboard_error.png"))
        page.close()
    finally:
        stop(process)


def test_leaderboard_tab_ranks_uploaded_logs_at_1280_and_420(built, browser, tmp_path):
    """Issue 39: three Inspect logs (one task, three mock models) uploaded to the
    Leaderboard tab replace the example and rank, named by their models, the message
    saying so in one line; the table fits at 1280 px, and at 420 px the ranking comes into
    view and the page does not scroll sideways; a table of three models uploaded with
    "model" in the box split by column ranks them. Screenshots:
    ``board_uploads_1280.png``, ``board_uploads_420.png``, ``board_split_1280.png``."""
    pytest.importorskip("inspect_ai")
    logs = [str(p) for p in sorted((REPO / "tests" / "fixtures" / "inspect" / "eval-set-2x3")
                                   .glob("*_kp-easy_*.eval"))]
    process, url = serve(built["pass_at_k_bayes"])
    try:
        SCREENSHOTS.mkdir(exist_ok=True)
        for viewport, shot in ((DESKTOP, "board_uploads_1280.png"),
                               ({"width": 420, "height": 800}, "board_uploads_420.png")):
            page = browser.new_page(viewport=viewport)
            page.goto(url)
            wait_for_message(page, "Computed")
            page.get_by_role("tab", name="Leaderboard").click()
            page.wait_for_function(FINISHED, arg=["#kpass-board-message", "Ranked"],
                                   timeout=60_000)
            page.set_input_files("#kpass-board-upload input[type=file]", logs)
            page.wait_for_function(
                "() => document.querySelector('#kpass-board-message').innerText"
                ".includes('uploaded files replace')", timeout=60_000)
            page.wait_for_timeout(800)
            text = page.inner_text("#kpass-board-message")
            assert text.startswith("Ranked at ") and "3 models on 5 question(s)" in text, text
            header, rows = table(page, "#kpass-board-table")
            # model-c solves 9 of 15, model-b 8, model-a 5 (the fixture's README)
            assert [r[header.index("model")] for r in rows] == [
                "mockllm/model-c", "mockllm/model-b", "mockllm/model-a"]
            page.mouse.move(0, 0)
            assert_plot_clear(page, "#kpass-board-plot")
            if viewport is DESKTOP:
                assert_fits(page, "#kpass-board-table")
            else:  # on a phone the upload brings the ranking into view, as the button does
                assert_in_viewport(page, "#kpass-board-table", viewport)
                assert no_sideways_scroll(page)
            page.screenshot(path=str(SCREENSHOTS / shot))
            page.screenshot(path=str(SCREENSHOTS / shot.replace(".png", "_page.png")),
                            full_page=True)
            if viewport is DESKTOP:  # a table of three models, split by its `model` column
                runs = tmp_path / "runs.csv"
                runs.write_text("model,id,correct\n" + "".join(
                    f"{model},q{q},{int((q * 7 + s) % 10 < cut)}\n"
                    for model, cut in (("small", 3), ("medium", 5), ("large", 8))
                    for q in range(30) for s in range(4)))
                page.click("#kpass-board-upload button[aria-label='Clear']")  # the logs
                page.wait_for_function(
                    "() => document.querySelector('#kpass-board-message').innerText"
                    ".includes('5 models on 150')", timeout=60_000)  # the example again
                page.fill("#kpass-board-by input, #kpass-board-by textarea", "model")
                page.set_input_files("#kpass-board-upload input[type=file]", str(runs))
                page.wait_for_function(
                    "() => document.querySelector('#kpass-board-message').innerText"
                    ".includes('3 models on 30')", timeout=60_000)
                page.wait_for_timeout(800)
                header, rows = table(page, "#kpass-board-table")
                assert [r[header.index("model")] for r in rows] == ["large", "medium", "small"]
                page.mouse.move(0, 0)
                page.screenshot(path=str(SCREENSHOTS / "board_split_1280.png"))
            page.close()
    finally:
        stop(process)
