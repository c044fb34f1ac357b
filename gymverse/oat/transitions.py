"""From the turns to learn from (``gymverse.run.plan.turn_samples``) to the records an OAT actor hands to the learners.

Each turn becomes one record: OAT's fields (prompt, response, token ids, sampling log-probs, and a reward
list with one entry per response token, zeros then the turn's discounted return ``G_t`` on the last token,
where OAT's own PPO code reads a reply's reward for its statistics and KL rewards), plus two fields of our
own, the turn's environment and its return, which the learner reads to normalize returns per environment.
"""

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from gymverse.episodes import Episode
from gymverse.run.plan import TurnSample, plan_step, play_until, step_samples

if TYPE_CHECKING:  # the class needs OAT installed; this module does not
    from gymverse.oat.args import OATPerpoArgs

# The fields of OAT's TransitionData that transition_fields fills (the contract check holds OAT to them).
TRANSITION_FIELDS = ("prompt", "prompt_ids", "response", "response_ids", "response_logprobs", "rewards", "loss_mask")
# The fields gymverse.oat.records.GameTransition adds to them (OAT's must not already have them).
GAME_FIELDS = ("env_id", "turn_return")

# Summary of one actor step, attached to every record; OAT averages it across records and ranks,
# so the keys must not depend on what was played.
STEP_INFO_KEYS = (
    "actor/num_episodes",
    "actor/mean_episode_len",
    "actor/mean_episode_success",
    "actor/mean_episode_return",
    "actor/mean_complexity",
    "actor/context_overflow_rate",
    "actor/truncated_reply_rate",
)


def transition_fields(sample: TurnSample, ignore_no_eos: bool = False) -> dict:
    """Keyword arguments of ``GameTransition`` (OAT's ``TransitionData`` and :data:`GAME_FIELDS`) for one turn
    to learn from.

    With ``ignore_no_eos`` (OAT's flag) a reply cut by the length limit stays in the batch but is
    masked out of the loss.
    """
    turn = sample.turn
    rewards = [0.0] * len(turn.response_ids)
    rewards[-1] = sample.ret
    return dict(
        prompt=turn.prompt,
        prompt_ids=list(turn.prompt_ids),
        response=turn.response,
        response_ids=list(turn.response_ids),
        response_logprobs=list(turn.logprobs),
        rewards=rewards,
        loss_mask=not (ignore_no_eos and turn.truncated_reply),
        env_id=sample.env_id,
        turn_return=sample.ret,
    )


def play_step(
    args: "OATPerpoArgs",
    env_ids: Sequence[str],
    step: int,
    num_prompts: int,
    play: Callable[[str, int], list[Episode]],
    ledger: Any,
    rng: random.Random,
) -> list[dict]:
    """What one actor step hands the learners: one record per prompt it was given.

    OAT's collector gives an actor the prompts of every learner rank it serves (``--num_gpus_per_actor``
    ranks) and splits the records among them in that proportion, so the step plays until it holds
    ``num_prompts`` trainable turns; the episodes go to ``ledger`` (an ``ActorLedger``).
    """
    plan = plan_step(env_ids, step, args.env_sampling, num_prompts, args.keep_generation_failed)
    episodes = [e for played in play_until(plan, play).values() for e in played]
    ledger.record(step, episodes)
    samples = step_samples(args, episodes, num_prompts, rng)
    if len(samples) < num_prompts:
        raise RuntimeError(f"step {step} played {len(samples)} trainable turns, fewer than the {num_prompts} asked")
    info = step_info(episodes)
    return [dict(transition_fields(sample, args.ignore_no_eos), info=dict(info)) for sample in samples]


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
        "actor/truncated_reply_rate": _mean([float(t.truncated_reply) for t in turns]),
    }


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else 0.0
