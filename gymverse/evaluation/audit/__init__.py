"""Environment quality: correctness, difficulty and diversity of a set of games, in one report.

``run_audit`` plays every game with scripted agents (solver, epsilon-solvers, random) once and
reads that play three ways; ``write_audit_report`` turns the result into Markdown, JSON and figures.
Games that are not ours are played here through their jailed proxies (``gymverse.sandbox``).
"""

import math
from dataclasses import dataclass, field
from typing import Callable

from gymverse.env.checker import CheckReport
from gymverse.errors import BadInput
from gymverse.evaluation.audit.agents import RANDOM, SOLVER, LevelPlay, epsilon_name, play_level
from gymverse.evaluation.audit.correctness import Correctness, audit_correctness
from gymverse.evaluation.audit.difficulty import NOT_MEASURED, Difficulty, audit_difficulty
from gymverse.evaluation.audit.diversity import Diversity, audit_diversity
from gymverse.evaluation.audit.problems import Problem, rank_envs
from gymverse.evaluation.targets import EnvTarget
from gymverse.sandbox import JailBroken

SECTIONS = ("correctness", "difficulty", "diversity")


@dataclass
class AuditConfig:
    levels: list[int] = field(default_factory=lambda: list(range(1, 11)))
    episodes: int = 20  # per agent and level, for the epsilon and random agents
    solver_episodes: int = 5  # per level
    epsilons: list[float] = field(default_factory=lambda: [0.1, 0.3, 0.5])
    checker_max_level: int = 20
    checker_seeds: int = 3
    near_duplicate: float = 0.95  # cosine similarity from which two envs count as near-duplicates
    sections: list[str] = field(default_factory=lambda: list(SECTIONS))
    seed: int = 0
    episode_time_s: float = 10.0

    def __post_init__(self) -> None:
        unknown = set(self.sections) - set(SECTIONS)
        if unknown:
            raise BadInput(f"unknown audit section(s) {sorted(unknown)}; choose from {list(SECTIONS)}")
        if not self.levels or min(self.levels) < 1:
            raise BadInput("audit levels must be integers >= 1")
        if min(self.episodes, self.solver_episodes, self.checker_max_level, self.checker_seeds) < 1:
            raise BadInput("episodes, solver episodes, checker max level and checker seeds must be >= 1")
        if not 0.0 < self.near_duplicate <= 1.0:
            raise BadInput("the near-duplicate similarity must lie in (0, 1]")
        if any(not 0.0 <= e <= 1.0 for e in self.epsilons):
            raise BadInput("epsilons must lie in [0, 1]")


@dataclass
class EnvAudit:
    env_id: str
    domain: str
    plays: list[LevelPlay]
    correctness: Correctness | None = None
    difficulty: Difficulty | None = None


@dataclass
class AuditResult:
    config: AuditConfig
    envs: list[EnvAudit]
    diversity: Diversity | None = None

    @property
    def problems(self) -> list[Problem]:
        found = [p for env in self.envs for part in (env.correctness, env.difficulty) if part for p in part.problems]
        return found + (self.diversity.problems if self.diversity else [])

    def ranked(self) -> list[dict]:
        return rank_envs(self.problems)


def agents_for(target: EnvTarget, epsilons: list[float]) -> list[str]:
    return ([SOLVER] + [epsilon_name(e) for e in epsilons] if target.has_solver() else []) + [RANDOM]


def play_env(target: EnvTarget, config: AuditConfig) -> list[LevelPlay]:
    """Every agent at every level, but none at or above a level where the game hung or broke its jail: that is
    the finding once, and each repeat would cost a time limit or a new jail."""
    plays: list[LevelPlay] = []
    for agent in agents_for(target, config.epsilons):
        count = config.solver_episodes if agent == SOLVER else config.episodes
        seeds = [config.seed + i for i in range(count)]
        for level in config.levels:
            if level < first_stop(plays):
                plays.append(play_level(target, agent, level, seeds, config.episode_time_s))
    return plays


def first_stop(plays: list[LevelPlay]) -> float:
    """The lowest level at which the game hung or broke its jail (infinity where it never did)."""
    return min((p.level for p in plays if p.stopped_the_game), default=math.inf)


def unmeasured(target: EnvTarget, config: AuditConfig, reason: str, detail: str) -> EnvAudit:
    """The audit of a game that could not be played at all: its one problem, and nothing measured."""
    audit = EnvAudit(target.env_id, target.domain, [])
    if "correctness" in config.sections:
        audit.correctness = Correctness(problems=[Problem(target.env_id, "correctness", reason, "error", detail)])
    if "difficulty" in config.sections:
        audit.difficulty = Difficulty(
            problems=[
                Problem(
                    target.env_id,
                    "difficulty",
                    "not_measured",
                    "warning",
                    f"{NOT_MEASURED}: the game could not be played",
                )
            ]
        )
    return audit


def audit_env(target: EnvTarget, config: AuditConfig, checked: CheckReport | None = None) -> EnvAudit:
    """The audit of one game; ``checked``: the env checker's report on it, where the caller already ran it."""
    try:
        plays = play_env(target, config)
    except Exception as error:  # the env cannot even be built (or reset) at level 1, or its jail ended
        reason = (
            error.reason if isinstance(error, JailBroken) else "memory" if isinstance(error, MemoryError) else "crash"
        )
        return unmeasured(target, config, reason, f"building the env: {type(error).__name__} {error}".strip())
    audit = EnvAudit(target.env_id, target.domain, plays)
    if "correctness" in config.sections:
        # The checker would stop the game at that level again.
        checker_levels = [level for level in range(1, config.checker_max_level + 1) if level < first_stop(plays)]
        audit.correctness = audit_correctness(
            target, plays, checker_levels, config.checker_seeds, config.episode_time_s, checked
        )
    if "difficulty" in config.sections:
        audit.difficulty = audit_difficulty(target.env_id, plays)
    return audit


def run_audit(
    targets: list[EnvTarget],
    config: AuditConfig | None = None,
    on_env: Callable[[str], None] | None = None,
    embedder=None,
) -> AuditResult:
    """Audit every target; ``on_env(env_id)`` is called as each one starts (for progress)."""
    config = config or AuditConfig()
    audits = []
    for target in targets:
        if on_env:
            on_env(target.env_id)
        audits.append(audit_env(target, config))
    result = AuditResult(config, audits)
    if "diversity" in config.sections and audits:
        if on_env:
            on_env("diversity")
        result.diversity = audit_diversity(
            [a.env_id for a in audits],
            [a.domain for a in audits],
            {a.env_id: a.plays for a in audits},
            model=embedder,
            near_duplicate=config.near_duplicate,
        )
    return result
