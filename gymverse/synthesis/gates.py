"""The gates a candidate module passes to be accepted, on the sandbox's API.

In order: it imports and defines one game (``import``); the env checker passes (``checker``); the
reference solver wins at every checked level (``solver``); the audit finds no fault in play
(``correctness``: crashes and hangs per level, rewards without progress, success without
``info["success"]``, replay); complexity grades difficulty (``difficulty``, the audit's verdict); and,
in the calling process, it is no near-duplicate of the library or an earlier game (``novelty``).
Every module is imported and played only in the sandbox's children, so a module that hangs, exits
or eats memory is a verdict, never the end of the run.

A game without a solver (``need_solver=False``, for ``--adopt``) can pass only as unverified: the
solver gate is then "not applicable", and difficulty is judged on random play where it is measurable.
"""

import threading
import time
from dataclasses import dataclass
from pathlib import Path

from gymverse.evaluation.audit import AuditConfig, EnvAudit
from gymverse.evaluation.audit.diversity import env_texts
from gymverse.evaluation.targets import EnvTarget, GameFile
from gymverse.sandbox import Limits, Sandbox, audit_in, judge_file
from gymverse.sandbox.jobs import list_games
from gymverse.sandbox.judge import import_limits
from gymverse.synthesis.novelty import Novelty
from gymverse.synthesis.verdicts import GateResult, Judgement

CHECK_LEVELS = list(range(1, 21))
# The audit's play; the env checker already ran in full, so the audit's own run of it is kept minimal.
GATE_AUDIT = AuditConfig(checker_max_level=1, checker_seeds=1, sections=["correctness", "difficulty"])
# Reasons the checker and solver gates already give; the correctness gate does not repeat them.
GATED_BEFORE = ("checker:", "solver_fails", "no_solver")
MEASURABLE_RANDOM_SUCCESS = 0.1  # below this at the lowest level, random play cannot show a game grading
DIED = {"hung": "hang", "exited": "exit", "ran": "memory", "crashed": "signal", "raised": "crash"}


def died_reason(description: str) -> str:
    """The reason code of a sandbox job that did not finish (see :func:`gymverse.sandbox.judge.describe`)."""
    return DIED.get(description.split(":")[0].split(" ")[0], "crash")


@dataclass
class GateSettings:
    limits: Limits = Limits(seconds=60.0, memory_mb=2048)
    check_levels: tuple[int, ...] = tuple(CHECK_LEVELS)
    check_seeds: int = 5
    prefix: str = "candidate"


class SandboxGates:
    """The gates, one sandbox per worker thread (a sandbox runs one job at a time)."""

    def __init__(self, settings: GateSettings = GateSettings(), novelty: Novelty | None = None) -> None:
        self.settings = settings
        self.novelty = novelty or Novelty()
        self.local = threading.local()
        self.sandboxes: list[Sandbox] = []
        self.lock = threading.Lock()

    def sandbox(self) -> Sandbox:
        if getattr(self.local, "sandbox", None) is None:
            self.local.sandbox = Sandbox(self.settings.limits)
            with self.lock:
                self.sandboxes.append(self.local.sandbox)
        return self.local.sandbox

    def close(self) -> None:
        for sandbox in self.sandboxes:
            sandbox.close()

    def judge(self, path: Path, need_solver: bool) -> Judgement:
        start = time.perf_counter()
        judgement = Judgement()
        try:
            self._judge(Path(path).resolve(), need_solver, judgement)  # children run in a scratch folder
        finally:
            judgement.seconds = time.perf_counter() - start
        return judgement

    def admit(self, name: str, judgement: Judgement) -> GateResult:
        return self.novelty.admit(name, judgement.texts)

    def domain(self, path: Path, class_name: str) -> str:
        """The game's declared domain (its file imported once more, in a child)."""
        outcome = self.sandbox().run(list_games, str(path), limits=import_limits(self.settings.limits))
        return dict(outcome.value).get(class_name, "misc") if outcome.ok else "misc"

    def audit(self, path: Path, class_name: str, env_id: str, config: AuditConfig, domain: str = "misc") -> EnvAudit:
        """The audit of one game in the sandbox (a game it stopped has that as its one problem)."""
        path = str(Path(path).resolve())
        return audit_in(self.sandbox())(EnvTarget(env_id, domain, GameFile(path, class_name), path), config)

    def _judge(self, path: Path, need_solver: bool, judgement: Judgement) -> None:
        gates = judgement.gates
        s = self.settings
        verdict = judge_file(path, s.prefix, sandbox=self.sandbox(), levels=list(s.check_levels), seeds=s.check_seeds,
                             limits=s.limits)
        if verdict.error:
            reason = "import_error" if verdict.error.startswith("raised") else died_reason(verdict.error)
            gates.append(GateResult("import", False, reason, verdict.error))
            return
        if len(verdict.games) != 1:
            names = ", ".join(g.class_name for g in verdict.games) or "none"
            gates.append(GateResult("import", False, "not_one_game",
                                    f"a module must define exactly one env class; found {names}"))
            return
        game = verdict.games[0]
        judgement.class_name = game.class_name
        gates.append(GateResult("import", True, "", f"defines {game.class_name}"))
        if game.error:
            gates.append(GateResult("checker", False, died_reason(game.error), game.error))
            return
        gates += checker_gates(game.report, need_solver, s.check_levels)
        judgement.domain = self.domain(path, game.class_name)
        audit = self.audit(path, game.class_name, game.env_id, GATE_AUDIT, judgement.domain)
        gates += audit_gates(audit, need_solver)
        judgement.texts = env_texts(audit.plays) if audit.plays and any(p.transcript for p in audit.plays) else None
        solver = next(g for g in gates if g.gate == "solver")
        judgement.verified = solver.passed is True


def checker_gates(report, need_solver: bool, levels: tuple[int, ...]) -> list[GateResult]:
    """The env checker's report as two gates: everything but the solver, and the solver."""
    others = [r for r in report.results if r.name != "solver"]
    failed = [r for r in others if r.passed is False]
    if failed:
        crashed = any(r.detail.startswith("raised") for r in failed)
        checker = GateResult("checker", False, "crash" if crashed else "checker_" + failed[0].name.replace(" ", "_"),
                             "; ".join(f"{r.name}: {r.detail}" for r in failed))
    else:
        warnings = "; ".join(f"{r.name}: {r.warning}" for r in report.warnings())
        checker = GateResult("checker", True, "", f"passed ({len(others)} checks)" + (f"; warnings: {warnings}"
                                                                                        if warnings else ""))
    solver = next((r for r in report.results if r.name == "solver"), None)
    if solver is None or solver.passed is None:
        if need_solver:
            result = GateResult("solver", False, "no_solver", "the game has no oracle_action(), the reference solver")
        else:
            result = GateResult("solver", None, "unverified", "no reference solver: solvability is unproven")
    elif solver.passed:
        result = GateResult("solver", True, "", solver.detail)
    else:
        crashed = solver.detail.startswith("raised")
        result = GateResult("solver", False, "crash" if crashed else "solver_fails",
                            f"levels {levels[0]}..{levels[-1]}: {solver.detail}")
    return [checker, result]


def audit_gates(audit: EnvAudit, need_solver: bool) -> list[GateResult]:
    """The audit's correctness errors (those the checker gates did not already give) and its difficulty verdict."""
    errors = [p for p in audit.correctness.problems
              if p.severity == "error" and not p.reason.startswith(GATED_BEFORE)]
    if errors:
        correctness = GateResult("correctness", False, errors[0].reason,
                                 "; ".join(f"{p.reason}: {p.detail}" for p in errors))
    else:
        correctness = GateResult("correctness", True, "", f"{audit.correctness.replays} replays consistent, "
                                 "no reward without progress, success as the final reward says")
    return [correctness, difficulty_gate(audit, need_solver)]


def difficulty_gate(audit: EnvAudit, need_solver: bool) -> GateResult:
    d = audit.difficulty
    judged = d.judged if d else None
    if judged is None:
        return GateResult("difficulty", False if need_solver else None, "not_measured",
                          "fewer than two levels were played to the end")
    if d.judged_on == "random agent":
        first = d.success["random"][min(d.success["random"])]
        if not need_solver and first < MEASURABLE_RANDOM_SUCCESS:
            return GateResult("difficulty", None, "not_measurable",
                              f"random play wins {first:.2f} at the lowest level: too rarely to show grading")
    curve = ", ".join(f"{k}: {v:.2f}" for k, v in sorted(d.success.get(_judged_agent(d), {}).items()))
    if d.verdict == "graded":
        return GateResult("difficulty", True, "", f"graded: Spearman {judged.spearman:+.2f} of success with "
                          f"complexity ({d.judged_on}); success by level {curve}")
    return GateResult("difficulty", False, f"difficulty_{d.verdict}",
                      f"{d.verdict}: Spearman {judged.spearman:+.2f}, success drop {judged.drop:+.2f} from the first "
                      f"to the last level ({d.judged_on}); success by level {curve}. Complexity must make the game "
                      "harder for an imperfect player")


def _judged_agent(difficulty) -> str:
    epsilons = sorted(a for a in difficulty.success if a != "random")
    return epsilons[len(epsilons) // 2] if epsilons else "random"
