"""Reading an Inspect AI log: kpass against Inspect's own readers.

Writes a log of M samples x E epochs (default 2000 x 16) with Inspect's own log writer:
a small real run of ``inspect_ai.eval`` (built-in ``mockllm`` model, offline, every
ModelOutput with a ``usage`` so no tokenizer is downloaded) gives the header and a
template sample; the M x E samples are copies of it with their own id, epoch, C/I score
and ``--text`` characters of message text each, written by ``inspect_ai.log.write_eval_log``
(generating 32000 samples through ``eval`` would take many minutes on a shared machine).

Then times, in one process, taking turns within each round (best of ``--repeats``):
``inspect_ai.log.read_eval_log`` (the whole log, messages included),
``inspect_ai.log.read_eval_log_sample_summaries`` (Inspect's reader of the scored
summaries, no messages), and ``kpass.io.harness.inspect_log.load_inspect`` (header + summaries,
mapped and counted); prints kpass's time as a ratio to each. And the peak resident set
of each reader in a fresh process, above what the imports took, against the log's size
uncompressed: kpass's stays bounded by samples x epochs, not by the message text.

Usage: python benchmarks/bench_inspect.py [--quick] [--samples M] [--epochs E] [--text C]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any


def write_log(folder: Path, m: int, epochs: int, text: int, seed: int = 0) -> Path:
    """An .eval log of m samples x epochs written by Inspect's own writer (see the module)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageUser,
        ModelOutput,
        ModelUsage,
        get_model,
    )
    from inspect_ai.scorer import Score, match
    from inspect_ai.solver import generate

    def outputs(input: Any, tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm/model", content="4")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    task = Task(dataset=[Sample(id="s0", input="2+2?", target="4")], solver=generate(),
                scorer=match(), epochs=1)
    (log,) = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=outputs),
                          display="none", log_dir=str(folder / "template"))
    assert log.samples is not None
    template = log.samples[0]
    rng = random.Random(seed)
    rates = [rng.betavariate(0.7, 0.7) for _ in range(m)]
    filler = ("lorem ipsum dolor sit amet " * (text // 27 + 1))[:text]
    samples = []
    for i in range(m):
        for epoch in range(1, epochs + 1):
            right = rng.random() < rates[i]
            messages = [ChatMessageUser(content=f"question {i}: {filler}"),
                        ChatMessageAssistant(content=f"answer {int(right)}: {filler}")]
            samples.append(template.model_copy(update={
                "id": f"s{i}", "epoch": epoch, "input": f"question {i}", "messages": messages,
                "scores": {"match": Score(value="C" if right else "I", answer=str(int(right)))},
                "events": [], "uuid": f"u{i}-{epoch}"}))
    log.eval.config.epochs = epochs
    log.eval.dataset.samples = m
    log.eval.dataset.sample_ids = [f"s{i}" for i in range(m)]
    log.samples = samples
    path = folder / "big.eval"
    write_eval_log(log, str(path))
    return path


def _timed(functions: dict[str, Any], repeats: int) -> dict[str, tuple[float, float]]:
    """Best and median seconds of each function, taking turns within each round."""
    for function in functions.values():
        function()
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: (min(values), statistics.median(values)) for name, values in times.items()}


_MEMORY = """
import sys
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
import inspect_ai.log, inspect_ai.scorer, kpass.io.harness.inspect_log
base = rss()
path, which = sys.argv[1], sys.argv[2]
if which == "read_eval_log":
    inspect_ai.log.read_eval_log(path)
elif which == "summaries":
    inspect_ai.log.read_eval_log_sample_summaries(path)
else:
    kpass.io.harness.inspect_log.load_inspect(path)
print(rss() - base)
"""


def peak_memory(path: Path, which: str) -> int:
    """Peak resident-set growth (bytes) of one reader in a fresh process, imports excluded."""
    out = subprocess.run([sys.executable, "-c", _MEMORY, str(path), which], check=True,
                         capture_output=True, text=True).stdout
    return int(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--text", type=int, default=2000,
                        help="characters of message text per message (default 2000)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="200 samples x 4 epochs")
    args = parser.parse_args()
    if args.quick:
        args.samples, args.epochs, args.repeats = 200, 4, 2
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

    from kpass.io.harness.inspect_log import load_inspect

    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        path = write_log(Path(folder), args.samples, args.epochs, args.text)
        written = time.perf_counter() - start
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
        print(f"log: {args.samples} samples x {args.epochs} epochs, {args.text} characters "
              f"per message; {path.stat().st_size / 1e6:.1f} MB on disk, {unpacked / 1e6:.1f} MB "
              f"uncompressed; written in {written:.1f} s")
        loaded = load_inspect(str(path))
        assert loaded.counts.n_questions == args.samples
        assert int(loaded.counts.n_samples.min()) == args.epochs
        times = _timed({
            "read_eval_log": lambda: read_eval_log(str(path)),
            "summaries": lambda: read_eval_log_sample_summaries(str(path)),
            "kpass": lambda: load_inspect(str(path)),
        }, args.repeats)
        print("\n| reader | best s | median s | kpass / reader (best) |")
        print("|---|---|---|---|")
        for name, (best, median) in times.items():
            print(f"| {name} | {best:.3f} | {median:.3f} | {times['kpass'][0] / best:.2f}x |")
        print("\npeak memory above the imports (fresh process):")
        for which in ("read_eval_log", "summaries", "kpass"):
            print(f"  {which}: {peak_memory(path, which) / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
