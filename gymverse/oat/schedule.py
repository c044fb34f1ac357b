"""Who plays what: the environments of each actor step, the seeds of each actor's games, eval shares."""

from collections.abc import Sequence


def step_env_ids(env_ids: Sequence[str], step: int, env_sampling: str) -> list[str]:
    """The environments actor step ``step`` (counted from 0) plays.

    ``round_robin`` is GymVerse's: one environment per step, in turn, the same on every actor, so a
    learning batch holds one environment. ``mixed`` plays all of them every step.
    """
    if env_sampling == "round_robin":
        return [env_ids[step % len(env_ids)]]
    if env_sampling == "mixed":
        return list(env_ids)
    raise ValueError(f"unknown env_sampling {env_sampling!r}; choose round_robin or mixed")


def env_group_seed(seed: int, actor_id: int, group_index: int, num_groups: int, num_env: int) -> int:
    """Seed of the first copy of env group ``group_index`` on actor ``actor_id`` (copy ``i`` gets ``+ i``):
    every copy of every group on every actor plays its own random stream."""
    return seed + (actor_id * num_groups + group_index) * num_env


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` items shared by ``parts`` workers, the first ones taking one more when it does not divide."""
    if parts < 1:
        raise ValueError(f"need at least one worker, got {parts}")
    return [total // parts + (i < total % parts) for i in range(parts)]
