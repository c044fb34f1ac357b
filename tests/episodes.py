"""Playing one episode of a game with the epsilon-solver, for the per-domain game tests."""

import random


def play(env, seed, epsilon=0.0, agent_seed=0):
    """One episode of the epsilon-solver; returns (success, [(observation, reward), ...])."""
    observation, _ = env.reset(seed=seed)
    agent = random.Random(agent_seed)
    trace = [(observation, 0.0)]
    while True:
        action = env.random_action(agent) if agent.random() < epsilon else env.oracle_action()
        observation, reward, terminated, truncated, info = env.step(action)
        trace.append((observation, reward))
        if terminated or truncated:
            return info["success"], trace
