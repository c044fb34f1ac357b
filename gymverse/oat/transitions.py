"""From played episodes to the per-turn training records an OAT actor hands to the learners.

Each turn becomes one record (prompt, response, token ids, sampling log-probs) whose reward list
has one entry per response token: zeros, then the turn's discounted return ``G_t`` on the last
token, which is where OAT's PPO learner reads a response's reward. The environment id travels
with the record because the learner normalizes returns per environment.
"""

import random
from collections.abc import Callable, Sequence

import numpy as np

from gymverse.perpo import discounted_returns
from gymverse.rollout import Episode

# The fields of OAT's TransitionData that turn_records fills (the contract check holds OAT to them).
TRANSITION_FIELDS = ("prompt", "prompt_ids", "response", "response_ids", "response_logprobs", "rewards", "loss_mask")

# Summary of one actor step, attached to every record; OAT averages it across records and ranks,
# so the keys must not depend on what was played.
STEP_INFO_KEYS = (
    "actor/num_episodes", "actor/mean_episode_len", "actor/mean_episode_success", "actor/mean_episode_return",
    "actor/mean_complexity", "actor/context_overflow_rate", "actor/invalid_turn_rate",
)


def turn_records(episode: Episode, gamma: float, ignore_no_eos: bool = False) -> list[dict]:
    """Keyword arguments of OAT's ``TransitionData`` (plus ``env_id``) for each turn of ``episode``.

    A turn without response tokens cannot carry a reward and is left out. With ``ignore_no_eos``
    (OAT's flag) a reply cut by the length limit stays in the batch but is masked out of the loss.
    """
    returns = discounted_returns([turn.reward for turn in episode.turns], gamma)
    records = []
    for turn, turn_return in zip(episode.turns, returns):
        if not turn.response_ids:
            continue
        rewards = [0.0] * len(turn.response_ids)
        rewards[-1] = turn_return
        records.append(dict(
            prompt=turn.prompt, prompt_ids=list(turn.prompt_ids), response=turn.response,
            response_ids=list(turn.response_ids), response_logprobs=list(turn.logprobs), rewards=rewards,
            loss_mask=not (ignore_no_eos and turn.invalid), env_id=episode.env_id,
        ))
    return records


def trainable(episode: Episode, keep_generation_failed: bool = False) -> bool:
    """Episodes cut short because the prompt outgrew ``max_model_len`` train only when asked to."""
    return keep_generation_failed or episode.ended_by != "context_overflow"


def play_until(
    env_ids: Sequence[str],
    play: Callable[[str], list[Episode]],
    min_turns: int,
    keep_generation_failed: bool = False,
    max_rounds: int = 1000,
) -> list[Episode]:
    """Call ``play(env_id)`` over ``env_ids`` in turn (each at least once) until the trainable
    episodes hold ``min_turns`` turns with a response; every played episode is returned."""
    episodes: list[Episode] = []
    turns = 0
    for round_ in range(max_rounds):
        played = play(env_ids[round_ % len(env_ids)])
        episodes += played
        turns += sum(1 for e in played if trainable(e, keep_generation_failed) for t in e.turns if t.response_ids)
        if turns >= min_turns and round_ + 1 >= len(env_ids):
            return episodes
    raise RuntimeError(
        f"{max_rounds} rounds of episodes gave only {turns} trainable turns, fewer than the {min_turns} a step needs"
    )


def take(records: list[dict], count: int, rng: random.Random) -> list[dict]:
    """Exactly ``count`` records, drawn without replacement (OAT expects a fixed number per step)."""
    if len(records) < count:
        raise ValueError(f"need {count} turns but the episodes have {len(records)}")
    chosen = sorted(rng.sample(range(len(records)), count))
    return [records[i] for i in chosen]


def step_info(episodes: Sequence[Episode]) -> dict[str, float]:
    """The step summary (keys :data:`STEP_INFO_KEYS`) of the episodes one actor step played."""
    turns = [t for e in episodes for t in e.turns]
    return {
        "actor/num_episodes": float(len(episodes)),
        "actor/mean_episode_len": _mean([e.length for e in episodes]),
        "actor/mean_episode_success": _mean([float(e.success) for e in episodes]),
        "actor/mean_episode_return": _mean([e.episode_return for e in episodes]),
        "actor/mean_complexity": _mean([e.complexity or 0 for e in episodes]),
        "actor/context_overflow_rate": _mean([float(e.ended_by == "context_overflow") for e in episodes]),
        "actor/invalid_turn_rate": _mean([float(t.invalid) for t in turns]),
    }


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else 0.0
