"""``Sandbox``: the caller's side of the fork server (see :mod:`gymverse.sandbox.server`)."""

import dataclasses
import io
import pickle
import select
import subprocess
import sys
import threading
from typing import Any, Callable, Sequence

from gymverse.sandbox.server import Limits, Outcome, loads_plain, read_message, write_message

DEFAULT_PRELOAD = ("gymverse", "gymverse.sandbox.jobs", "gymverse.evaluation.audit")
SERVER_GRACE_S = 30.0  # beyond a job's own limit, before the server itself counts as stuck
SAFE_BUILTINS = frozenset({"set", "frozenset", "complex", "bytearray", "range", "slice"})


class SandboxBroken(RuntimeError):
    """The fork server could not start (its preload failed) or stopped answering."""


class _Results(pickle.Unpickler):
    """A job's result may name gymverse's dataclasses and a few builtins, nothing that runs code."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in SAFE_BUILTINS:
            return super().find_class(module, name)
        if module == "gymverse" or module.startswith("gymverse."):
            found = super().find_class(module, name)
            if isinstance(found, type) and dataclasses.is_dataclass(found):
                return found
        raise pickle.UnpicklingError(f"a sandbox result may not contain {module}.{name}")


class Sandbox:
    """Runs functions in forked children of one long-lived server; use it as a context manager.

    ``run(function, *args, limits=None, **kwargs) -> Outcome``: ``function`` must be importable
    by name (a module-level function) and its arguments and result picklable; the result may hold
    plain data and gymverse dataclasses only. Jobs run one at a time (a thread waits for another's).
    """

    def __init__(self, limits: Limits = Limits(), preload: Sequence[str] = DEFAULT_PRELOAD) -> None:
        self.limits = limits
        self.preload = tuple(preload)
        self._server: subprocess.Popen | None = None
        self._lock = threading.Lock()  # one job at a time, even when threads share the sandbox

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def start(self) -> None:
        if self._server is not None and self._server.poll() is None:
            return
        self._server = subprocess.Popen(
            [sys.executable, "-m", "gymverse.sandbox.server", *self.preload],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        hello = read_message(self._server.stdout)
        state, detail = loads_plain(hello) if hello else ("failed", "the server exited at start")
        if state != "ready":
            self.close()
            raise SandboxBroken(f"the sandbox could not import {', '.join(self.preload)}: {detail}")

    def run(self, function: Callable[..., Any], *args: Any, limits: Limits | None = None, **kwargs: Any) -> Outcome:
        limits = limits or self.limits
        with self._lock:
            self.start()
            server = self._server
            write_message(server.stdin, pickle.dumps((function, args, kwargs, limits)))
            ready, _, _ = select.select([server.stdout], [], [], limits.seconds + SERVER_GRACE_S)
            reply = read_message(server.stdout) if ready else None
            if reply is None:
                self.close()
                raise SandboxBroken("the sandbox server stopped answering")
        verdict, payload, detail, seconds, output = loads_plain(reply)
        value = None
        if verdict == "ok":
            try:
                value = _Results(io.BytesIO(payload)).load()
            except Exception as error:
                verdict, detail = "raised", f"the job's result was refused: {type(error).__name__}: {error}"
        return Outcome(verdict, value, detail, seconds, output)

    def close(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        for stream in (server.stdin, server.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

    def __del__(self) -> None:
        if getattr(self, "_server", None) is not None:
            self.close()
