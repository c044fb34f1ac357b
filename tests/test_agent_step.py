"""The PERPO agent step both in-process trainers take, on scripted episodes and a recording update."""

from types import SimpleNamespace

import pytest

from gymverse.episodes import Episode, Turn
from gymverse.errors import BadInput
from gymverse.run.agent_step import AgentStep
from gymverse.run.env_table import EnvTable

SETTINGS = SimpleNamespace(
    gamma=1.0,
    keep_generation_failed=False,
    non_stop_penalty=0.0,
    non_stop_fixed_reward=None,
    rollout_batch_size=8,
    norm_return=True,
    norm_scope="env",
    group_size=1,
    max_model_len=512,
    generate_max_length=16,
)


def episode(env_id: str, reward: float) -> Episode:
    turn = Turn("p", "r", [1], [2], [-0.1], reward, False)
    return Episode(env_id, 1, [turn], success=reward == 1.0, episode_return=reward, length=1)


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def learn(self, samples, advantages, order) -> dict[str, float]:
        self.calls.append(("learn", [s.env_id for s in samples], list(advantages)))
        return {"loss": 0.5}


def test_a_step_plays_tells_the_curriculum_records_and_learns_from_normalized_returns():
    update, seen = Recorder(), []
    played = [episode("g:A", 1.0), episode("g:A", 0.0), episode("g:B", 0.0), episode("g:B", 0.0)]
    step = AgentStep(SETTINGS, EnvTable(["g:A", "g:B"]), update.learn, seed=0)
    result = step(
        1,
        play=lambda: played,
        advance=lambda rates: seen.append(("advance", rates)),
        record=lambda episodes: seen.append(("record", len(episodes))) or {"logged": len(episodes)},
    )
    assert seen == [("advance", {"g:A": (0.5, 2), "g:B": (0.0, 2)}), ("record", 4)]
    [(_, env_ids, advantages)] = update.calls
    assert env_ids == ["g:A", "g:A", "g:B", "g:B"]
    assert advantages[0] > 0 > advantages[1] and advantages[2:] == [0.0, 0.0]  # each game against its own mean
    assert (result.record, result.stats, result.episodes) == ({"logged": 4}, {"loss": 0.5}, played)


def test_steps_with_nothing_to_learn_stop_the_run_only_after_max_idle_steps_in_a_row():
    update = Recorder()
    step = AgentStep(SETTINGS, EnvTable(["g:A"]), update.learn, seed=0, max_idle_steps=2)

    def take(number: int, rewards: list[float]) -> None:
        step(number, lambda: [episode("g:A", r) for r in rewards], lambda rates: None, lambda episodes: {})

    take(1, [0.0, 0.0])
    take(2, [1.0, 0.0])  # a step with a signal starts the count again
    take(3, [0.0, 0.0])
    with pytest.raises(BadInput, match="nothing to learn: in steps 3-4 every game's turns had the same return"):
        take(4, [1.0, 1.0])
    assert len(update.calls) == 3  # the stopped step never reached the update


def test_without_a_limit_a_step_with_no_turn_learns_nothing_and_goes_on():
    update = Recorder()
    step = AgentStep(SETTINGS, EnvTable(["g:A"]), update.learn, seed=0)
    result = step(1, lambda: [], lambda rates: None, lambda episodes: {})
    assert (result.samples, result.stats, update.calls) == ([], {}, [])
