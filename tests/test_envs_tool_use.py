"""Behaviour of the tool_use games: solvable at every level, harder as complexity grows, deterministic, robust."""

import random

import pytest

from gymverse.envs.tool_use.api_token_chain import ApiTokenChain
from gymverse.envs.tool_use.bank_reconciliation import BankReconciliation
from gymverse.envs.tool_use.file_system_hunt import FileSystemHunt
from gymverse.envs.tool_use.flight_booking import FlightBooking
from gymverse.envs.tool_use.meeting_scheduler import MeetingScheduler
from gymverse.envs.tool_use.warehouse_fulfillment import WarehouseFulfillment

from episodes import play

GAMES = [BankReconciliation, FileSystemHunt, MeetingScheduler, FlightBooking, WarehouseFulfillment, ApiTokenChain]

# A final command that is wrong in the episode's current state (each game's losing move).
WRONG_FINAL = {
    BankReconciliation: lambda env: "answer %.2f" % ((env.balance + 1) / 100),
    FileSystemHunt: lambda env: "answer " + "Z" * 3 * len(env.parts),
    MeetingScheduler: lambda env: "book %d %s" % (env.answer[0] + 1, "09:00" if env.answer[1] else "09:30"),
    FlightBooking: lambda env: "confirm",
    WarehouseFulfillment: lambda env: "ship",
    ApiTokenChain: lambda env: "answer nobody@corp.example",
}


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
@pytest.mark.parametrize("level", [1, 5, 10, 15, 20])
def test_oracle_wins_at_every_level(game, level):
    env = game(complexity=level)
    for seed in range(4):
        episode = play(env, seed)
        assert episode.success, f"oracle lost at level {level}, seed {seed}"
        assert len(episode.steps) >= 3  # several calls are needed, never a one-shot answer


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_oracle_recovers_after_random_moves(game):
    for seed in range(12):
        env = game(complexity=8, max_turns=400)
        env.reset(seed=seed)
        picker, over = random.Random(seed), False
        for _ in range(8):
            *_, terminated, truncated, _ = env.step(env.random_action(picker))
            if terminated or truncated:
                over = True
                break
        if over:
            continue
        for _ in range(400):
            *_, terminated, truncated, info = env.step(env.oracle_action())
            if terminated or truncated:
                break
        assert info["success"], f"seed {seed}: oracle did not win from a randomly disturbed state"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_higher_levels_need_more_steps_and_beat_the_epsilon_solver(game):
    steps = {level: sum(len(play(game(complexity=level), seed).steps) for seed in range(10)) for level in (1, 10)}
    assert steps[10] >= 2 * steps[1]
    wins = {
        level: sum(play(game(complexity=level), seed, 0.3, agent_seed=seed).success for seed in range(80)) / 80
        for level in (1, 10)
    }
    assert wins[1] - wins[10] >= 0.2, wins


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_same_seed_and_actions_give_the_same_trace(game):
    for level in (3, 12):
        first = play(game(complexity=level), 7, 0.5, agent_seed=1)
        again = play(game(complexity=level), 7, 0.5, agent_seed=1)
        assert first == again
    assert play(game(complexity=3), 8).opening != play(game(complexity=3), 7).opening


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_bad_commands_cost_a_little_and_the_episode_goes_on(game):
    env = game(complexity=5)
    env.reset(seed=0)
    verb = game.example_command.split()[0]
    bad = ["no box here", "\\boxed{}", "\\boxed{xyzzy 1 2}", f"\\boxed{{{verb} 1 2 3 4 5 6 7}}",
           "\\boxed{answer}", "\\boxed{" + "é{}" * 20_000 + "}"]
    for action in bad[: env.max_turns - 1]:
        obs, reward, terminated, truncated, _ = env.step(action)
        assert (reward, terminated, truncated) == (-0.1, False, False), (action[:40], obs)
    assert env.step(env.oracle_action())[1] == 0.0


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_a_wrong_final_command_loses(game):
    env = game(complexity=4)
    env.reset(seed=3)
    obs, reward, terminated, _, info = env.step("\\boxed{%s}" % WRONG_FINAL[game](env))
    assert (reward, terminated, info["success"]) == (0.0, True, False), obs


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_running_out_of_turns_reveals_the_answer(game):
    env = game(complexity=2)
    env.reset(seed=5)
    for _ in range(env.max_turns):
        obs, reward, terminated, truncated, info = env.step("\\boxed{}")
    assert truncated and not terminated and info["success"] is False
    assert env._reveal() in obs
