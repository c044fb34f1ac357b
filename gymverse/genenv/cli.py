"""``gymverse genenv`` and ``python -m gymverse.genenv``: flags, or GenEnv's ``key=value`` overrides, in; a run
folder out.

The keys become flags (:func:`gymverse.genenv.config.genenv_argv`), the flags are checked by
``gymverse.run.prepare`` before torch is imported, and bad input is one line and exit status 2 (set
``GYMVERSE_DEBUG=1`` for the traceback); Ctrl-C exits with 130 once the run has said where it was saved.
"""

import os
import sys

from rich.markup import escape

from gymverse.console import console
from gymverse.errors import BadInput
from gymverse.genenv.config import GenEnvArgs, genenv_argv, validate_genenv_args
from gymverse.run.prepare import flags_as_typed, prepare

DESCRIPTION = """Co-evolve an agent and an environment policy (GenEnv) on games or on a GenEnv parquet dataset.

Also takes GenEnv's keys: genenv.enable=True env_model_path=... actor_rollout_ref.model.path=...
data.train_files=... data.val_files=... genenv.filtering_k=0.1 genenv.num_generations_per_prompt=4
trainer.default_local_dir=..."""


def parse_genenv_args(argv: list[str], prog: str | None = None) -> GenEnvArgs:
    """``argv``'s flags and GenEnv keys as the run's arguments; the veRL keys this loop does not use are named."""
    import tyro

    flags, ignored = genenv_argv(argv)
    if ignored:
        print(f"GenEnv: ignoring keys the native loop does not use: {' '.join(ignored)}")
    return tyro.cli(GenEnvArgs, args=flags, prog=prog, description=DESCRIPTION)


def main(argv: list[str] | None = None, prog: str | None = "gymverse genenv") -> int:
    """Run ``argv``; the exit status (2: bad input, 130: stopped by Ctrl-C)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parse_genenv_args(argv, prog)
        prepare(args, argv, validate_genenv_args, plays_games=args.task_space == "games")
        from gymverse.genenv.loop import GenEnvRun  # torch: only once the flags are known to be good

        GenEnvRun(args).run()
    except (BadInput, ValueError, FileNotFoundError) as error:
        if os.environ.get("GYMVERSE_DEBUG"):
            raise
        console.print(f"[red]error:[/red] {escape(flags_as_typed(str(error), argv))}")
        return 2
    except KeyboardInterrupt:
        return 130
    except SystemExit as exit_:  # tyro's --help and usage errors
        return int(exit_.code or 0)
    return 0
