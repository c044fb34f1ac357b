"""A problem the audit found with an environment, and the ranking of environments by their problems."""

from collections import defaultdict
from dataclasses import dataclass

SEVERITY_WEIGHT = {"error": 3, "warning": 1}


@dataclass
class Problem:
    env_id: str
    section: str  # correctness, difficulty or diversity
    reason: str  # a short stable code, e.g. "nondeterministic"
    severity: str  # "error" (the env is wrong) or "warning" (the env is weak)
    detail: str


def rank_envs(problems: list[Problem]) -> list[dict]:
    """Envs with problems, worst first: by summed severity weight, then by name."""
    by_env: dict[str, list[Problem]] = defaultdict(list)
    for problem in problems:
        by_env[problem.env_id].append(problem)
    ranked = [
        {
            "env_id": env_id,
            "score": sum(SEVERITY_WEIGHT[p.severity] for p in found),
            "reasons": sorted({p.reason for p in found}),
        }
        for env_id, found in by_env.items()
    ]
    return sorted(ranked, key=lambda row: (-row["score"], row["env_id"]))
