"""What the gates say about one candidate module: one verdict per gate, and the report a model reads."""

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class GateResult:
    gate: str  # import, checker, solver, difficulty, novelty, ...
    passed: bool | None  # None: not applicable (e.g. no solver to check)
    reason: str = ""  # a short stable code when refused, e.g. "crash", "solver_fails", "near_duplicate"
    detail: str = ""


@dataclass
class Judgement:
    """Every gate's verdict on one module, and what a passing module offers the next steps."""

    gates: list[GateResult] = field(default_factory=list)
    class_name: str | None = None
    domain: str = "misc"
    verified: bool = False  # the game has a reference solver, and it won at every level
    texts: tuple[str, str] | None = None  # (opening instructions, a solver or random transcript) for novelty
    seconds: float = 0.0  # wall-clock time the gates took
    audit: Any = field(default=None, repr=False, compare=False)  # the gates' EnvAudit, for the final report

    @property
    def passed(self) -> bool:
        return bool(self.gates) and all(g.passed is not False for g in self.gates)

    @property
    def failure(self) -> GateResult | None:
        return next((g for g in self.gates if g.passed is False), None)

    def report(self) -> str:
        """The failing gates in words, for the repair prompt."""
        return "\n".join(f"- {g.gate} ({g.reason}): {g.detail}" for g in self.gates if g.passed is False)

    def as_records(self) -> list[dict]:
        return [asdict(g) for g in self.gates]
