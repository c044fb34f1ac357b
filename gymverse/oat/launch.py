"""Parse the flags, check them, warm-start the model, and launch OAT's program with our actor and learner."""

import sys
from pathlib import Path

import tyro
from oat.args import default_args_validation
from oat.interface import get_program, lp

from gymverse.errors import BadInput
from gymverse.oat.actor import Actor
from gymverse.oat.args import OATPerpoArgs
from gymverse.oat.learner import Learner
from gymverse.oat.settings import prepare_args
from gymverse.policy.tiny import TINY, resolve_pretrain
from gymverse.run.prepare import prepare
from gymverse.run.sft import warm_start


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = tyro.cli(OATPerpoArgs, args=argv, description="PERPO training on OAT (vLLM actors, DeepSpeed learners).")
    try:
        prepare(args, argv, prepare_args)
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    pretrain = resolve_pretrain(TINY) if args.pretrain == TINY else args.pretrain
    if not args.resume_dir:  # a resumed run's weights come from its checkpoint
        # On the CPU: CUDA must stay uninitialized in this process, which launchpad forks into the workers.
        pretrain = warm_start(args, pretrain, Path(args.save_path) / f"{args.wb_run_name}_sft_model", args.seed, "cpu")
    args.pretrain = str(pretrain)
    try:
        args = default_args_validation(args)
    except (AssertionError, ValueError) as error:  # OAT reports bad settings by assert
        print(f"error: {error}", file=sys.stderr)
        return 2
    program, local_resources = get_program(args, learner_cls=Learner, actor_cls=Actor)
    lp.launch(program, launch_type=args.launch_type, local_resources=local_resources, terminal="current_terminal")
    return 0
