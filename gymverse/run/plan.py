"""One training step's plan, the same on every trainer: what to play, how much, and what to learn from.

A step ``step`` (counted from 1) plays :func:`step_env_ids` (one environment in turn with
``round_robin``, GymVerse's behaviour, or all of them with ``mixed``). :func:`play_until` plays each
of them until its trainable episodes hold the step's share of turns; :func:`turn_samples` turns the
episodes into one :class:`TurnSample` per trainable turn with its discounted return, and
:func:`take` draws the step's batch from them (:func:`step_samples` does both with the config's flags). The seeds of the games come from
``gymverse.seeds``, so that a resumed run replays what an uninterrupted one would have played.

    plan = plan_step(env_ids, step, "round_robin", turns=48)
    episodes = play_until(plan, play)                 # play(env_id, call) -> list[Episode]
    samples = step_samples(config, [e for played in episodes.values() for e in played], plan.turns, rng)
"""

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gymverse.perpo import discounted_returns
from gymverse.run.settings import ReturnSettings


def group_seeds(seed: int, num_env: int, group_size: int) -> int | list[int]:
    """Reset seeds of one env group's copies: copy ``i`` gets ``seed + i``, or, in blocks of ``group_size``,
    ``seed + i // group_size``, so the copies of a block begin from the same instance."""
    return seed if group_size == 1 else [seed + i // group_size for i in range(num_env)]


def step_env_ids(env_ids: Sequence[str], step: int, env_sampling: str) -> list[str]:
    """The environments step ``step`` (counted from 1) plays.

    ``round_robin`` is GymVerse's: one environment per step, in turn, the same on every actor, so a
    learning batch holds one environment. ``mixed`` plays all of them every step.
    """
    if env_sampling == "round_robin":
        return [env_ids[(step - 1) % len(env_ids)]]
    if env_sampling == "mixed":
        return list(env_ids)
    raise ValueError(f"unknown env_sampling {env_sampling!r}; choose round_robin or mixed")


@dataclass(frozen=True)
class StepPlan:
    """Step ``step`` plays ``env_ids`` until each holds ``turns_per_env`` trainable turns; it trains on ``turns``."""

    step: int
    env_ids: list[str]
    turns: int
    keep_generation_failed: bool = False

    @property
    def turns_per_env(self) -> int:
        return math.ceil(self.turns / len(self.env_ids))


def plan_step(
    env_ids: Sequence[str], step: int, env_sampling: str, turns: int, keep_generation_failed: bool = False
) -> StepPlan:
    return StepPlan(step, step_env_ids(env_ids, step, env_sampling), turns, keep_generation_failed)


def trainable(episode: Any, keep_generation_failed: bool = False) -> bool:
    """Episodes cut short because the prompt outgrew ``max_model_len`` train only when asked to."""
    return keep_generation_failed or episode.ended_by != "context_overflow"


def trainable_turns(episodes: Sequence[Any], keep_generation_failed: bool = False) -> int:
    """Turns with a reply in the trainable episodes (the turns a step can learn from)."""
    return sum(1 for e in episodes if trainable(e, keep_generation_failed) for t in e.turns if t.response_ids)


def play_until(plan: StepPlan, play: Callable[[str, int], list[Any]]) -> dict[str, list[Any]]:
    """Every episode the step plays, per environment: ``play(env_id, call)`` (``call`` counts from 0)
    until the environment's trainable episodes hold ``plan.turns_per_env`` turns.

    A call that adds no trainable turn (every prompt outgrew the context before its episode ended) ends
    that environment's share early: the step learns from what it has, rather than asking again a policy
    that cannot yet fit a game in its context.
    """
    played: dict[str, list[Any]] = {}
    for env_id in plan.env_ids:
        episodes: list[Any] = []
        have, call = 0, 0
        while have < plan.turns_per_env:
            episodes += play(env_id, call)
            call += 1
            have, before = trainable_turns(episodes, plan.keep_generation_failed), have
            if have == before:
                break
        played[env_id] = episodes
    return played


@dataclass
class TurnSample:
    """One turn to learn from: the played turn (prompt, reply, token ids, sampling log-probs) and its return."""

    env_id: str
    turn: Any
    ret: float
    copy: int = 0  # the env group's copy that played the episode (its group, with --group_size)


def turn_samples(
    episodes: Sequence[Any],
    gamma: float,
    keep_generation_failed: bool = False,
    non_stop_penalty: float = 0.0,
    non_stop_fixed_reward: float | None = None,
) -> list[TurnSample]:
    """Every trainable turn of ``episodes`` with its discounted return ``G_t = r_t + gamma * G_{t+1}``
    (a turn without reply tokens cannot carry a reward and is left out).

    A turn whose reply was cut at the length limit (``turn.truncated_reply``) has reward
    ``non_stop_fixed_reward`` instead of the game's when that is given, plus ``non_stop_penalty``,
    as OAT's flags of those names do for a reply without an end-of-sequence token.
    """

    def reward(turn: Any) -> float:
        if not turn.truncated_reply:
            return turn.reward
        base = turn.reward if non_stop_fixed_reward is None else non_stop_fixed_reward
        return base + non_stop_penalty

    samples = []
    for episode in episodes:
        if not trainable(episode, keep_generation_failed):
            continue
        returns = discounted_returns([reward(turn) for turn in episode.turns], gamma)
        samples += [
            TurnSample(episode.env_id, turn, ret, episode.copy)
            for turn, ret in zip(episode.turns, returns)
            if turn.response_ids
        ]
    return samples


def step_samples(config: ReturnSettings, episodes: Sequence[Any], count: int, rng: random.Random) -> list[TurnSample]:
    """The step's batch: ``count`` of the episodes' turns to learn from, returns as the config's flags say
    (``--gamma``, ``--keep_generation_failed``, ``--non_stop_penalty``, ``--non_stop_fixed_reward``)."""
    samples = turn_samples(
        episodes, config.gamma, config.keep_generation_failed, config.non_stop_penalty, config.non_stop_fixed_reward
    )
    return take(samples, count, rng)


def take(samples: Sequence[Any], count: int, rng: random.Random) -> list[Any]:
    """``count`` of ``samples`` drawn without replacement, in their order (all of them when there are fewer)."""
    if len(samples) <= count:
        return list(samples)
    return [samples[i] for i in sorted(rng.sample(range(len(samples)), count))]
