"""Parse the flags, check them, and launch OAT's program with our actor and learner."""

import sys

import tyro
from oat.args import default_args_validation
from oat.interface import get_program, lp

from gymverse.oat.actor import Actor
from gymverse.oat.args import OATPerpoArgs
from gymverse.oat.learner import Learner
from gymverse.oat.settings import prepare_args
from gymverse.errors import BadInput


def main(argv: list[str] | None = None) -> int:
    args = tyro.cli(OATPerpoArgs, args=argv)
    try:
        args = default_args_validation(prepare_args(args))
    except (BadInput, AssertionError, ValueError) as error:  # OAT reports bad settings by assert
        print(f"error: {error}", file=sys.stderr)
        return 2
    program, local_resources = get_program(args, learner_cls=Learner, actor_cls=Actor)
    lp.launch(program, launch_type=args.launch_type, local_resources=local_resources, terminal="current_terminal")
    return 0
