"""The one success rule of the env contract.

An episode is won when its last step's ``info["success"]`` says so. Games that never set it (every
game GymVerse synthesized) are judged by GymVerse's rule instead: the last reward is 1. Rollouts,
the env checker, the audit, evaluation and curricula all read success through :func:`episode_success`.
"""

from typing import Any

from gymverse.env.values import is_bool

INFERRED_NOTE = "success inferred from the reward (the game sets no info['success'])"


def success_is_reported(info: dict[str, Any] | None) -> bool:
    """Whether the game itself said if the episode was won."""
    return isinstance(info, dict) and "success" in info


def episode_success(info: dict[str, Any] | None, last_reward: float) -> bool:
    """Was the episode won? ``info`` and ``last_reward`` are those of its last step. A ``success`` that is not
    a bool (``"no"``, 1) is no win: the checker refuses such a game, and nothing reads it as truthy text."""
    if info is not None and success_is_reported(info):
        return is_bool(info["success"]) and bool(info["success"])
    return last_reward == 1.0
