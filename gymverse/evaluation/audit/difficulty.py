"""Does complexity make the game harder? Success of epsilon-solver and random agents against level."""

from dataclasses import dataclass, field

from gymverse.evaluation.audit.agents import RANDOM, SOLVER, LevelPlay
from gymverse.evaluation.audit.problems import Problem
from gymverse.evaluation.metrics import difficulty_verdict, linear_slope, spearman

NOT_MEASURED = "not measured"
VERDICTS = ("graded", "flat", "inverted", NOT_MEASURED)


@dataclass
class Trend:
    spearman: float
    slope: float  # success per level
    drop: float  # success at the lowest level minus success at the highest


@dataclass
class Difficulty:
    success: dict[str, dict[int, float]] = field(default_factory=dict)  # agent -> level -> success rate
    trends: dict[str, Trend] = field(default_factory=dict)
    judged_on: str = ""  # the curve the verdict reads: mean of the epsilon agents, or random play
    judged: Trend | None = None
    verdict: str = NOT_MEASURED  # or what difficulty_verdict says: graded, flat, inverted
    problems: list[Problem] = field(default_factory=list)


def trend(curve: dict[int, float]) -> Trend:
    levels = sorted(curve)
    rates = [curve[level] for level in levels]
    return Trend(spearman(levels, rates), linear_slope(levels, rates), rates[0] - rates[-1])


def audit_difficulty(env_id: str, plays: list[LevelPlay]) -> Difficulty:
    result = Difficulty()
    for level_play in plays:
        if level_play.agent != SOLVER and level_play.episodes:
            result.success.setdefault(level_play.agent, {})[level_play.level] = level_play.success_rate
    result.trends = {agent: trend(curve) for agent, curve in result.success.items() if len(curve) > 1}
    epsilon_curves = [curve for agent, curve in result.success.items() if agent != RANDOM]
    curves = epsilon_curves or [result.success.get(RANDOM, {})]
    shared = sorted(set.intersection(*(set(c) for c in curves))) if curves else []
    if len(shared) < 2:
        failure = next((p for p in plays if p.failure), None)
        why = (
            f" ({failure.agent} at level {failure.level}: {': '.join(failure.failure)})"
            if failure and failure.failure
            else ""
        )
        result.problems.append(
            Problem(
                env_id,
                "difficulty",
                "not_measured",
                "warning",
                f"{NOT_MEASURED}: fewer than two levels were played to the end{why}",
            )
        )
        return result
    result.judged_on = "mean of epsilon agents" if epsilon_curves else "random agent"
    mean_curve = {level: sum(c[level] for c in curves) / len(curves) for level in shared}
    judged = result.judged = trend(mean_curve)
    result.verdict = difficulty_verdict(judged.spearman, judged.drop)
    if result.verdict != "graded":
        result.problems.append(
            Problem(
                env_id,
                "difficulty",
                f"difficulty_{result.verdict}",
                "warning",
                f"success {mean_curve[shared[0]]:.2f} at level {shared[0]} vs {mean_curve[shared[-1]]:.2f} at level "
                f"{shared[-1]} (Spearman {judged.spearman:+.2f}, {result.judged_on})",
            )
        )
    return result
