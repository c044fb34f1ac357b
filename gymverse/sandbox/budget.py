"""A file's time budget: the seconds its own code may take, across its import, its listing and every game.

What is charged is the time the trusted side spends waiting for the file's jails to answer; the judge's
own work between requests (the checker's, the audit's) is not, so an honest file is judged alike on an idle
machine and on a loaded one, and a file's verdict does not depend on how many checks the judge asks for.
"""

from dataclasses import dataclass


@dataclass
class Budget:
    seconds: float
    spent: float = 0.0
    phase: str = ""  # what the caller is doing (a gate, a game), named when the budget runs out

    def left(self) -> float:
        return max(0.0, self.seconds - self.spent)

    def charge(self, seconds: float) -> None:
        self.spent += seconds

    def out(self) -> bool:
        return self.spent >= self.seconds

    def reason(self) -> str:
        """Why the file was stopped, as a jail's ``hung: ...`` reason."""
        during = f" during {self.phase}" if self.phase else ""
        return f"hung: the file's own code used up its {self.seconds:g} s budget{during}"
