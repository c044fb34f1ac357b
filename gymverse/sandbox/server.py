"""The fork server: imports what jobs need once, then runs each job in a fresh forked child.

Started by :class:`gymverse.sandbox.Sandbox` as ``python -m gymverse.sandbox.server MODULE...``. It reads
requests ``(function, args, kwargs, limits)`` from stdin and writes one :class:`Outcome` per request
to the pipe that was its stdout. A child gets its own process group, a scratch working directory,
a memory limit, no network, and stdout/stderr in a file; the server kills the whole group when the
wall-clock limit passes, after asking the child (SIGUSR1) to write where it is stuck into its output.
The server never runs a job itself, so nothing a job does reaches it.
"""

import faulthandler
import importlib
import io
import os
import pickle
import select
import shutil
import signal
import struct
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from typing import Any, BinaryIO

OUTPUT_FILE = "output.txt"
STACK_DUMP_WAIT_S = 0.2  # for a stuck child to write its stack before it is killed
NETWORK_EVENTS = frozenset({
    "socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
    "socket.gethostbyname", "socket.gethostbyaddr",
})


@dataclass(frozen=True)
class Limits:
    """What one job may use: wall-clock seconds, memory beyond what the server has mapped, output kept."""

    seconds: float = 60.0
    memory_mb: int = 1024
    output_chars: int = 2000


@dataclass
class Outcome:
    """How a job ended. ``verdict``: ``ok`` (``value`` holds the result), ``raised`` (an exception),
    ``exit`` (``sys.exit``/``os._exit``), ``timeout``, ``memory`` or ``signal`` (killed, e.g. SIGSEGV)."""

    verdict: str
    value: Any = None
    detail: str = ""
    seconds: float = 0.0
    output: str = ""  # the tail of what the job printed

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"


def write_message(stream: BinaryIO, payload: bytes) -> None:
    stream.write(struct.pack("!Q", len(payload)) + payload)
    stream.flush()


def read_message(stream: BinaryIO) -> bytes | None:
    header = stream.read(8)
    if len(header) < 8:
        return None
    (size,) = struct.unpack("!Q", header)
    return stream.read(size)


class _PlainData(pickle.Unpickler):
    """Unpickles tuples, strings, bytes and numbers only: a job's child may have been tampered with."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name} is not plain data")


def loads_plain(data: bytes) -> Any:
    return _PlainData(io.BytesIO(data)).load()


def _limit_memory(extra_mb: int) -> None:
    import resource

    try:
        with open("/proc/self/status") as status:
            mapped_kb = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    except (OSError, StopIteration):
        return  # no /proc: the OS gives no reliable address-space figure, so no limit
    limit = mapped_kb * 1024 + extra_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _die_with_limits(limits: Limits) -> None:
    """Make sure a stray job cannot outlive its server: killed with its parent (Linux), and a CPU-time cap."""
    import resource

    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    cpu = int(limits.seconds) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))


def _no_network(event: str, _args: tuple) -> None:
    if event in NETWORK_EVENTS:
        raise PermissionError("the sandbox has no network")


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:2000]


def _child(function: Any, args: tuple, kwargs: dict, limits: Limits, scratch: str, result_fd: int,
           protocol_fds: tuple[int, ...]) -> None:
    """Runs in the forked child; never returns."""
    try:
        os.setsid()
        for fd in protocol_fds:
            os.close(fd)
        os.chdir(scratch)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        out = os.open(OUTPUT_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, 1)
        os.dup2(out, 2)
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
        os.environ.update(TMPDIR=scratch, HOME=scratch)
        tempfile.tempdir = scratch
        _limit_memory(limits.memory_mb)
        _die_with_limits(limits)
        sys.addaudithook(_no_network)
        try:
            reply = ("ok", pickle.dumps(function(*args, **kwargs)), "")
        except SystemExit as error:
            reply = ("exit", None, f"sys.exit({error.code!r}) called")
        except MemoryError as error:
            reply = ("memory", None, f"MemoryError: over the {limits.memory_mb} MB limit {error}".strip())
        except BaseException as error:  # the job's failure is the verdict
            lines = traceback.format_exception(error)
            reply = ("raised", None, _describe(error) + "\n" + "".join(lines[-6:])[-3000:])
        try:
            payload = pickle.dumps(reply)
        except BaseException as error:
            payload = pickle.dumps(("raised", None, f"the result could not be sent back: {_describe(error)}"))
        with os.fdopen(result_fd, "wb") as result:
            result.write(payload)
    finally:
        os._exit(0)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _wait(pid: int, deadline: float) -> int | None:
    """The child's wait status, or None if it is still running at ``deadline``."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.005)


def _output_tail(scratch: str, chars: int) -> str:
    try:
        with open(os.path.join(scratch, OUTPUT_FILE), "rb") as output:
            output.seek(0, os.SEEK_END)
            output.seek(max(0, output.tell() - chars))
            return output.read().decode("utf-8", "replace")
    except OSError:
        return ""


def run_job(function: Any, args: tuple, kwargs: dict, limits: Limits, protocol_fds: tuple[int, ...]) -> tuple:
    """Fork, run ``function`` in the child under ``limits``, and return ``(verdict, payload, detail, s, output)``."""
    scratch = tempfile.mkdtemp(prefix="gymverse-sandbox-")
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    deadline = start + limits.seconds
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(function, args, kwargs, limits, scratch, write_fd, protocol_fds)
    os.close(write_fd)
    chunks, timed_out = [], False
    while True:
        ready, _, _ = select.select([read_fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            timed_out = True
            break
        chunk = os.read(read_fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    status = None if timed_out else _wait(pid, deadline)
    if status is None:
        try:
            os.kill(pid, signal.SIGUSR1)
            time.sleep(STACK_DUMP_WAIT_S)
        except ProcessLookupError:
            pass
        _kill_group(pid)
        os.waitpid(pid, 0)
    _kill_group(pid)  # whatever the job left running
    seconds = time.monotonic() - start
    output = _output_tail(scratch, limits.output_chars)
    shutil.rmtree(scratch, ignore_errors=True)
    if status is None:
        return "timeout", None, f"still running after {limits.seconds:g} s", seconds, output
    data = b"".join(chunks)
    if data:
        try:
            verdict, payload, detail = loads_plain(data)
        except Exception as error:
            return "raised", None, f"the job sent back garbage: {_describe(error)}", seconds, output
        return verdict, payload, detail, seconds, output
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        return "signal", None, f"killed by {name}", seconds, output
    return "exit", None, f"the process exited with status {os.WEXITSTATUS(status)} before finishing", seconds, output


def serve(preload: list[str]) -> None:
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # stray prints go to stderr, never into the replies
    try:
        for name in preload:
            importlib.import_module(name)
    except BaseException as error:
        write_message(replies, pickle.dumps(("failed", _describe(error))))
        return
    write_message(replies, pickle.dumps(("ready", os.getpid())))
    protocol_fds = (requests.fileno(), replies.fileno())
    while (message := read_message(requests)) is not None:
        try:
            function, args, kwargs, limits = pickle.loads(message)
        except BaseException as error:
            reply = ("raised", None, f"the sandbox could not read the job: {_describe(error)}", 0.0, "")
        else:
            reply = run_job(function, args, kwargs, limits, protocol_fds)
        write_message(replies, pickle.dumps(reply))


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in the caller's terminal is the caller's to handle
    serve(sys.argv[1:])
