"""How the Space runs a computation and tells a failure: a child process, one readable line.

Shipped beside ``app.py`` and loaded by it as one of its modules; its ``within_deadline``
(the page's lock and deadline) calls :func:`run_in_child`.
"""

from __future__ import annotations

import multiprocessing
import re
from typing import Any


class ComputationError(ValueError):
    """A computation failed in a way that is not the module's ValueError/TypeError.

    Its message is one readable line (:func:`failure_message`), never a class repr or a
    traceback; it is a ValueError so that every page shows it as an input error.
    """


# An exception text that is a repr, not a sentence: ``[<class 'decimal.InvalidOperation'>]``.
_REPR = re.compile(r"<class '|<[\w.]+ object at 0x|<built-in |^\[?<")


def one_line(text: str) -> str:
    """``text`` on one line: runs of whitespace (line breaks too) become one space."""
    return " ".join(text.split())


def failure_message(error: BaseException) -> str:
    """One readable line for an exception that is not a ValueError/TypeError of the module.

    Args:
        error: what a computation (or the page's own parsing) raised.

    Returns:
        What went wrong in words, with the exception's own text only where it reads
        as a sentence (``str(decimal.InvalidOperation())`` is a class repr: left out).
    """
    if isinstance(error, ArithmeticError):
        what = ("a number in the input cannot be computed with (too large, too small or not "
                "a number); check the values")
    elif isinstance(error, RecursionError):
        what = "the input is nested too deeply; give one flat list of outcomes per question"
    elif isinstance(error, MemoryError):
        what = "the input needs more memory than this page has; use kpass locally"
    elif isinstance(error, (TimeoutError, ComputationError)):
        return one_line(str(error))
    else:
        what = f"unexpected {type(error).__name__}; please report it with the input"
    detail = one_line(str(error)).strip("'\"")
    if detail and not _REPR.search(detail) and len(detail) <= 300 and detail != what:
        what += f" ({detail})"
    return f"the computation failed: {what}"


def unquoted(text: str) -> str:
    """``text`` without the quotes a KeyError puts around its message (only a matching pair
    around the whole text: a message ending in ``got '1.5'`` keeps its closing quote)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def readable(error: BaseException) -> str:
    """The exception's own text when it is a readable sentence, else :func:`failure_message`."""
    text = one_line(str(error))
    return text if text and not _REPR.search(text) else failure_message(error)


def _in_child(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any], send: Any) -> None:
    try:
        send.send(("ok", function(*args, **kwargs)))
    except TypeError as error:  # the module's own messages; anything else is told in words
        send.send(("TypeError", readable(error)))
    except ValueError as error:
        send.send(("ValueError", readable(error)))
    except BaseException as error:  # noqa: BLE001 (reported to the parent, which raises it)
        send.send(("failed", failure_message(error)))
    finally:
        send.close()


def run_in_child(function: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                 seconds: float) -> Any:
    """``function(*args, **kwargs)`` in a forked child that is killed after ``seconds``.

    Without fork (Windows) it runs here, with no deadline.

    Raises:
        ValueError / TypeError: the function's own message for bad input.
        TimeoutError: it needs more than ``seconds``.
        ComputationError: any other failure (an ArithmeticError, a crash of the child,
            a bug), as one readable line.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        try:  # no fork (Windows): no deadline
            return function(*args, **kwargs)
        except (ValueError, TypeError):
            raise
        except Exception as error:
            raise ComputationError(failure_message(error)) from None
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_in_child, args=(function, args, kwargs, send),
                            daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(seconds):
            raise TimeoutError(f"this computation takes more than {seconds:g} s, the "
                               "page's limit: use fewer or smaller k, or run kpass locally")
        kind, payload = receive.recv()
    except EOFError:
        child.join(1)
        raise ComputationError(f"the computation failed: it stopped without an answer "
                                f"(exit code {child.exitcode}); please report it with the "
                                "input") from None
    finally:
        child.kill()
        child.join()
        receive.close()
    if kind == "ok":
        return payload
    if kind == "TypeError":
        raise TypeError(payload)
    if kind == "ValueError":
        raise ValueError(payload)
    raise ComputationError(payload)
