"""The algorithms games' own rules (the contract every game keeps is tested in test_library.py)."""

import pytest
from episodes import play
from gymverse.envs.algorithms.build_order import BuildOrder
from gymverse.envs.algorithms.counterfeit_coin import CounterfeitCoin, weighings_needed
from gymverse.envs.algorithms.expression_tree import ExpressionTree
from gymverse.envs.algorithms.shortest_path import ShortestPath
from gymverse.envs.algorithms.sorted_matrix_search import SortedMatrixSearch


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
