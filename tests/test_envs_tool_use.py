"""The tool_use games' own rules (the contract every game keeps is tested in test_library.py)."""

import random

import pytest
from episodes import play
from gymverse.envs.tool_use.api_token_chain import ApiTokenChain
from gymverse.envs.tool_use.bank_reconciliation import BankReconciliation
from gymverse.envs.tool_use.file_system_hunt import FileSystemHunt
from gymverse.envs.tool_use.flight_booking import FlightBooking
from gymverse.envs.tool_use.meeting_scheduler import MeetingScheduler
from gymverse.envs.tool_use.warehouse_fulfillment import WarehouseFulfillment

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
def test_a_wrong_final_command_loses(game):
    env = game(complexity=4)
    env.reset(seed=3)
    obs, reward, terminated, _, info = env.step("\\boxed{%s}" % WRONG_FINAL[game](env))
    assert (reward, terminated, info["success"]) == (0.0, True, False), obs
