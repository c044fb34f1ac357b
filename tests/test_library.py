"""Every built-in game passes the checker, and complexity means difficulty."""

import random

import gem
import pytest

import gymverse  # noqa: F401  (registers the library)
from gymverse.env import builtin_env_classes
from gymverse.env.checker import check_env
from gymverse.env.players import epsilon_solver_move
from gymverse.envs import DOMAINS

GAMES = [f"gymverse:{cls.__name__}" for cls in builtin_env_classes()]


def epsilon_solver_success(env_id: str, level: int, episodes: int, epsilon: float = 0.3) -> float:
    env = gem.make(env_id, complexity=level)
    picker = random.Random(level)
    wins = 0
    for seed in range(episodes):
        env.reset(seed=seed)
        while True:
            *_, terminated, truncated, info = env.step(epsilon_solver_move(env, picker, epsilon))
            if terminated or truncated:
                wins += info["success"]
                break
    return wins / episodes


def test_library_has_six_games_in_each_domain():
    by_domain = {d: [c.__name__ for c in builtin_env_classes() if c.domain == d] for d in DOMAINS}
    assert all(len(names) >= 6 for names in by_domain.values()), by_domain
    assert {c.domain for c in builtin_env_classes()} <= set(DOMAINS)


@pytest.mark.parametrize("env_id", GAMES)
def test_game_passes_the_checker_at_levels_1_to_20(env_id):
    report = check_env(env_id, levels=range(1, 21), seeds=20)
    assert report.verdict == "pass", str(report)  # built-in games earn no warning either


@pytest.mark.parametrize("env_id", GAMES)
def test_epsilon_solver_finds_level_10_harder_than_level_1(env_id):
    easy, hard = (epsilon_solver_success(env_id, level, episodes=60) for level in (1, 10))
    assert hard < easy, f"epsilon-solver success: level 1 {easy:.2f}, level 10 {hard:.2f}"


@pytest.mark.parametrize("env_id", GAMES)
def test_opening_observation_teaches_the_commands(env_id):
    observation, info = gem.make(env_id, complexity=3).reset(seed=0)
    assert "\\boxed{" in observation and len(observation) > 80
    assert isinstance(info["suffix"], str)
