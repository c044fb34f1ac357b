"""A file's time budget: the CPU time its own code may take, across its import, its listing and every game.

What is charged is the CPU time of the processes in the file's jails (the watch reads it); the judge's own
work between requests (the checker's, the audit's) is not, and neither is the time the file's code waits for
a core, so an honest file is judged alike on an idle machine and on a loaded one. A game that sleeps uses no
CPU: beside the per-request limit, the file's judging may last at most ``WALL_FACTOR`` times its budget.
"""

import time
from dataclasses import dataclass, field

WALL_FACTOR = 10


@dataclass
class Budget:
    seconds: float
    spent: float = 0.0  # CPU seconds of the file's jails so far
    phase: str = ""  # what the caller is doing (a gate, a game), named when the budget runs out
    started: float = field(default_factory=time.monotonic)

    def charge(self, seconds: float) -> None:
        self.spent += seconds

    def out(self) -> bool:
        return self.spent >= self.seconds or self.wall_seconds() >= self.seconds * WALL_FACTOR

    def wall_seconds(self) -> float:
        return time.monotonic() - self.started

    def reason(self) -> str:
        """Why the file was stopped, as a jail's ``hung: ...`` reason."""
        during = f" during {self.phase}" if self.phase else ""
        if self.spent >= self.seconds:
            return f"hung: the file's code used up its {self.seconds:g} s of CPU time{during}"
        return f"hung: the file was still being judged after {self.seconds * WALL_FACTOR:g} s{during}"
