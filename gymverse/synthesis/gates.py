"""The gates a candidate module passes to be accepted: the module runs in its own jail, every gate here.

For each game the file defines: it imports and is a game (``import``); the env checker passes
(``checker``); the reference solver wins at every checked level (``solver``); the audit finds no fault in
play (``correctness``: crashes and hangs per level, rewards without progress, success without
``info["success"]``, replay); complexity grades difficulty (``difficulty``); and it is no near-duplicate of
the library or an earlier game (``novelty``). Every gate runs on a :class:`~gymverse.sandbox.ProxyEnv`, so
a module can change its verdict only by how its games play. Every gate runs even after one has failed,
so a refused game's report names all its defects.

A game without a solver (``need_solver=False``, for ``--adopt``) can pass only as unverified: the solver
gate is then "not applicable"; difficulty is reported, not gated, since random play cannot show the
grading of games it wins by chance (yes/no questions); and a near-duplicate is reported as a pair, since
without a solver arrival order cannot say which twin is right.
"""

import time
from dataclasses import dataclass, replace
from pathlib import Path

from gymverse.env.checker import check_env
from gymverse.env.gymverse_ids import domain_from_file_name
from gymverse.evaluation.audit import AuditConfig, EnvAudit, audit_env
from gymverse.evaluation.audit.diversity import env_texts
from gymverse.evaluation.targets import EnvTarget
from gymverse.sandbox import JailedFile, Limits, ProxyFactory
from gymverse.sandbox.budget import Budget
from gymverse.sandbox.folders import NOT_A_GAME, class_names, syntax_error
from gymverse.sandbox.judge import GAMES_PER_FILE, JUDGE_LIMITS, out_of_time, too_many_games
from gymverse.sandbox.proxy import broken_reason
from gymverse.synthesis.novelty import Novelty
from gymverse.synthesis.verdicts import GateResult, Judgement

CHECK_LEVELS = list(range(1, 21))
# Games written elsewhere are checked over GymVerse's complexity range: its games interpolate their
# parameters between levels 1 and 10, and its curriculum stops at 10.
ADOPT_MAX_LEVEL = 10
# The audit's play (it takes the env checker's report from the checker gate).
GATE_AUDIT = AuditConfig(checker_max_level=1, checker_seeds=1, sections=["correctness", "difficulty"])
# Without a solver only random play is audited: fewer levels and episodes say as much about its faults.
ADOPT_AUDIT = AuditConfig(
    levels=[1, 5, 10], episodes=10, checker_max_level=1, checker_seeds=1, sections=["correctness", "difficulty"]
)
# Reasons the checker and solver gates already give; the correctness gate does not repeat them.
GATED_BEFORE = ("checker:", "solver_fails", "no_solver")


@dataclass
class GateSettings:
    limits: Limits = replace(JUDGE_LIMITS, seconds=600.0)  # the judge's deadlines; seconds: one file's own time
    check_levels: tuple[int, ...] = tuple(CHECK_LEVELS)
    check_seeds: int = 5
    prefix: str = "candidate"


class JailGates:
    """The gates: each module in a jail of its own, each verdict reached in this process."""

    def __init__(self, settings: GateSettings = GateSettings(), novelty: Novelty | None = None) -> None:
        self.settings = settings
        self.novelty = novelty or Novelty()

    def judge(self, path: Path, need_solver: bool) -> Judgement:
        """A synthesized module must define exactly one game."""
        judgements = self.judge_games(path, need_solver)
        if len(judgements) > 1:
            names = ", ".join(str(j.class_name) for j in judgements)
            return Judgement(
                [
                    GateResult(
                        "import", False, "not_one_game", f"a module must define exactly one env class; found {names}"
                    )
                ],
                seconds=sum(j.seconds for j in judgements),
            )
        return judgements[0]

    def judge_games(self, path: Path, need_solver: bool) -> list[Judgement]:
        """One judgement per game the module defines (one refused import judgement if it defines none)."""
        start = time.perf_counter()
        s = self.settings
        path = Path(path).resolve()
        if not class_names(path) and not syntax_error(path):
            return [Judgement([GateResult("import", False, "not_a_game", NOT_A_GAME)])]
        if len(class_names(path)) > GAMES_PER_FILE:  # refused unrun
            return [
                Judgement(
                    [GateResult("import", False, "too_many_games", too_many_games(len(class_names(path)), "classes"))]
                )
            ]
        budget = Budget(s.limits.seconds)
        jail = JailedFile(path, s.limits, budget)
        try:
            games = jail.listing()
            if isinstance(games, str):
                reason = "import_error" if games.startswith("raised") else broken_reason(games)
                return [Judgement([GateResult("import", False, reason, games)], seconds=time.perf_counter() - start)]
            if len(games) > GAMES_PER_FILE:
                refused = GateResult("import", False, "too_many_games", too_many_games(len(games), "game classes"))
                return [Judgement([refused], seconds=time.perf_counter() - start)]
            if not games:
                return [
                    Judgement(
                        [GateResult("import", False, "no_game", "the module defines no env class")],
                        seconds=time.perf_counter() - start,
                    )
                ]
            judgements = []
            for game in games:
                if budget.out():  # the file's time is spent: its remaining games are refused for it unplayed
                    judgements.append(
                        Judgement([GateResult("import", False, "hang", budget.reason())], class_name=game["name"])
                    )
                    continue
                if jail.broken:  # the previous game ended the jail: this one gets a fresh one
                    jail.close()
                    jail = JailedFile(path, s.limits, budget)
                began = time.perf_counter()
                judgement = self._judge_game(jail, game, need_solver, budget)
                judgement.seconds = time.perf_counter() - began
                judgements.append(judgement)
            return judgements
        finally:
            jail.close()

    def admit(self, name: str, judgement: Judgement) -> GateResult:
        return self.novelty.admit(name, judgement.texts, pair_only=not judgement.verified)

    def audit(self, path: Path, class_name: str, env_id: str, config: AuditConfig, domain: str = "misc") -> EnvAudit:
        """The audit of one game of ``path``, played here through its jail."""
        with JailedFile(Path(path).resolve(), self.settings.limits) as jail:
            return audit_env(EnvTarget(env_id, domain, ProxyFactory(lambda: jail, jail.game(class_name))), config)

    def _judge_game(self, jail: JailedFile, game: dict, need_solver: bool, budget: Budget) -> Judgement:
        s = self.settings
        name = game["name"]
        domain = game.get("domain") or domain_from_file_name(jail.file.name) or "misc"
        judgement = Judgement(class_name=name, domain=domain)
        gates = judgement.gates
        gates.append(GateResult("import", True, "", f"defines {name}"))
        env_id = f"{s.prefix}:{name}"
        factory = ProxyFactory(lambda: jail, game, defer=False)  # the game as it is: the checker says if it defers
        levels = [level for level in s.check_levels if need_solver or level <= ADOPT_MAX_LEVEL]
        budget.phase = f"the checker and solver gates on {name}"
        report = check_env(factory, levels=levels, seeds=s.check_seeds, env_id=env_id)
        if jail.broken and jail.broken != "closed":
            gates.append(GateResult("checker", False, broken_reason(jail.broken), jail.broken))
            return judgement
        gates += checker_gates(report, need_solver, tuple(levels))
        target = EnvTarget(env_id, judgement.domain, factory)
        budget.phase = f"the correctness and difficulty gates on {name}"
        audit = audit_env(target, GATE_AUDIT if need_solver else ADOPT_AUDIT, checked=report)
        if budget.out():
            gates.append(GateResult("correctness", False, "hang", out_of_time(jail, budget)))
            return judgement
        gates += audit_gates(audit, need_solver)
        judgement.audit = audit
        judgement.texts = env_texts(audit.plays) if audit.plays and any(p.transcript for p in audit.plays) else None
        judgement.verified = next(g for g in gates if g.gate == "solver").passed is True
        return judgement


def checker_gates(report, need_solver: bool, levels: tuple[int, ...]) -> list[GateResult]:
    """The env checker's report as two gates: everything but the solver, and the solver."""
    others = [r for r in report.results if r.name != "solver"]
    failed = [r for r in others if r.passed is False]
    if failed:
        crashed = any(r.detail.startswith("raised") for r in failed)
        checker = GateResult(
            "checker",
            False,
            "crash" if crashed else "checker_" + failed[0].name.replace(" ", "_"),
            "; ".join(f"{r.name}: {r.detail}" for r in failed),
        )
    else:
        warnings = "; ".join(f"{r.name}: {r.warning}" for r in report.warnings())
        checker = GateResult(
            "checker", True, "", f"passed ({len(others)} checks)" + (f"; warnings: {warnings}" if warnings else "")
        )
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
        result = GateResult(
            "solver",
            False,
            "crash" if crashed else "solver_fails",
            f"levels {levels[0]}..{levels[-1]}: {solver.detail}",
        )
    return [checker, result]


def audit_gates(audit: EnvAudit, need_solver: bool) -> list[GateResult]:
    """The audit's correctness errors (those the checker gates did not already give) and its difficulty verdict."""
    checked = audit.correctness
    assert checked is not None, "the gates judge audits that played"
    errors = [p for p in checked.problems if p.severity == "error" and not p.reason.startswith(GATED_BEFORE)]
    if errors:
        correctness = GateResult(
            "correctness", False, errors[0].reason, "; ".join(f"{p.reason}: {p.detail}" for p in errors)
        )
    else:
        marks = [
            f"{p.reason}: {p.detail}"
            for p in checked.problems
            if p.severity == "warning" and not p.reason.startswith(GATED_BEFORE)
        ]
        correctness = GateResult(
            "correctness",
            True,
            "",
            f"{checked.replays} replays consistent, "
            "no reward without progress, success as the final reward says"
            + (f"; warnings: {'; '.join(marks)}" if marks else ""),
        )
    return [correctness, difficulty_gate(audit, need_solver)]


def difficulty_gate(audit: EnvAudit, need_solver: bool) -> GateResult:
    d = audit.difficulty
    judged = d.judged if d else None
    if d is None or judged is None:
        return GateResult(
            "difficulty", False if need_solver else None, "not_measured", "fewer than two levels were played to the end"
        )
    curve = ", ".join(f"{k}: {v:.2f}" for k, v in sorted(d.success.get(_judged_agent(d), {}).items()))
    measured = (
        f"Spearman {judged.spearman:+.2f} of success with complexity ({d.judged_on}), success drop "
        f"{judged.drop:+.2f} from the first to the last level; success by level {curve}"
    )
    if d.verdict == "graded":
        return GateResult("difficulty", True, "", f"graded: {measured}")
    if not need_solver:
        return GateResult(
            "difficulty",
            None,
            "not_measurable",
            f"{d.verdict} under random play, which cannot show grading where it wins by chance: {measured}",
        )
    return GateResult(
        "difficulty",
        False,
        f"difficulty_{d.verdict}",
        f"{d.verdict}: {measured}. Complexity must make the game harder for an imperfect player",
    )


def _judged_agent(difficulty) -> str:
    epsilons = sorted(a for a in difficulty.success if a != "random")
    return epsilons[len(epsilons) // 2] if epsilons else "random"
