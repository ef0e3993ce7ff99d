"""Gradio demo of bayes_at_n (run: python app.py)."""

from pathlib import Path

import evaluate

from kpass.evaluate_module import build_demo

module = evaluate.load(str(Path(__file__).with_name("bayes_at_n.py")))
demo = build_demo(module)

if __name__ == "__main__":
    demo.launch()
