"""Command line of the native trainer: OAT's and GymVerse's flags in, a run folder out.

The flags are checked (and ``--env_dir`` folders registered) by ``gymverse.run.prepare`` before torch and
transformers are imported, so a mistyped value is refused at once; every error names the flag as it was typed.
"""

import sys
from pathlib import Path

from gymverse.curriculum import with_controller_flags
from gymverse.entry import BAD_INPUT, parse_flags, run_command
from gymverse.env.visible import visible
from gymverse.errors import BadInput
from gymverse.run.prepare import flags_as_typed, prepare
from gymverse.train.args import TrainArgs, ignored_flags, validate_train_args


def parse_train_args(argv: list[str], prog: str | None = None) -> TrainArgs:
    """``argv`` as the trainer's arguments; a usage error is :class:`BadInput` in one line."""
    import tyro

    description = "PERPO training with the native trainer (runs anywhere; a CPU by default)."
    return parse_flags(
        lambda: tyro.cli(with_controller_flags(TrainArgs), args=argv, prog=prog, description=description),
        prog or "train",
    )


def train_from_argv(argv: list[str], prog: str | None = None) -> Path | None:
    """Parse ``argv``, say which GPU-only flags are ignored, and train; the run folder, or None on bad input.
    Ctrl-C stops at the end of a step with a checkpoint and raises KeyboardInterrupt."""
    try:
        args = parse_train_args(argv, prog)
        prepare(args, argv, validate_train_args)
    except BadInput as error:
        print(f"error: {visible(str(error))}", file=sys.stderr)
        return None
    skipped = ignored_flags(argv)
    reason = "--backend native" if args.backend == "native" else "OAT is not installed"
    print(f"Native trainer ({reason})" + (f": ignoring GPU-only flags {' '.join(skipped)}" if skipped else ""))
    if args.seeds > 1:
        from gymverse.train.seeds import run_seeds

        return run_seeds(args, argv)
    from gymverse.train.loop import Trainer  # torch and transformers: only once the flags are known to be good

    try:
        return Trainer(args).run()
    except (BadInput, FileNotFoundError) as error:  # --pretrain or --resume name nothing usable
        print(f"error: {visible(flags_as_typed(str(error), argv))}", file=sys.stderr)
        return None


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """The exit status (:mod:`gymverse.entry`: 2 bad input, 1 a failing resource, 130 Ctrl-C)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    return run_command(lambda: 0 if train_from_argv(argv, prog) is not None else BAD_INPUT, argv)
