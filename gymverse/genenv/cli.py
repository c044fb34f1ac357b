"""``gymverse genenv`` and ``python -m gymverse.genenv``: flags, or GenEnv's ``key=value`` overrides, in; a run folder out."""

import sys
from pathlib import Path

import tyro

from gymverse.errors import BadInput
from gymverse.genenv.config import GenEnvArgs, genenv_argv, validate_genenv_args


def genenv_command(args: tyro.conf.OmitArgPrefixes[GenEnvArgs]) -> Path:
    """Co-evolve an agent and an environment policy (GenEnv) on games or on a GenEnv parquet dataset.

    Also takes GenEnv's keys: genenv.enable=True env_model_path=... actor_rollout_ref.model.path=...
    data.train_files=... data.val_files=... genenv.filtering_k=0.1 genenv.num_generations_per_prompt=4
    trainer.default_local_dir=...
    """
    from gymverse.genenv.loop import GenEnvRun

    validate_genenv_args(args)
    if args.task_space == "games":
        from gymverse.run.config import check_run_envs

        check_run_envs(args)
    return GenEnvRun(args).run()


def translate(argv: list[str]) -> list[str]:
    """GenEnv's ``key=value`` overrides as flags; the veRL keys this loop does not use are named and skipped."""
    flags, ignored = genenv_argv(argv)
    if ignored:
        print(f"GenEnv: ignoring keys the native loop does not use: {' '.join(ignored)}")
    return flags


def main(argv: list[str] | None = None) -> int:
    from gymverse.cli import main as gymverse_main

    try:
        gymverse_main(["genenv", *(sys.argv[1:] if argv is None else argv)])
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0
