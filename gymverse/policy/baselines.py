"""Policies made of the games themselves: the reference solver, a noisy solver and random play.

They read the unwrapped game passed to ``generate`` (``envs``) and reply with a boxed command; they
have no tokens, so their generations carry text only. Their moves are the env contract's players
(:mod:`gymverse.env.players`); the random ones draw from the ``rngs`` passed to ``generate``, one
per prompt, else from the policy's own stream.
"""

import random
from typing import Any, Sequence

from gymverse.env.players import epsilon_solver_move, random_move
from gymverse.policy.base import Generation


def _streams(rngs: Sequence[random.Random] | None, own: random.Random, count: int) -> Sequence[random.Random]:
    if rngs is None:
        return [own] * count
    if len(rngs) != count:
        raise ValueError(f"pass one rng per prompt: {count} prompts, {len(rngs)} rngs")
    return rngs


def _games(envs: Sequence[Any] | None, prompts: Sequence[str], who: str, solver: bool = False) -> Sequence[Any]:
    if envs is None or len(envs) != len(prompts):
        raise ValueError(f"the {who} policy plays from the game state: pass one env per prompt as `envs`")
    for env in envs if solver else ():
        if not hasattr(env, "oracle_action"):
            raise TypeError(
                f"{type(env).__name__} has no reference solver (oracle_action); the {who} policy cannot play it"
            )
    return envs


class OraclePolicy:
    """Plays each game's reference solver: the best the games allow."""

    plays_the_solver = True

    def generate(self, prompts: Sequence[str], envs: Sequence[Any] | None = None, stop_at_box=None, rngs=None):
        return [Generation(env.oracle_action()) for env in _games(envs, prompts, "oracle", solver=True)]


class EpsilonOraclePolicy:
    """The reference solver, replaced by a random well-formed command with probability ``epsilon``."""

    plays_the_solver = True

    def __init__(self, epsilon: float, seed: int | None = None) -> None:
        if not 0 <= epsilon <= 1:
            raise ValueError(f"epsilon must be within [0, 1], got {epsilon}")
        self.epsilon = epsilon
        self.rng = random.Random(seed)

    def generate(self, prompts: Sequence[str], envs: Sequence[Any] | None = None, stop_at_box=None, rngs=None):
        games = _games(envs, prompts, "epsilon-oracle", solver=True)
        streams = _streams(rngs, self.rng, len(games))
        return [Generation(epsilon_solver_move(env, rng, self.epsilon)) for env, rng in zip(games, streams)]


class RandomPolicy:
    """A random well-formed command every turn: the floor any learner should beat."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def generate(self, prompts: Sequence[str], envs: Sequence[Any] | None = None, stop_at_box=None, rngs=None):
        games = _games(envs, prompts, "random")
        return [Generation(random_move(env, rng)) for env, rng in zip(games, _streams(rngs, self.rng, len(games)))]
