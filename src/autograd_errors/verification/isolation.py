"""Each gallery script in a process of its own: whatever a script does (hang, end its process,
fork, change the interpreter's state, ignore Ctrl-C, write to the terminal) stays there.

``check``, ``record`` and the site build run the scripts through an :class:`Isolation`. It
starts a server, a fresh interpreter that imports torch once and nothing else a script would
leave behind, in a session of its own. For each script the server forks a child (where there is
no ``fork``, it starts a fresh interpreter), which runs the script as
:func:`.observer.run_script` does, in a process group of its own, standard input from
``/dev/null`` and its standard output and error in a file, and hands back its
:class:`~.observer.Observation`. The server waits for it at most ``timeout`` seconds. A child
that hands back nothing gets a verdict of its own (:mod:`.verdicts`): ``TIMEOUT`` (stopped once
its time was up, with where it was), ``EXITED`` (its process ended before the script did:
``os._exit()``, a C library's ``exit()``) or ``CRASHED`` (killed by a signal: a segmentation
fault, an abort, the kernel's out-of-memory killer).

When a script's child ends, its process group is killed, and on Linux every process it left
(the server is their subreaper) with it: nothing a script started outlives its verdict. Ctrl-C
reaches the caller only (the server and the children have sessions and groups of their own):
the caller stops the server, which stops the running script, and ``KeyboardInterrupt`` goes
on. The server and the children die with the process that started them (Linux's parent-death
signal), should it be killed outright.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from autograd_errors.verification.observer import Observation
from autograd_errors.verification.verdicts import Status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, BinaryIO

    #: Told a script's path and how long it has run, once it runs longer than ``SLOW_AFTER``.
    SlowNotice = Callable[[str, float], None]

#: The seconds a script may run before it is stopped and failed as ``TIMEOUT``. Each script
#: takes under 10 s on its own here, torch's import included (2026-12-02); a site build on a
#: loaded 2-core machine or an old CUDA build of torch takes several times that: the default
#: leaves room.
DEFAULT_TIMEOUT = 300.0
#: The seconds after which a script still running is named (``notice``): a caller that gives
#: up before the timeout (a CI step's limit, a user's patience) has been told which script
#: holds the run, instead of nothing (the fault report's F05). Past the slowest script's time;
#: with a timeout shorter than twice this, half the timeout.
SLOW_AFTER = 60.0
#: What the server may take beyond a script's timeout to answer (stopping the script, reading
#: its output) before the caller gives up on it.
_GRACE = 30.0
#: How long a script stopped for its time has to write where it was (faulthandler's dump).
_DUMP_WAIT = 1.0
#: The exit status of a child whose own code (not the script) failed.
_CHILD_FAILED = 125
#: The lines of a stopped script's output shown in its verdict.
_TAIL_LINES = 25
#: The package's parent directory: a fresh interpreter must import this very package.
_PACKAGE_PARENT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
)
#: What ``python -c`` runs in the server and in a fresh child: this package, imported from
#: where the caller's came from, then ``sys.path`` as a script would see it.
_BOOT = (
    "import sys; p = sys.argv[1]; added = p not in sys.path; added and sys.path.insert(0, p); "
    "import autograd_errors.verification.isolation as isolation; "
    "added and sys.path.remove(p); isolation.{}()"
)


class Stopped:
    """A script whose process handed back nothing: why, as a verdict's status and detail."""

    __slots__ = ("detail", "status")

    def __init__(self, status: Status, detail: str) -> None:
        self.status = status
        self.detail = detail

    def __repr__(self) -> str:
        return f"Stopped({self.status}, {self.detail!r})"


class ServerLost(Exception):
    """The server ended, or stopped answering; the message says how."""


class Isolation:
    """The scripts of one run, each in a process of its own (see the module's docstring).
    A context manager: leaving it stops the server. With ``fresh``, each script gets a fresh
    interpreter instead of a fork of the server (what platforms without ``fork`` get)."""

    def __init__(
        self,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        fresh: bool = False,
        notice: SlowNotice | None = None,
    ) -> None:
        self.timeout = timeout
        self.notice = notice
        self.slow_after = min(SLOW_AFTER, timeout / 2)
        self.fresh = fresh or not hasattr(os, "fork")
        self._server: subprocess.Popen[bytes] | None = None
        self._answers: queue.Queue[bytes] = queue.Queue()
        self._scratch: str | None = None
        self._running: int | None = None  # the process group of the script running now

    def __enter__(self) -> Isolation:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def observe(self, path: str) -> Observation | Stopped:
        """Run the script at ``path`` in a process of its own: what it did, or why its
        process handed back nothing. ``KeyboardInterrupt`` stops the script, then goes on."""
        try:
            if self._server is None:
                self._start()
            self._send({"path": os.path.abspath(path), "timeout": self.timeout})
            deadline = time.monotonic() + self.timeout + _GRACE
            started = self._receive(deadline)
            self._running = started.get("started")
            answer = self._receive(deadline, slow=self._slow_notice(path))
            self._running = None
        except ServerLost as lost:
            self._stop()
            return Stopped(Status.CRASHED, f"the process that runs the scripts was lost: {lost}")
        except BaseException:
            self._stop()
            raise
        if "observation" in answer:
            return Observation.from_dict(answer["observation"])
        return Stopped(Status(answer["status"]), answer["detail"])

    def close(self) -> None:
        """Stop the server (and the script it runs, if any); remove the scratch files."""
        self._stop()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def _start(self) -> None:
        if self._scratch is None:
            self._scratch = tempfile.mkdtemp(prefix="autograd-errors-check-")
        arguments = [str(os.getpid()), self._scratch, "fresh" if self.fresh else "fork"]
        with open(os.path.join(self._scratch, "server.err"), "wb") as errors:
            self._server = subprocess.Popen(
                [sys.executable, "-c", _BOOT.format("serve"), _PACKAGE_PARENT, *arguments],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                start_new_session=hasattr(os, "setsid"),
            )
        self._answers = queue.Queue()
        server = self._server
        answers = self._answers

        def read_answers() -> None:
            assert server.stdout is not None
            for line in server.stdout:
                answers.put(line)
            answers.put(b"")  # the server ended

        threading.Thread(target=read_answers, daemon=True).start()
        ready = self._receive(time.monotonic() + 120 + _GRACE)  # importing torch, loaded
        if "ready" not in ready:
            raise ServerLost(ready.get("error", "it did not start"))

    def _send(self, request: dict[str, Any]) -> None:
        assert self._server is not None
        assert self._server.stdin is not None
        try:
            self._server.stdin.write(json.dumps(request).encode() + b"\n")
            self._server.stdin.flush()
        except OSError as error:
            raise ServerLost(f"it stopped reading ({error})") from None

    def _slow_notice(self, path: str) -> Callable[[], None] | None:
        """What tells ``notice`` that the script at ``path`` is slow; None without one, or
        when the script is stopped before it would be slow."""
        notice, after = self.notice, self.slow_after
        if notice is None:
            return None
        return lambda: notice(path, after)

    def _receive(
        self, deadline: float, *, slow: Callable[[], None] | None = None
    ) -> dict[str, Any]:
        """The server's next answer, waited for until ``deadline``; ``slow`` is called once
        when none came within ``slow_after`` seconds."""
        try:
            if slow is not None and deadline - time.monotonic() > self.slow_after:
                try:
                    line = self._answers.get(timeout=self.slow_after)
                except queue.Empty:
                    slow()
                    line = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
            else:
                line = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise ServerLost("it stopped answering") from None
        if not line:
            raise ServerLost(f"it ended{self._server_errors()}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _server_errors(self) -> str:
        if self._scratch is None:
            return ""
        tail = _tail(os.path.join(self._scratch, "server.err"))
        return f":\n{tail}" if tail else ""

    def _stop(self) -> None:
        """Stop the server: asked first (it stops its script and what that started), then
        killed; and the running script's group, should the server not have."""
        server, self._server = self._server, None
        if server is None:
            return
        with contextlib.suppress(OSError):
            if server.stdin is not None:
                server.stdin.close()
        if server.poll() is None:
            with contextlib.suppress(OSError):
                server.terminate()
            try:
                server.wait(timeout=5)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        if self._running is not None:
            _kill_group(self._running)
            self._running = None


# The server: a fresh interpreter with torch imported, forking a child per script. --------


def serve() -> None:
    """The server's main loop: ``python -c`` runs it (see :class:`Isolation`). Requests and
    answers are JSON lines on its standard input and output, which it moves off descriptors
    0 and 1 first, so that nothing torch or a script writes there can mix with them."""
    parent, scratch, mode = sys.argv[2], sys.argv[3], sys.argv[4]
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    _point(0, os.devnull, os.O_RDONLY)
    _point(1, os.devnull, os.O_WRONLY)
    _die_with(int(parent))
    _become_subreaper()
    stopping: list[int] = []

    def stop(signum: int, frame: object) -> None:
        """The caller's way to stop this server (its Ctrl-C): the running script, what it
        started, then this process, at once (an interpreter's shutdown with torch loaded
        takes a second)."""
        for pid in stopping:
            _kill_group(pid)
        _end_descendants()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        from autograd_errors.verification.environment import TorchUnavailable, import_torch

        try:
            version = import_torch()
        except TorchUnavailable as error:
            _answer(answers, {"error": str(error)})
            return
        from autograd_errors.verification.observer import reset_torch_state

        # Once here, not once per script: its first call imports what it resets (torch's
        # deterministic-algorithms switch loads torch._dynamo and sympy, two seconds).
        reset_torch_state()
        _answer(answers, {"ready": version})
        for number, line in enumerate(requests):
            request = json.loads(line)
            result = os.path.join(scratch, f"{number}.json")
            output = os.path.join(scratch, f"{number}.out")
            pid = _start_child(request["path"], result, output, mode, (requests, answers))
            stopping.append(pid)
            _answer(answers, {"started": pid})
            answer = _outcome(pid, float(request["timeout"]), result, output)
            stopping.remove(pid)
            _answer(answers, answer)
            for leftover in (result, output):
                with contextlib.suppress(OSError):
                    os.unlink(leftover)
    finally:
        for pid in stopping:  # stopped by the caller mid-script
            _kill_group(pid)
            _end_descendants()


def _answer(stream: BinaryIO, answer: dict[str, Any]) -> None:
    stream.write(json.dumps(answer).encode() + b"\n")
    stream.flush()


def _start_child(
    path: str, result: str, output: str, mode: str, protocol: tuple[BinaryIO, BinaryIO]
) -> int:
    """A child that runs the script at ``path``: forked from this server, or, in ``fresh``
    mode, a new interpreter; its pid, which is also its process group."""
    if mode == "fresh":
        with open(output, "wb") as stream:
            child = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    _BOOT.format("child_main"),
                    _PACKAGE_PARENT,
                    path,
                    result,
                    str(os.getpid()),
                ],
                stdin=subprocess.DEVNULL,
                stdout=stream,
                stderr=stream,
                start_new_session=hasattr(os, "setsid"),
            )
        return child.pid
    import warnings

    server = os.getpid()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12: fork with threads
        pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the server's way to stop
            for pipe in protocol:
                os.close(pipe.fileno())
            _point(0, os.devnull, os.O_RDONLY)
            _point(1, output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(1, 2)
            _run_child(path, result, server)
        finally:
            os._exit(_CHILD_FAILED)  # _run_child ends the process itself when all went well
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # also here: whichever of the two runs first
    return pid


def child_main() -> None:
    """A fresh interpreter's child (``fresh`` mode): ``python -c`` runs it with the script's
    path, the result file and the server's pid."""
    path, result, server = sys.argv[2], sys.argv[3], int(sys.argv[4])
    try:
        _run_child(path, result, server)
    finally:
        os._exit(_CHILD_FAILED)


def _run_child(path: str, result: str, server: int) -> None:
    """Run the script at ``path`` here, and write what it did to ``result``. Only the process
    that started it writes: a fork the script made, returning through here, writes nothing."""
    import faulthandler
    import traceback

    this = os.getpid()
    try:
        _die_with(server)
        # faulthandler writes where the script was on a crash, and (on SIGUSR1, when its
        # time is up) where it hung, to a descriptor of its own: the script's run points
        # descriptor 2 elsewhere.
        dump = os.fdopen(os.dup(2), "w")
        faulthandler.enable(file=dump, all_threads=True)
        if hasattr(signal, "SIGUSR1"):
            faulthandler.register(signal.SIGUSR1, file=dump, all_threads=True)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.argv = [path]
        from autograd_errors.verification.observer import run_script

        observation = run_script(path, interrupts=False)
        if os.getpid() != this:
            os._exit(0)
        temporary = f"{result}.tmp"
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(observation.as_dict(), handle)
        os.replace(temporary, result)
        os._exit(0)
    except BaseException:  # noqa: BLE001 - the child's own failure, told in its output
        if os.getpid() != this:
            os._exit(0)
        with contextlib.suppress(Exception):
            os.write(2, traceback.format_exc().encode("utf-8", "replace"))
        os._exit(_CHILD_FAILED)


def _outcome(pid: int, timeout: float, result: str, output: str) -> dict[str, Any]:
    """Wait for the child ``pid`` (at most ``timeout`` seconds), end what it left, and say
    what it did: ``{"observation": ...}``, or ``{"status": ..., "detail": ...}``."""
    status = _wait(pid, time.monotonic() + timeout)
    timed_out = status is None
    if timed_out and hasattr(signal, "SIGUSR1"):
        # faulthandler: where it hung, and where every process it forked did (they
        # inherit the handler; a rank stuck in a collective is often where the hang is).
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGUSR1)
        _wait(pid, time.monotonic() + _DUMP_WAIT)
    _kill_group(pid)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)  # not reaped yet: still this child, in whatever group
    status = _reap(pid)
    _end_descendants()
    if not timed_out and status == 0 and os.path.exists(result):
        with open(result, encoding="utf-8") as handle:
            return {"observation": json.load(handle)}
    tail = _own_frames(_tail(output, _TAIL_LINES * 4 if timed_out else _TAIL_LINES))
    shown = f"\n{_indent(tail)}" if tail else ""
    if timed_out:
        verdict, detail = Status.TIMEOUT, f"the script did not finish within {timeout:g} s"
        shown = f"; it was stopped there:{shown}" if shown else "; it was stopped"
    elif status < 0:
        verdict, detail = Status.CRASHED, f"the script's process was killed by {_signal(-status)}"
    elif status == _CHILD_FAILED:
        verdict, detail = Status.CRASHED, "the process that ran the script failed"
    else:
        verdict, detail = (
            Status.EXITED,
            f"the script's process ended with exit status {status} before the script did "
            "(os._exit(), or a library's exit())",
        )
    return {"status": verdict.value, "detail": detail + shown}


def _wait(pid: int, deadline: float) -> int | None:
    """Wait until the child ``pid`` ends, without reaping it (its pid, and so its process
    group, cannot be reused before :func:`_reap`): 0 once it ended, None at ``deadline``."""
    pause = 0.002
    while True:
        if hasattr(os, "waitid"):
            if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return 0
        else:  # pragma: no cover - Windows: the child is reaped here
            ended, _ = os.waitpid(pid, os.WNOHANG)
            if ended:
                return 0
        if time.monotonic() >= deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _reap(pid: int) -> int:
    """Reap the ended child ``pid``: its exit status, or minus the signal that killed it."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:  # pragma: no cover - reaped already (Windows)
        return 0
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def _kill_group(pid: int) -> None:
    """Kill the process group ``pid`` (a child and what it started)."""
    if hasattr(os, "killpg"):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    else:  # pragma: no cover - Windows
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)


def _become_subreaper() -> None:
    """Linux: processes a script's child leaves behind become this server's children (not
    init's), so that :func:`_end_descendants` finds them, whatever group they moved to."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _end_descendants() -> None:
    """Kill and reap every child this server still has (on Linux, the processes a script
    left behind, which became its children), until none is left."""
    if not sys.platform.startswith("linux"):
        return
    me = os.getpid()
    for _ in range(100):  # each round, the children of the killed become ours
        children = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                with contextlib.suppress(OSError):
                    with open(f"/proc/{name}/stat", "rb") as handle:
                        fields = handle.read().rpartition(b")")[2].split()
                    if int(fields[1]) == me:
                        children.append(int(name))
        if not children:
            return
        for child in children:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        for child in children:
            with contextlib.suppress(OSError):
                os.waitpid(child, 0)


def _die_with(parent: int) -> None:
    """Linux: be killed when the process that started this one ends (it may be killed
    outright, with no chance to stop us); end now if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    if hasattr(os, "getppid") and os.getppid() != parent:
        os._exit(_CHILD_FAILED)


def _point(number: int, path: str, flags: int) -> None:
    """File descriptor ``number`` pointed at ``path``."""
    descriptor = os.open(path, flags, 0o600)
    if descriptor != number:
        os.dup2(descriptor, number)
        os.close(descriptor)


def _tail(path: str, lines: int = _TAIL_LINES) -> str:
    """The last ``lines`` lines of the file at ``path`` (what a stopped script wrote), or ""."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 16384))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


def _own_frames(text: str) -> str:
    """A stopped script's output without the frames of the process that ran it (this
    module, the observer) and faulthandler's list of extension modules."""
    ours = (
        f'{os.sep}verification{os.sep}isolation.py"',
        f'{os.sep}verification{os.sep}observer.py"',
    )
    kept = [
        line
        for line in text.splitlines()
        if not line.startswith("Extension modules: ")
        and not line.strip().startswith('File "<string>"')
        and not (line.strip().startswith("File ") and any(name in line for name in ours))
    ]
    return "\n".join(kept).strip("\n")


def _signal(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    description = signal.strsignal(number) if hasattr(signal, "strsignal") else None
    return f"{name} ({description})" if description else name
