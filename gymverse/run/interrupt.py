"""Ctrl-C at a safe point: the first one asks the run to stop after the current step, the second stops now.

with StopRequest() as stop:
    for step in ...:
        ...                                   # a whole step, never cut in half
        if stop.requested:
            save(step); break
"""

import signal
import threading
from typing import Any


class StopRequest:
    def __init__(self, message: str = "Ctrl-C: stopping after this step (Ctrl-C again stops at once)") -> None:
        self.message = message
        self.requested = False
        self._previous: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        print(f"\n{self.message}", flush=True)

    def __enter__(self) -> "StopRequest":
        if threading.current_thread() is threading.main_thread():  # signals reach the main thread only
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
