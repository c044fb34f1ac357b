"""Completing and checking the parsed flags before OAT sees them (no OAT import needed).

The games are the data, so OAT's prompt dataset and reward oracle are switched off; PERPO scores
turns by Monte-Carlo returns, so the value-critic variant of OAT's PPO is refused. ``--rnd-seed`` is
drawn here, once, so that actors and learners (separate processes) share the same seed. As in GEM's
and GymVerse's OAT scripts, a step's rollout batch is one per-device batch per learner.
"""

import logging
import time
from collections.abc import Callable

from gymverse.rollout import split_env_ids
from gymverse.errors import BadInput
from gymverse.train.args import validate_env_args
from gymverse.train.loop import wrappers_spec

MC_CRITICS = ("drgrpo", "grpo")


def prepare_args(args, now_ns: Callable[[], int] = time.time_ns):
    """Validate ``args`` (our OAT args class) and fill in what OAT needs; raises :class:`BadInput`."""
    validate_env_args(args)
    from gem.envs.registration import ENV_REGISTRY

    unknown = [e for e in train_env_ids(args) + eval_env_ids(args) if e not in ENV_REGISTRY]
    if unknown:
        raise BadInput(f"unknown environment id(s) {', '.join(unknown)}; see `gymverse envs` for the registered ones")
    if args.critic_type not in MC_CRITICS:
        raise BadInput(
            f"--critic_type {args.critic_type} learns a value critic; PERPO uses normalized returns, "
            f"choose one of {', '.join(MC_CRITICS)}"
        )
    if args.num_samples != 1:
        raise BadInput(f"--num_samples must be 1 (one reply per turn of an episode), got {args.num_samples}")
    per_step = args.rollout_batch_size_per_device * learner_world_size(args)
    if args.rollout_batch_size != per_step:
        logging.warning(
            "--rollout_batch_size %d is replaced by %d (--rollout_batch_size_per_device times the learner GPUs): "
            "every learner trains on what its actor played in one step, as in GymVerse",
            args.rollout_batch_size, per_step,
        )
        args.rollout_batch_size = per_step
    eval_settings(args)  # raises on a bad --eval_wrappers / --eval_prompt_templates
    args.algo = "PPO"
    args.oracle = ""
    args.prompt_data = ""
    if args.rnd_seed:
        args.seed = now_ns() % 2**32
        args.rnd_seed = False
    return args


def train_env_ids(args) -> list[str]:
    return split_env_ids(args.env_id)


def eval_env_ids(args) -> list[str]:
    """``--eval_envs``, or the training environments when it is empty."""
    return split_env_ids(args.eval_envs) or train_env_ids(args)


def train_wrappers(args) -> str:
    """GEM's wrapper list for the training envs ("none" is no wrapper, as in the native trainer)."""
    return wrappers_spec(args.wrappers)


def eval_levels(args) -> list[int]:
    return [int(level) for level in split_env_ids(args.eval_difficulty)]


def eval_settings(args) -> dict[str, tuple[str, str]]:
    """Wrappers and prompt template of each evaluation environment (an empty flag: the training one;
    one value: for all; else one per environment of ``--eval_envs``, joined by '|')."""
    ids = eval_env_ids(args)

    def per_env(flag: str, default: str) -> list[str]:
        spec = getattr(args, flag)
        values = [v.strip() for v in spec.split("|")] if spec.strip() else [default]
        if len(values) == 1:
            return values * len(ids)
        if len(values) != len(ids):
            raise BadInput(f"--{flag} has {len(values)} values for {len(ids)} evaluation environments")
        return values

    wrappers = [wrappers_spec(w) for w in per_env("eval_wrappers", args.wrappers)]
    return dict(zip(ids, zip(wrappers, per_env("eval_prompt_templates", args.prompt_template))))


def learner_world_size(args) -> int:
    """Learner processes of the run: every GPU when collocated, else OAT gives half (rounded up) to actors."""
    per_group = args.gpus if args.collocate else args.gpus - args.gpus // 2
    return per_group * args.num_groups


def prompt_slots(args) -> int:
    """How many empty prompts stand in for OAT's prompt dataset.

    OAT sizes its learning-rate schedule as ``len(prompts) * max_epochs // train_batch_size`` optimizer
    steps; the run makes ``max_train * num_ppo_epochs // train_batch_size`` of them (every turn is
    trained on ``num_ppo_epochs`` times), and stops after ``max_train`` turns whatever is left.
    """
    return args.max_train * args.num_ppo_epochs // args.max_epochs
