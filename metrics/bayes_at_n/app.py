"""Gradio demo of bayes_at_n: the Space app every kpass module shares (spaces/app.py).

Run from the repository: python metrics/bayes_at_n/app.py
"""

import importlib.util
import sys
from pathlib import Path

import evaluate

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("kpass_space_app", HERE.parents[1] / "spaces" /
                                               "app.py")
space = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = space  # dataclasses look their module up there
_spec.loader.exec_module(space)

module = evaluate.load(str(HERE / "bayes_at_n.py"))
demo = space.build_demo(module=module)

if __name__ == "__main__":
    demo.launch(css=space.space_output.CSS)
