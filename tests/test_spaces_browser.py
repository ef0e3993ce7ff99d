"""Each built Space served by its own ``python app.py`` and driven in headless Chromium.

For every module: the page opens on the tau-bench example, the table shown
matches the kpass core, a bad input shows a readable message (no traceback),
and a screenshot goes to ``screenshots/<name>.png``. About 5 s per Space.
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

REPO = Path(__file__).resolve().parent.parent
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


def core_reference(label, k):
    """(estimate, mu, sigma, lo, hi) of a row, straight from the kpass core."""
    import kpass
    from kpass import vote
    from kpass.data import tau_bench_outcomes

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
        ".innerText.includes(text)", arg=text, timeout=30_000)
    return page.inner_text("#kpass-message")


def table_rows(page):
    return page.evaluate("""() => Array.from(
        document.querySelectorAll('#kpass-table [role=row][aria-rowindex]'))
        .filter(tr => Number(tr.getAttribute('aria-rowindex')) > 1)
        .map(row => Array.from(row.querySelectorAll('[role=gridcell]'))
                         .map(cell => cell.innerText.trim()))""")


@pytest.mark.parametrize("name", MODULES)
def test_space_in_browser(built, browser, name):
    process, url = serve(built[name])
    try:
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        page.goto(url)
        message = wait_for_message(page, "Computed")
        assert "50 question(s)" in message
        rows = [row for row in table_rows(page) if len(row) >= 7]
        assert rows, "no results table shown"
        checked = 0
        for label, k, *values in rows:
            expected = core_reference(label, int(k) if k else None)
            if expected is None:
                continue
            shown = [float(v) for v in values[:5]]
            assert shown == pytest.approx([float(e) for e in expected], abs=6e-5), (label, k)
            checked += 1
        assert checked >= 1, f"no row of {name} has a core reference: {rows[:3]}"
        assert page.locator("#kpass-plot img, #kpass-plot svg, #kpass-plot canvas").count() > 0
        screenshots = REPO / "screenshots"
        screenshots.mkdir(exist_ok=True)
        page.screenshot(path=str(screenshots / f"{name}.png"), full_page=True)

        page.fill("#kpass-input textarea", "0 1 x 1\n1 0 0 1")
        page.click("#kpass-run")
        message = wait_for_message(page, "Input error")
        assert "Traceback" not in message
        assert ("predictions" in message) or ("references" in message)
        assert page.get_by_text("Traceback").count() == 0
        page.close()
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
