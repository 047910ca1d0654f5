"""The Python API of the package itself: ``explain`` on text or on an exception."""

from __future__ import annotations

import pytest

import autograd_errors


def _caught(code: str) -> BaseException:
    import torch

    namespace = {"torch": torch}
    with pytest.raises(Exception) as caught:  # noqa: PT011 - whichever torch raises
        exec(code, namespace)
    return caught.value


def test_explain_an_exception_object():
    error = _caught("x = torch.ones(2, requires_grad=True)\nx += 1")
    assert [m.entry.id for m in autograd_errors.explain(error).matches] == ["leaf-inplace"]


def test_explain_an_exception_reads_its_traceback_too():
    """anomaly mode's context is in the message; the chained exception in the traceback."""
    error = _caught(
        "try:\n"
        "    x = torch.ones(2, requires_grad=True)\n"
        "    x += 1\n"
        "except RuntimeError as inner:\n"
        "    raise ValueError('the training step failed') from inner\n"
    )
    assert isinstance(error, ValueError)
    assert [m.entry.id for m in autograd_errors.explain(error).matches] == ["leaf-inplace"]


def test_an_unrelated_exception_explains_nothing():
    assert autograd_errors.explain(KeyError("lr")).matches == []
