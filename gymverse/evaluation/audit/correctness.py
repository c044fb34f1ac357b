"""Is the game right? The env checker, reward sanity, the solver at every level, and replay consistency."""

from dataclasses import dataclass, field

from gymverse.env.checker import CheckReport, CheckResult, check_env, time_limit
from gymverse.env.players import random_move
from gymverse.env.success import episode_success
from gymverse.evaluation.audit.agents import RANDOM, SOLVER, LevelPlay, replay
from gymverse.evaluation.audit.problems import Problem
from gymverse.evaluation.targets import EnvTarget
from gymverse.seeds import keyed_rng

MALFORMED_REPLIES = ("no command here", "\\boxed{}")
REPEATS = 5


@dataclass
class Correctness:
    checker: list[dict] = field(default_factory=list)  # name, passed, detail
    solver_success: dict[int, float] = field(default_factory=dict)
    random_reward_outside_wins: dict[int, float] = field(default_factory=dict)  # mean per episode
    replays: int = 0
    problems: list[Problem] = field(default_factory=list)


def rewards_without_progress(target: EnvTarget, level: int, seed: int) -> list[float]:
    """Rewards paid for replies that cannot make progress: repeats of one move, and malformed replies.

    The first play of the repeated move may be progress, so only its repetitions count, and a
    step that wins the game is never counted.
    """
    env = target.make(level)
    env.reset(seed=seed)
    move = random_move(env, keyed_rng("repeat", seed))
    paid = []
    for i in range(REPEATS):
        _, reward, terminated, truncated, info = env.step(move)
        ended = terminated or truncated
        if i > 0 and not (ended and episode_success(info, reward)):
            paid.append(reward)
        if ended:
            break
    for reply in MALFORMED_REPLIES:
        env.reset(seed=seed)
        _, reward, terminated, truncated, info = env.step(reply)
        if not ((terminated or truncated) and episode_success(info, reward)):
            paid.append(reward)
    return paid


def audit_correctness(
    target: EnvTarget,
    plays: list[LevelPlay],
    checker_levels: list[int],
    checker_seeds: int,
    episode_time_s: float = 10.0,
    checked: CheckReport | None = None,
) -> Correctness:
    """Check ``target`` with the env checker at ``checker_levels`` (or take ``checked``, its report when the caller
    already ran it; no levels: the play hung or broke the game's jail at level 1, and the checker would too) and
    read the agents' ``plays`` for reward and replay faults."""
    result = Correctness()

    def problem(reason: str, detail: str, severity: str = "error") -> None:
        result.problems.append(Problem(target.env_id, "correctness", reason, severity, detail))

    if checked:
        report = checked
    elif checker_levels:
        report = check_env(target.make, levels=checker_levels, seeds=checker_seeds, env_id=target.env_id)
    else:  # the play stopped the game at level 1, where every check starts
        report = CheckReport(target.env_id, [CheckResult("checker", None, "not run: the game stopped at level 1")])
    for check in report.results:
        result.checker.append(
            {"name": check.name, "passed": check.passed, "detail": check.detail, "warning": check.warning}
        )
        if check.passed is False:
            problem("checker:" + check.name.replace(" ", "_"), check.detail)
        elif check.warning and check.passed is not None:  # "no solver" has its own problem below
            problem("checker:" + check.name.replace(" ", "_"), check.warning, "warning")

    for level_play in plays:
        where = f"{level_play.agent} at level {level_play.level}"
        if level_play.failure:
            reason, detail = level_play.failure
            problem(reason, f"{where}: {detail}")
        for episode in level_play.mismatches[:1]:
            problem(
                "success_mismatch",
                f"{where}, seed {episode.seed}: final reward {episode.final_reward:+g} "
                f"but info['success'] is {episode.success}",
            )
        if not level_play.episodes:
            continue
        if level_play.agent == SOLVER:
            result.solver_success[level_play.level] = level_play.success_rate
        if level_play.agent == RANDOM:
            mean = sum(e.reward_outside_win for e in level_play.episodes) / len(level_play.episodes)
            result.random_reward_outside_wins[level_play.level] = mean

    unsolved = sorted(level for level, rate in result.solver_success.items() if rate < 1.0)
    if unsolved:
        rates = ", ".join(f"level {level}: {result.solver_success[level]:.0%}" for level in unsolved)
        problem("solver_fails", f"the solver does not win every episode ({rates})")
    if not any(p.agent == SOLVER for p in plays):
        problem("no_solver", "the env has no oracle_action(), so solvability is unproven", "warning")

    farming_ruled_out = True  # no repeated or malformed move earned anything, at every level it was tried
    for level in sorted({p.level for p in plays} - {p.level for p in plays if p.stopped_the_game}):  # found once
        try:
            with time_limit(episode_time_s):
                paid = rewards_without_progress(target, level, seed=level)
        except TimeoutError as error:
            problem("hang", f"repeating one move at level {level}: {error}")
            farming_ruled_out = False
            continue
        except Exception as error:
            problem("crash", f"repeating one move at level {level}: {type(error).__name__}: {error}")
            farming_ruled_out = False
            continue
        if any(r > 0 for r in paid):
            problem(
                "reward_without_progress", f"level {level}: a repeated move or a malformed reply earned {max(paid):+g}"
            )
            farming_ruled_out = False
            break
    # A reward random play earns outside wins is a shaped reward (GymVerse pays for progress) when no farming
    # earns it: then a mark that names it, not a refusal.
    for level, mean in result.random_reward_outside_wins.items():
        if mean > 1e-9:
            earns = f"random play earns {mean:+.3f} per episode outside wins at level {level}"
            if farming_ruled_out:
                problem(
                    "random_play_earns_reward",
                    f"{earns}: a shaped reward (no repeated or malformed move earns anything)",
                    "warning",
                )
            else:
                problem("random_play_earns_reward", earns)

    for level_play in plays:
        first = level_play.transcript
        if first is None:
            continue
        try:
            with time_limit(episode_time_s):
                again = replay(target, level_play.level, first)
        except TimeoutError as error:
            problem("hang", f"replaying {level_play.agent} at level {level_play.level}: {error}")
            continue
        except Exception as error:
            problem(
                "crash", f"replaying {level_play.agent} at level {level_play.level}: {type(error).__name__}: {error}"
            )
            continue
        result.replays += 1
        if again != first.trace:
            step = next((i for i, (a, b) in enumerate(zip(first.trace, again)) if a != b), len(again))
            problem(
                "nondeterministic",
                f"{level_play.agent} at level {level_play.level}, seed {first.seed}: "
                f"the same seed and actions gave a different trace from step {step}",
            )
            break
    result.problems = merge_by_reason(result.problems)
    return result


def merge_by_reason(problems: list[Problem]) -> list[Problem]:
    """One problem per reason: the first finding's detail, and how many more there were."""
    merged: dict[str, list[Problem]] = {}
    for p in problems:
        merged.setdefault(p.reason, []).append(p)
    out = []
    for same in merged.values():
        first = same[0]
        more = f" (and {len(same) - 1} more like it)" if len(same) > 1 else ""
        out.append(Problem(first.env_id, first.section, first.reason, first.severity, first.detail + more))
    return out
