"""Gradio demo of max_at_k_bayes (run: python app.py)."""

from pathlib import Path

import evaluate

from kpass.evaluate_module import build_demo

module = evaluate.load(str(Path(__file__).with_name("max_at_k_bayes.py")))
demo = build_demo(module)

if __name__ == "__main__":
    demo.launch()
