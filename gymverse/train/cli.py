"""Command line of the native trainer: OAT's and GymVerse's flags in, a run folder out."""

import sys
from pathlib import Path

from gymverse.rollout import split_env_ids
from gymverse.errors import BadInput
from gymverse.train.args import TrainArgs, ignored_flags, validate_train_args


def parse_train_args(argv: list[str]) -> TrainArgs:
    import tyro

    return tyro.cli(TrainArgs, args=argv, description="PERPO training with the native (CPU-capable) trainer.")


def check_env_ids(env_ids: list[str]) -> None:
    import gymverse  # noqa: F401  (registers the built-in games)
    from gem.envs.registration import ENV_REGISTRY

    unknown = [env_id for env_id in env_ids if env_id not in ENV_REGISTRY]
    if unknown:
        raise BadInput(f"unknown environment id(s) {', '.join(unknown)}; `gymverse envs` lists the registered ones")


def train_from_argv(argv: list[str]) -> Path | None:
    """Parse ``argv``, say which GPU-only flags are ignored, and train; the run folder, or None on bad input."""
    from gymverse.train.loop import Trainer

    args = parse_train_args(argv)
    try:
        validate_train_args(args)
        check_env_ids(split_env_ids(args.env_id) + split_env_ids(args.eval_envs))
    except BadInput as error:
        print(f"error: {error}", file=sys.stderr)
        return None
    skipped = ignored_flags(argv)
    if skipped:
        print(f"Native trainer: ignoring GPU-only flags {' '.join(skipped)}")
    try:
        return Trainer(args).run()
    except FileNotFoundError as error:  # --pretrain or --resume name nothing usable
        print(f"error: {error}", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    return 0 if train_from_argv(sys.argv[1:] if argv is None else list(argv)) is not None else 2
