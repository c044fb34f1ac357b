"""The algorithms games: solvable at every level, harder with complexity, deterministic, robust to bad commands."""

import random

import pytest

from gymverse.envs.algorithms.build_order import BuildOrder
from gymverse.envs.algorithms.counterfeit_coin import CounterfeitCoin, weighings_needed
from gymverse.envs.algorithms.expression_tree import ExpressionTree
from gymverse.envs.algorithms.peak_finder import PeakFinder
from gymverse.envs.algorithms.shortest_path import ShortestPath
from gymverse.envs.algorithms.sorted_matrix_search import SortedMatrixSearch

from episodes import play

GAMES = [PeakFinder, ShortestPath, CounterfeitCoin, SortedMatrixSearch, BuildOrder, ExpressionTree]

# Malformed or out-of-range commands for each game (at level 1), on top of the generic ones below.
BAD_COMMANDS = {
    PeakFinder: ["read", "read 1 2", "read 8", "answer -1", "read x"],
    ShortestPath: ["neighbors", "neighbors 999", "neighbors -1", "answer", "answer -5", "answer 1 2"],
    CounterfeitCoin: ["weigh 1 2", "weigh 1 vs 1", "weigh 1 2 vs 3", "weigh vs", "weigh 0 vs 1", "answer 99"],
    SortedMatrixSearch: ["read 0", "read 0 99", "read -1 0", "answer nowhere", "answer none 1", "read a b"],
    BuildOrder: ["prereqs", "build 999", "build -1", "prereqs 1 2", "build one"],
    ExpressionTree: ["inspect", "inspect 999", "inspect -1", "answer", "answer 1.5", "answer 99999999999"],
}
GENERIC_BAD = ["\\boxed{}", "no box", "\\boxed{dance 3}", "\\boxed{ünï ☃ {nested {x}}}", "\\boxed{" + "9" * 5000 + "}"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
@pytest.mark.parametrize("level", [1, 5, 10, 15, 20])
def test_oracle_wins(game, level):
    env = game(complexity=level)
    for seed in range(4):
        episode = play(env, seed)
        assert episode.success, episode.steps[-1]
        assert all(step.reward >= 0 for step in episode.steps)  # the solver never issues an invalid command


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_epsilon_solver_finds_level_10_harder(game):
    rates = [
        sum(play(game(complexity=level), seed, 0.3, agent_seed=1000 + seed).success for seed in range(60)) / 60
        for level in (1, 10)
    ]
    assert rates[0] >= rates[1] + 0.2, rates


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_same_seed_same_trace(game):
    first, again = (play(game(complexity=6), seed=11, epsilon=0.4, agent_seed=3) for _ in range(2))
    assert first == again
    assert play(game(complexity=6), seed=12, epsilon=0.4, agent_seed=3) != first


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_bad_commands_cost_a_little_and_the_game_goes_on(game):
    env = game()
    env.reset(seed=0)
    env.max_turns = 100
    for command in GENERIC_BAD + ["\\boxed{%s}" % c for c in BAD_COMMANDS[game]]:
        _, reward, terminated, truncated, _ = env.step(command)
        assert (reward, terminated, truncated) == (-0.1, False, False), command
    assert play(env, 0).success  # still a normal game afterwards


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_random_actions_are_well_formed(game):
    env = game(complexity=3)
    picker = random.Random(0)
    for seed in range(10):
        env.reset(seed=seed)
        for _ in range(5):
            _, reward, terminated, truncated, _ = env.step(env.random_action(picker))
            assert reward >= 0
            if terminated or truncated:
                break


@pytest.mark.parametrize("coins", range(3, 41))
def test_counterfeit_oracle_meets_the_weighing_bound(coins):
    """Whatever the fake and its weight, the solver needs no more than Dyson's optimum (3^w - 1) / 2 >= coins."""
    env = CounterfeitCoin()
    for fake in range(1, coins + 1):
        for weight in (1, -1):
            env.reset(seed=0)
            env.params["spare_weighings"] = 0
            env.params["coins"] = coins
            env._new_episode()
            env.fake, env.fake_weight = fake, weight
            env.max_turns = env.turn_limit()
            while not env.done:
                *_, info = env.step(env.oracle_action())
            assert info["success"] and env.used <= weighings_needed(coins), (fake, weight)


def test_spending_past_the_budget_loses():
    env = SortedMatrixSearch()
    env.reset(seed=0)
    cells = [(r, c) for r in range(len(env.grid)) for c in range(len(env.grid[0]))]
    for r, c in cells[: env.budget]:
        assert not env.step("\\boxed{read %d %d}" % (r, c))[2]
    r, c = cells[env.budget]
    _, reward, terminated, _, info = env.step("\\boxed{read %d %d}" % (r, c))
    assert terminated and reward == 0.0 and not info["success"]


def test_building_before_prerequisites_loses():
    env = BuildOrder()
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step("\\boxed{build %d}" % env.goal)  # the goal always needs others
    assert terminated and reward == 0.0 and not info["success"]


def test_shortest_path_oracle_opens_only_towns_closer_than_the_goal():
    env = ShortestPath(complexity=8)
    for seed in range(5):
        success = play(env, seed).success
        goal_distance = env.distance[env.goal]
        assert success and all(env.distance[t] < goal_distance for t in env.opened)


def test_expression_oracle_skips_branches_not_taken():
    env = ExpressionTree(complexity=10)
    skipped = 0
    for seed in range(10):
        assert play(env, seed).success
        skipped += len(env.nodes) - len(env.seen)
    assert skipped > 0
