"""Why a training step had nothing to learn from, and what to change: a run that learns nothing says so.

A step learns nothing when none of its turns can carry a gradient: every episode's prompt outgrew the context
before a reply (``context_overflow``), every reply was cut at the generation length (the game saw an invalid
action, whatever the model meant), or the returns were equal within every set of turns normalized together
(each game's for PERPO, the batch's or each group's with ``--norm_scope``): the advantages are then all 0. :func:`nothing_to_learn` names the first of these that holds, with the flag to change and the size
it would need; the trainer stops after ``--max_idle_steps`` such steps in a row instead of saving checkpoints of
an unchanged model.
"""

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from gymverse.run.config import RunConfig
from gymverse.run.env_table import normalization_keys


def nothing_to_learn(episodes: Sequence[Any], samples: Sequence[Any], config: RunConfig) -> str | None:
    """Why ``samples`` (the step's :class:`gymverse.run.plan.TurnSample` s, drawn from ``episodes``) teach
    nothing, or None when some turn carries a signal."""
    if not episodes:
        return "no episode was played"
    overflowed = [e for e in episodes if e.ended_by == "context_overflow" and not any(t.response_ids for t in e.turns)]
    if len(overflowed) == len(episodes):
        longest = max(e.overflow_tokens for e in overflowed)
        return (
            f"every episode ({len(episodes)}) ended at its first prompt, which outgrew the context "
            f"(--max_model_len {config.max_model_len}; the longest prompt has {longest} tokens): "
            f"give --max_model_len {longest + config.generate_max_length} or more, "
            f"or a shorter prompt (--prompt_template, --wrappers)"
        )
    if not samples:
        return (
            f"no episode left a turn to learn from (every one outgrew --max_model_len {config.max_model_len} "
            f"before it ended): raise --max_model_len, or pass --keep_generation_failed to learn from them"
        )
    if all(s.turn.truncated_reply for s in samples):
        return (
            f"every reply was cut at --generate_max_length {config.generate_max_length} tokens, so the games "
            f"only saw invalid actions: raise --generate_max_length (e.g. {4 * config.generate_max_length})"
        )
    returns: dict[str, set[float]] = defaultdict(set)
    for key, sample in zip(normalization_keys(samples, config.norm_scope, config.group_size), samples):
        returns[key].add(round(sample.ret, 9))
    flat = all(len(values) == 1 for values in returns.values())
    if flat and (config.norm_return or all(values == {0.0} for values in returns.values())):
        same = ", ".join(f"{key} {next(iter(values)):g}" for key, values in sorted(returns.items()))
        unit = {"env": "game", "batch": "batch", "group": "group"}[config.norm_scope]
        return (
            f"every {unit}'s turns had the same return ({same}), so every advantage is 0 (--norm_return subtracts "
            f"each {unit}'s mean): the model never "
            f"does better or worse than itself; start it where it sometimes wins (a warm start, --sft_episodes, "
            f"on games with a solver; a lower --train_difficulty; or a stronger --pretrain)"
        )
    return None
