"""``gymverse genenv`` and ``python -m gymverse.genenv``: flags, or GenEnv's ``key=value`` overrides, in; a run
folder out.

The keys become flags (:mod:`gymverse.genenv.keys`), the flags are checked by ``gymverse.run.prepare`` before
torch is imported, and bad input is one line and exit status 2 (set ``GYMVERSE_DEBUG=1`` for the traceback).
A failing endpoint or a full disk is one line and exit status 1, Ctrl-C exits with 130, each once the run has
said where it was last saved.
"""

import sys

from gymverse.curriculum import with_controller_flags
from gymverse.entry import parse_flags, run_command
from gymverse.genenv.config import GenEnvArgs, validate_genenv_args
from gymverse.genenv.keys import FLAG_KEYS, genenv_argv
from gymverse.run.prepare import flags_as_typed, prepare

DESCRIPTION = """Co-evolve an agent and an environment policy (GenEnv) on games or on a GenEnv parquet dataset.

Also takes GenEnv's keys: genenv.enable=True env_model_path=... actor_rollout_ref.model.path=...
data.train_files=... data.val_files=... genenv.filtering_k=0.1 genenv.num_generations_per_prompt=4
trainer.default_local_dir=..."""


def parse_genenv_args(argv: list[str], prog: str | None = None) -> GenEnvArgs:
    """``argv``'s flags and GenEnv keys as the run's arguments; the keys it ignores are named."""
    import tyro

    flags, hardware, unknown = genenv_argv(argv)
    if hardware:
        print(f"GenEnv: ignoring hardware-only keys: {' '.join(hardware)}")
    if unknown:
        print(f"GenEnv: ignoring keys that are not GenEnv's: {' '.join(unknown)}")
    return parse_flags(
        lambda: tyro.cli(with_controller_flags(GenEnvArgs), args=flags, prog=prog, description=DESCRIPTION),
        prog or "genenv",
    )


def as_typed(message: str, argv: list[str]) -> str:
    """``message`` naming each flag as ``argv`` gave it: a GenEnv key (``data.train_files``) or a flag."""
    for token in argv:
        key = token.partition("=")[0].lstrip("+")
        if "=" in token and not token.startswith("-") and key in FLAG_KEYS:
            message = message.replace(f"--{FLAG_KEYS[key]} ", f"{key}=").replace(f"--{FLAG_KEYS[key]}", key)
    return flags_as_typed(message, argv)


def main(argv: list[str] | None = None, prog: str | None = "gymverse genenv") -> int:
    """Run ``argv``; the exit status (:mod:`gymverse.entry`: 2 bad input, 1 a failing resource, 130 Ctrl-C)."""
    argv = sys.argv[1:] if argv is None else list(argv)

    def run() -> None:
        args = parse_genenv_args(argv, prog)
        prepare(args, argv, validate_genenv_args, plays_games=args.task_space == "games")
        from gymverse.genenv.loop import GenEnvRun  # torch: only once the flags are known to be good

        GenEnvRun(args).run()

    return run_command(run, argv, lambda message: as_typed(message, argv))
