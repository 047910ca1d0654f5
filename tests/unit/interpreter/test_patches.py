"""The one way the package changes the running interpreter: everything changed is given back,
and only what is still ours."""

from __future__ import annotations

import io
import os
import sys
import types
import warnings

import pytest

from autograd_errors import hooks
from autograd_errors.interpreter.patches import Patches
from autograd_errors.verification.observer import Observer


def interpreter_state() -> dict[str, object]:
    """What the hooks, the observer and the program runner change."""
    import threading

    return {
        "excepthook": sys.excepthook,
        "threading.excepthook": threading.excepthook,
        "showwarning": warnings.showwarning,
        "_showwarnmsg": warnings._showwarnmsg,  # type: ignore[attr-defined]
        "trace": sys.gettrace(),
        "argv": sys.argv,
        "path": list(sys.path),
        "meta_path": list(sys.meta_path),
        "__main__": sys.modules["__main__"],
        "stdout": sys.stdout,
        "stderr": sys.stderr,
    }


def test_restoring_gives_back_everything_that_was_changed(tmp_path):
    before = interpreter_state()
    descriptor = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)
    try:
        with Patches() as patches:
            patches.set(sys, "excepthook", lambda *args: None)
            patches.set(warnings, "showwarning", lambda *args: None)
            patches.trace(lambda frame, event, arg: None)
            patches.set(sys, "argv", ["program.py", "--flag"])
            patches.insert(sys.path, 0, str(tmp_path))
            patches.insert(sys.meta_path, 0, object())
            patches.set_item(sys.modules, "__main__", types.ModuleType("__main__"))
            patches.set(sys, "stdout", io.StringIO())
            patches.descriptor(descriptor, os.devnull)
            os.write(descriptor, b"swallowed")
            assert interpreter_state() != before
        assert interpreter_state() == before
        os.write(descriptor, b"kept")
    finally:
        os.close(descriptor)
    assert (tmp_path / "out").read_bytes() == b"kept"


def test_a_value_replaced_since_is_left_to_its_new_owner():
    holder = types.SimpleNamespace(hook="original")
    patches = Patches()
    assert patches.set(holder, "hook", "ours") == "original"
    holder.hook = "theirs"  # another library chained its hook over ours
    patches.restore()
    assert holder.hook == "theirs"


def test_an_attribute_that_was_not_there_is_removed_again():
    holder = types.SimpleNamespace()
    with Patches() as patches:
        assert patches.set(holder, "hook", "ours") is None
        assert patches.has_set(holder, "hook")
    assert not hasattr(holder, "hook")
    assert not patches.has_set(holder, "hook")


def test_an_inserted_item_is_removed_by_identity_wherever_it_went():
    theirs = "".join(["/home/", "me"])
    items = [theirs, "/usr/lib"]
    ours = "".join(["/home/", "me"])  # equal to theirs, another object
    with Patches() as patches:
        patches.insert(items, 0, ours)
        items.append(items.pop(0))  # moved to the end by someone else
    assert items == ["/home/me", "/usr/lib"]
    assert items[0] is theirs


def test_a_replaced_item_is_given_back_where_it_went_and_only_if_still_ours():
    """``sys.path[0]`` as ``run`` sets it for the program (issue 22, R6)."""
    launcher = "".join(["/work/", "here"])
    items = [launcher, "/usr/lib"]
    with Patches() as patches:
        patches.replace(items, 0, "/proj")
        assert items == ["/proj", "/usr/lib"]
        items.insert(0, "/added/by/the/program")
    assert items == ["/added/by/the/program", "/work/here", "/usr/lib"]
    assert items[1] is launcher
    items = ["/work/here"]
    with Patches() as patches:
        patches.replace(items, 0, "/proj")
        items[0] = "/theirs"  # the program replaced it in turn: its own now
    assert items == ["/theirs"]


def test_restoring_twice_undoes_once():
    holder = types.SimpleNamespace(hook="original")
    patches = Patches()
    patches.set(holder, "hook", "ours")
    patches.restore()
    holder.hook = "later"
    patches.restore()
    assert holder.hook == "later"


def test_the_observer_gives_back_the_trace_and_the_warnings_machinery(tmp_path):
    before = interpreter_state()
    observer = Observer(str(tmp_path / "script.py"))
    observer.start()
    assert interpreter_state() != before
    observer.stop()
    assert interpreter_state() == before


@pytest.fixture
def no_hooks():
    yield
    hooks.uninstall()


def test_uninstall_gives_back_the_hooks_install_replaced(no_hooks):
    before = interpreter_state()
    hooks.install(warnings=True)
    hooks.install(warnings=True)
    assert interpreter_state() != before
    hooks.uninstall()
    assert interpreter_state() == before


def test_uninstall_leaves_a_hook_chained_after_ours_and_ours_only_passes_errors_on(
    no_hooks, capsys
):
    original = sys.excepthook
    error = RuntimeError(
        "a leaf Variable that requires grad is being used in an in-place operation."
    )
    seen = []
    hooks.install()
    ours = sys.excepthook

    def theirs(kind, error, traceback):
        seen.append("theirs")
        ours(kind, error, traceback)

    sys.excepthook = theirs
    try:
        sys.excepthook(RuntimeError, error, None)
        assert "(leaf-inplace)" in capsys.readouterr().err  # installed: the answer follows
        hooks.uninstall()
        assert sys.excepthook is theirs
        sys.excepthook(RuntimeError, error, None)
        printed = capsys.readouterr().err
        assert "a leaf Variable" in printed  # the traceback, passed on
        assert "autograd-errors:" not in printed
        assert seen == ["theirs", "theirs"]
    finally:
        sys.excepthook = original
