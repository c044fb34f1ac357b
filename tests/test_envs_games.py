"""The board and puzzle games' own rules (the contract every game keeps is tested in test_library.py)."""

import itertools
import math
import random

import pytest
from episodes import play
from gymverse.envs.games.battleship import Battleship
from gymverse.envs.games.code_lock import CodeLock, score
from gymverse.envs.games.hot_cold_treasure import HotColdTreasure, compare
from gymverse.envs.games.key_door_dungeon import KeyDoorDungeon
from gymverse.envs.games.lights_out import LightsOut, fewest_presses, press_mask
from gymverse.envs.games.take_away_duel import TakeAwayDuel, grundy_table

# Budgets are counted at reset without playing the solver: each must be what the solver spends plus the spare moves.
BUDGET_FROM_SOLVER_MOVES = {
    CodeLock: lambda env, moves: moves + env.params["spare_guesses"],
    HotColdTreasure: lambda env, moves: moves + env.params["spare_digs"],
    LightsOut: lambda env, moves: moves + env.params["spare_presses"],
    KeyDoorDungeon: lambda env, moves: moves + math.ceil(moves * env.params["spare_percent"] / 100),
}


@pytest.mark.parametrize("game", BUDGET_FROM_SOLVER_MOVES, ids=lambda g: g.__name__)
@pytest.mark.parametrize("level", [1, 4, 8, 14])
def test_budget_is_what_the_solver_spends_plus_the_spare_moves(game, level):
    env = game(complexity=level)
    for seed in range(40):
        episode = play(env, seed)
        assert episode.success
        assert env.budget == BUDGET_FROM_SOLVER_MOVES[game](env, len(episode.steps)), f"seed {seed}"


def test_code_lock_scores_repeated_symbols_once():
    assert score("AABC", "ABCA") == (1, 3)
    assert score("AAAA", "ABBB") == (1, 0)
    assert score("ABCD", "DCBA") == (0, 4)


def test_hot_cold_compares_grid_distances():
    assert compare((5, 5), (0, 0), (3, 3)) == "warmer"
    assert compare((5, 5), (3, 3), (0, 9)) == "colder"
    assert compare((5, 5), (5, 0), (5, 10)) == "same"


def test_lights_out_plan_is_the_smallest_that_clears_the_board():
    rows, cols = 3, 4
    masks = [press_mask(rows, cols, cell) for cell in range(rows * cols)]
    rng = random.Random(0)
    for _ in range(20):
        lit = 0
        for cell in rng.sample(range(rows * cols), 5):
            lit ^= masks[cell]
        plan = fewest_presses(rows, cols, lit)
        after = lit
        for cell in range(rows * cols):
            if plan >> cell & 1:
                after ^= masks[cell]
        assert after == 0
        smallest = min(
            size
            for size in range(rows * cols + 1)
            for chosen in itertools.combinations(masks, size)
            if _xor(chosen) == lit
        )
        assert plan.bit_count() == smallest


def _xor(masks):
    total = 0
    for mask in masks:
        total ^= mask
    return total


def test_take_away_grundy_values_follow_the_known_pattern():
    assert grundy_table(12, [1, 2, 3]) == [n % 4 for n in range(13)]
    assert grundy_table(7, [1, 3, 4]) == [0, 1, 0, 1, 2, 3, 2, 0]


def test_take_away_opponent_at_full_skill_punishes_one_mistake():
    env = TakeAwayDuel(complexity=12)  # opponent skill is capped at 1.0 from level 10 on
    punished = 0
    for seed in range(10):
        env.reset(seed=seed)
        legal = [(i, t) for i, h in enumerate(env.heaps) for t in env.takes if t <= h]
        mistakes = [(i, t) for i, t in legal if env._value([h - t * (j == i) for j, h in enumerate(env.heaps)])]
        if not mistakes:  # every move wins from here
            continue
        env.step("\\boxed{take %d %d}" % mistakes[0])
        while not env.done:
            *_, info = env.step(env.oracle_action())
        assert not info["success"]
        punished += 1
    assert punished >= 5


@pytest.mark.parametrize("complexity", [15, 100])
def test_battleship_fleets_never_touch_and_each_ship_knows_its_cells_and_surroundings(complexity):
    env = Battleship(complexity=complexity)
    for seed in range(4):
        env.reset(seed=seed)
        bits = {1 << (r * env.size + c): (r, c) for r, c in env.sea.cells}
        for i, ship in enumerate(env.fleet):
            cells = {bits[bit] for bit in bits if ship.mask & bit}
            around = {bits[bit] for bit in bits if ship.halo & bit}
            assert cells == set(ship.cells)
            assert around == {
                (r, c) for r, c in env.sea.cells if any(max(abs(r - a), abs(c - b)) <= 1 for a, b in cells)
            }  # one step, diagonals too
            assert not any(env.ship_at.get(cell, i) != i for cell in around)


def test_battleship_repeated_shot_is_wasted():
    env = Battleship(complexity=1)
    env.reset(seed=0)
    env.step("\\boxed{fire 0 0}")
    observation, reward, *_ = env.step("\\boxed{fire 0 0}")
    assert "wasted" in observation and reward == 0.0 and env.fired == 2


def test_dungeon_locked_door_needs_its_key():
    env = KeyDoorDungeon(complexity=5)
    env.reset(seed=0)
    (room, beyond), color = next(iter(env.doors.items()))
    direction = next(d for d, nxt in env.exits[room].items() if nxt == beyond)
    env.pos = room
    observation, *_ = env.step("\\boxed{go %s}" % direction)
    assert "locked" in observation and env.pos == room and env.moves == 1
    env.held.append(color)
    observation, *_ = env.step("\\boxed{go %s}" % direction[0])
    assert f"unlock the {color} door" in observation and env.pos == beyond
