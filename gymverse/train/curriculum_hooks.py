"""From a batch's episodes to each environment's next complexity, applied to the games themselves."""

from typing import Any, Mapping, Sequence

from gymverse.curriculum import Curriculum
from gymverse.env import set_env_complexity


def apply_curriculum(
    curriculum: Curriculum, episodes_by_env: Mapping[str, Sequence[Any]], env_groups: Mapping[str, Any],
) -> dict[str, int]:
    """Feed each environment's success rate in this batch to ``curriculum`` and set its next complexity.

    ``env_groups`` maps env ids to (vector) envs; :func:`gymverse.env.set_env_complexity` reaches the
    game through wrappers and vector envs, and third-party envs registered behind
    ``RebuildOnComplexity`` are rebuilt. The change takes effect at each env's next reset.
    Environments without episodes in this batch keep their level.
    """
    levels = {}
    for env_id, episodes in episodes_by_env.items():
        if not episodes:
            continue
        rate = sum(bool(e.success) for e in episodes) / len(episodes)
        levels[env_id] = curriculum.update(env_id, rate, len(episodes))
        set_env_complexity(env_groups[env_id], levels[env_id])
    return levels
