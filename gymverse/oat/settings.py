"""Completing and checking the parsed flags before OAT sees them (no OAT import needed).

The games are the data, so OAT's prompt dataset and reward oracle are switched off; PERPO scores
turns by Monte-Carlo returns, so the value-critic variant of OAT's PPO is refused. ``--rnd-seed`` is
drawn here, once, so that actors and learners (separate processes) share the same seed. As in GEM's
and GymVerse's OAT scripts, a step's rollout batch is one per-device batch per learner, and the
learners' buffer holds exactly one step. The GPU layout is checked against OAT's own rule
(:func:`gpu_split`), so that the learner count used here is the one OAT starts.
"""

import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from gymverse.errors import BadInput
from gymverse.oat.flags import OatSettings
from gymverse.run.checkpoints import resume_point
from gymverse.run.config import validate_run_config

if TYPE_CHECKING:  # the class needs OAT installed; these functions do not
    from gymverse.oat.args import OATPerpoArgs

MC_CRITICS = ("drgrpo", "grpo")


def prepare_args(
    args: "OATPerpoArgs", now_ns: Callable[[], int] = time.time_ns, visible_gpus: str | None = None
) -> "OATPerpoArgs":
    """Validate ``args`` (our OAT args class) and fill in what OAT needs; raises :class:`BadInput`. The launcher
    runs it as ``gymverse.run.prepare.prepare``'s validation, which then checks the environment ids.

    ``visible_gpus`` is ``CUDA_VISIBLE_DEVICES`` (read from the environment when not given).
    """
    validate_run_config(args)
    if args.critic_type not in MC_CRITICS:
        raise BadInput(
            f"--critic_type {args.critic_type} learns a value critic; PERPO uses normalized returns, "
            f"choose one of {', '.join(MC_CRITICS)}"
        )
    if args.norm_scope != "env" or args.group_size != 1:
        raise BadInput("--norm_scope and --group_size are the native trainer's; OAT normalizes per environment")
    check_gpus(args, os.environ.get("CUDA_VISIBLE_DEVICES") if visible_gpus is None else visible_gpus)
    size_rollout(args)
    if args.resume_dir:
        resume_point(args.resume_dir, args.resume_tag)  # refuses a checkpoint without its run state, before launch
    args.algo = "PPO"
    args.oracle = ""
    args.prompt_data = ""
    if args.rnd_seed:
        args.seed = now_ns() % 2**32
        args.rnd_seed = False
    return args


def check_gpus(args: OatSettings, visible_gpus: str | None) -> None:
    """Refuse GPU settings OAT would fail on or silently change: OAT places its processes on every GPU
    ``CUDA_VISIBLE_DEVICES`` lists (the first ``--gpus`` when it is unset), and an actor's GPUs must
    divide the actor GPUs."""
    if args.gpus < 1 or args.num_groups < 1:
        raise BadInput(f"--gpus and --num_groups must be at least 1, got {args.gpus} and {args.num_groups}")
    if visible_gpus:
        listed = len([g for g in visible_gpus.split(",") if g.strip()])
        if listed != args.gpus:
            raise BadInput(
                f"--gpus is {args.gpus} but CUDA_VISIBLE_DEVICES lists {listed} GPUs, and OAT uses every GPU it "
                f"lists; give --gpus {listed}, or list {args.gpus} GPUs in CUDA_VISIBLE_DEVICES"
            )
    actor_gpus = len(gpu_split(args.gpus, args.collocate)[0])
    if args.num_gpus_per_actor not in (1, 2, 4, 8) or actor_gpus % args.num_gpus_per_actor:
        raise BadInput(
            f"--num_gpus_per_actor must be 1, 2, 4 or 8 and divide the {actor_gpus} actor GPUs "
            f"(--gpus {args.gpus}{', --collocate' if args.collocate else ''}), got {args.num_gpus_per_actor}"
        )


def size_rollout(args: "OATPerpoArgs") -> None:
    """One step trains every learner on ``--rollout_batch_size_per_device`` turns of one actor step, and its
    buffer holds exactly those (more would train old turns again, fewer would drop some)."""
    learners = learner_world_size(args)
    if args.rollout_batch_size_per_device is None:
        if args.rollout_batch_size % learners:
            raise BadInput(
                f"--rollout_batch_size ({args.rollout_batch_size}) must divide among the {learners} learner GPUs; "
                f"or give --rollout_batch_size_per_device"
            )
        args.rollout_batch_size_per_device = args.rollout_batch_size // learners
    elif args.rollout_batch_size != args.rollout_batch_size_per_device * learners:
        logging.warning(
            "--rollout_batch_size %d is replaced by %d (--rollout_batch_size_per_device times the %d learner GPUs): "
            "every learner trains on what its actor played in one step, as in GymVerse",
            args.rollout_batch_size,
            args.rollout_batch_size_per_device * learners,
            learners,
        )
        args.rollout_batch_size = args.rollout_batch_size_per_device * learners
    if args.rollout_batch_size_per_device < 1:
        raise BadInput(f"--rollout_batch_size_per_device must be at least 1, got {args.rollout_batch_size_per_device}")
    buffer = args.pi_buffer_maxlen_per_device
    if buffer is not None and buffer != args.rollout_batch_size_per_device:
        raise BadInput(
            f"--pi_buffer_maxlen_per_device ({buffer}) must equal the turns each learner gets per step "
            f"({args.rollout_batch_size_per_device}): a larger buffer trains old turns again, a smaller one drops "
            "turns; leave it out"
        )
    args.pi_buffer_maxlen_per_device = args.rollout_batch_size_per_device


def gpu_split(gpus: int, collocate: bool) -> tuple[list[int], list[int]]:
    """(actor GPUs, learner GPUs) of one group, as OAT's ``get_program`` assigns them: all of them to both
    when collocated, else the first half acts and the second half learns (an odd count shares its middle GPU)."""
    available = list(range(gpus))
    if collocate:
        return available, available
    return available[: gpus // 2 + gpus % 2], available[gpus // 2 :]


def learner_world_size(args: OatSettings) -> int:
    """Learner processes of the run, as OAT will start them."""
    return len(gpu_split(args.gpus, args.collocate)[1]) * args.num_groups


def global_actor_id(args: "OATPerpoArgs", local_id: int) -> int:
    """An actor's id over all groups (OAT numbers the actors of each group from 0)."""
    per_group = len(gpu_split(args.gpus, args.collocate)[0]) // args.num_gpus_per_actor
    return args.group_rank * per_group + local_id


def prompt_slots(args: "OATPerpoArgs") -> int:
    """How many empty prompts stand in for OAT's prompt dataset.

    OAT sizes its learning-rate schedule as ``len(prompts) * max_epochs // train_batch_size`` optimizer
    steps; the run makes ``max_train * num_ppo_epochs // train_batch_size`` of them (every turn is
    trained on ``num_ppo_epochs`` times), and stops after ``max_train`` turns whatever is left.
    """
    return args.max_train * args.num_ppo_epochs // args.max_epochs
