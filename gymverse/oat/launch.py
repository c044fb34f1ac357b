"""Parse the flags, check them, warm-start the model, and launch OAT's program with our actor and learner."""

import sys
from pathlib import Path

import tyro
from oat.args import default_args_validation
from oat.interface import get_program, lp

from gymverse.curriculum import with_controller_flags
from gymverse.entry import parse_flags, run_command
from gymverse.errors import BadInput
from gymverse.oat.actor import Actor
from gymverse.oat.args import OATPerpoArgs
from gymverse.oat.learner import Learner
from gymverse.oat.settings import prepare_args
from gymverse.policy.tiny import TINY, resolve_pretrain
from gymverse.run.prepare import prepare
from gymverse.run.sft import warm_start


def main(argv: list[str] | None = None) -> int:
    """The exit status (:mod:`gymverse.entry`: 2 bad input, 1 a failing resource, 130 Ctrl-C)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    return run_command(lambda: launch(argv), argv)


def launch(argv: list[str]) -> int:
    description = "PERPO training on OAT (vLLM actors, DeepSpeed learners)."
    args: OATPerpoArgs = parse_flags(
        lambda: tyro.cli(with_controller_flags(OATPerpoArgs), args=argv, description=description), "gymverse train"
    )
    prepare(args, argv, prepare_args)
    pretrain = resolve_pretrain(TINY) if args.pretrain == TINY else args.pretrain
    if not args.resume_dir:  # a resumed run's weights come from its checkpoint
        # On the CPU: CUDA must stay uninitialized in this process, which launchpad forks into the workers.
        pretrain = warm_start(args, pretrain, Path(args.save_path) / f"{args.wb_run_name}_sft_model", args.seed, "cpu")
    args.pretrain = str(pretrain)
    try:
        args = default_args_validation(args)
    except AssertionError as error:  # OAT reports bad settings by assert
        raise BadInput(str(error)) from None
    program, local_resources = get_program(args, learner_cls=Learner, actor_cls=Actor)
    lp.launch(program, launch_type=args.launch_type, local_resources=local_resources, terminal="current_terminal")
    return 0
