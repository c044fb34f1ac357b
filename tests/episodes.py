"""Playing one episode of a game with the epsilon-solver, for the per-domain game tests."""

import random
from typing import Any, NamedTuple

from gymverse.env.players import epsilon_solver_move


class Step(NamedTuple):
    action: str
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]


class Episode(NamedTuple):
    success: bool
    opening: str
    steps: list[Step]


def play(env, seed, epsilon=0.0, agent_seed=0) -> Episode:
    """One episode of the solver, which plays a random action instead with probability ``epsilon``."""
    opening, _ = env.reset(seed=seed)
    agent = random.Random(agent_seed)
    steps = []
    while True:
        action = epsilon_solver_move(env, agent, epsilon)
        step = Step(action, *env.step(action))
        steps.append(step)
        if step.terminated or step.truncated:
            return Episode(step.info["success"], opening, steps)
