"""Completing and checking the parsed flags before OAT sees them (no OAT import needed).

The games are the data, so OAT's prompt dataset and reward oracle are switched off; PERPO scores
turns by Monte-Carlo returns, so the value-critic variant of OAT's PPO is refused. ``--rnd-seed`` is
drawn here, once, so that actors and learners (separate processes) share the same seed. As in GEM's
and GymVerse's OAT scripts, a step's rollout batch is one per-device batch per learner.
"""

import logging
import time
from collections.abc import Callable

from gymverse.errors import BadInput
from gymverse.run.config import eval_env_ids, train_env_ids, validate_run_config

MC_CRITICS = ("drgrpo", "grpo")


def prepare_args(args, now_ns: Callable[[], int] = time.time_ns):
    """Validate ``args`` (our OAT args class) and fill in what OAT needs; raises :class:`BadInput`."""
    validate_run_config(args)
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
    args.algo = "PPO"
    args.oracle = ""
    args.prompt_data = ""
    if args.rnd_seed:
        args.seed = now_ns() % 2**32
        args.rnd_seed = False
    return args


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
