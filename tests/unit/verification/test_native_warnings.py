"""torch's C++ warnings on file descriptor 2, read as a script writes them, nothing lost."""

from __future__ import annotations

import os

import pytest

from autograd_errors.verification.native_warnings import NativeStderr

# As pasted (stderr of a GPU run, a layout-contract warning whose message holds line breaks),
# from the search corpus's copy of a Real-ESRGAN training log.
LAYOUT = (
    "[W accumulate_grad.h:185] Warning: grad and param do not obey the gradient layout "
    "contract. This is not an error, but may impair performance.\n"
    "grad.sizes() = [1024, 512, 1, 1], strides() = [512, 1, 1, 1]\n"
    "param.sizes() = [1024, 512, 1, 1], strides() = [512, 1, 512, 512] (function operator())\n"
)
# torch 2.13.0's, run here: a rank prefix, and the date and time in the log prefix.
UNUSED = (
    "[rank0]:[W1203 17:44:47.427840532 reducer.cpp:1529] Warning: find_unused_parameters=True "
    "was specified in DDP constructor, but did not find any unused parameters in the forward "
    "pass. (function operator())\n"
)


@pytest.fixture
def native(capfd):
    """A capture to start in the test's body: pytest points descriptor 2 at its own file again
    between a fixture's setup and the test."""
    capture = NativeStderr()
    yield capture
    capture.stop()


def write(text: str) -> None:
    os.write(2, text.encode())


def test_a_warning_is_read_without_its_log_prefix_and_function(native):
    native.start()
    write(UNUSED)
    assert native.messages() == [
        "find_unused_parameters=True was specified in DDP constructor, but did not find any "
        "unused parameters in the forward pass."
    ]
    assert native.messages() == []  # read once


def test_a_message_keeps_its_line_breaks(native):
    native.start()
    write("progress 0/12\r" + LAYOUT)
    (message,) = native.messages()
    assert message.startswith("grad and param do not obey the gradient layout contract.")
    assert message.endswith("strides() = [512, 1, 512, 512]")
    assert message.count("\n") == 2


def test_a_warning_written_in_pieces_is_read_when_complete(native):
    native.start()
    write(UNUSED[:70])
    assert native.messages() == []
    write(UNUSED[70:])
    assert len(native.messages()) == 1


def test_warnings_one_after_another_are_each_read(native):
    native.start()
    write(UNUSED + "[W reducer.cpp:1158] Warning: second (function operator())\n" + LAYOUT)
    assert [message[:6] for message in native.messages()] == ["find_u", "second", "grad a"]


@pytest.mark.parametrize(
    "text",
    [
        "Traceback (most recent call last):\nRuntimeError: boom\n",
        "UserWarning: a Python warning, printed\n",
        "[I socket.cpp:1] Info: a log line (function operator())\n",
        "[W reducer.cpp:1] Warning: a warning cut off before its end",
    ],
)
def test_what_is_no_cpp_warning_gives_none(native, text):
    native.start()
    write(text)
    assert native.messages() == []


def test_an_unended_warning_does_not_swallow_the_next(native):
    native.start()
    write("[W a.cpp:1] Warning: first, cut off\n" + UNUSED)
    (message,) = native.messages()
    assert message.startswith("find_unused_parameters=True")


def test_every_byte_goes_on_to_where_descriptor_2_went(capfd):
    capture = NativeStderr()
    capture.start()
    write("a line of a library\n" + UNUSED[:40])
    capture.messages()
    write(UNUSED[40:])
    assert len(capture.stop()) == 1
    assert capfd.readouterr().err == "a line of a library\n" + UNUSED
    write("after\n")
    assert capfd.readouterr().err == "after\n"  # descriptor 2 is given back


def test_without_a_descriptor_2_nothing_is_read(monkeypatch):
    def no_descriptor(number: int) -> int:
        raise OSError(9, "Bad file descriptor")

    monkeypatch.setattr(os, "dup", no_descriptor)
    capture = NativeStderr()
    capture.start()
    assert capture.messages() == []
    assert capture.stop() == []
