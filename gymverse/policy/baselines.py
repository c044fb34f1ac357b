"""Policies made of the games themselves: the reference solver, a noisy solver and random play.

They read the unwrapped game passed to ``generate`` (``envs``) and reply with a boxed command; they
have no tokens, so their generations carry text only.
"""

import random
from typing import Any, Sequence

from gymverse.env.checker import random_move
from gymverse.policy.base import Generation


def _games(envs: Sequence[Any] | None, prompts: Sequence[str], who: str) -> Sequence[Any]:
    if envs is None or len(envs) != len(prompts):
        raise ValueError(f"the {who} policy plays from the game state: pass one env per prompt as `envs`")
    return envs


def _oracle(env: Any) -> str:
    if not hasattr(env, "oracle_action"):
        raise TypeError(f"{type(env).__name__} has no reference solver (oracle_action); the oracle cannot play it")
    return env.oracle_action()


class OraclePolicy:
    """Plays each game's reference solver: the best the games allow."""

    def generate(self, prompts: Sequence[str], envs: Sequence[Any] | None = None, stop_at_box=None):
        return [Generation(_oracle(env)) for env in _games(envs, prompts, "oracle")]


class EpsilonOraclePolicy:
    """The reference solver, replaced by a random well-formed command with probability ``epsilon``."""

    def __init__(self, epsilon: float, seed: int | None = None) -> None:
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be within [0, 1], got {epsilon}")
        self.epsilon = epsilon
        self.rng = random.Random(seed)

    def generate(self, prompts: Sequence[str], envs: Sequence[Any] | None = None, stop_at_box=None):
        games = _games(envs, prompts, "epsilon-oracle")
        return [
            Generation(random_move(env, self.rng) if self.rng.random() < self.epsilon else _oracle(env))
            for env in games
        ]


class RandomPolicy:
    """A random well-formed command every turn: the floor any learner should beat."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def generate(self, prompts: Sequence[str], envs: Sequence[Any] | None = None, stop_at_box=None):
        return [Generation(random_move(env, self.rng)) for env in _games(envs, prompts, "random")]
