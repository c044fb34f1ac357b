"""Command-line arguments of the native trainer, with OAT's and GymVerse's flag names.

``TrainArgs`` is the run loop's configuration (``gymverse.run.config.LoopConfig``: ``RunConfig``, shared
with the OAT backend, defaults included, plus --device, --cpu_threads and --resume); the OAT backend's own
flags (``gymverse.oat.flags.OatSettings``, GPU-only) are accepted and listed as ignored, so the command lines
documented for GymVerse parse unchanged. Flags are parsed by tyro, as in OAT: ``--a_b`` and ``--a-b`` are the
same flag, booleans are ``--flag`` / ``--no-flag``.
"""

from dataclasses import dataclass
from typing import Literal

from gymverse.errors import BadInput
from gymverse.oat.flags import GPU_ONLY_FLAGS, OatSettings
from gymverse.run.config import LoopConfig, validate_loop_config

Backend = Literal["auto", "native", "oat"]


@dataclass
class TrainArgs(OatSettings, LoopConfig):  # OatSettings first: its flags come last in --help
    """PERPO with the native trainer: one process, Hugging Face models, a CPU by default."""

    backend: Backend = "auto"
    """Trainer: oat (OAT's actor-learner on GPUs, needs oat-llm), native (this process, runs anywhere) or auto
    (oat when oat-llm is installed, else native)."""

    seeds: int = 1
    """Run the same training once per seed, --seed to --seed + N - 1, in child processes, and print the closing
    tables' mean and spread per cell (<--save_path>/<--wb_run_name>-seeds/results.json)."""
    jobs: int = 0
    """Processes at a time (0: one per CPU core): with --seeds, the seeds' runs (at most --seeds); else, on a CPU,
    the closing table's cells."""
    max_idle_steps: int = 3
    """Stop, saying why, after this many steps in a row with nothing to learn from (every episode outgrowing the
    context, every reply cut, every game's returns equal); 0: never."""
    before_after_n: int = 100
    """Episodes per cell of the closing table: the starting model against the trained one, sampled and greedy,
    at --train_difficulty and the level each game's curriculum reached (results.json; 0: no table)."""


def validate_train_args(args: TrainArgs) -> None:
    """:func:`validate_loop_config`, and the native trainer's own flags."""
    validate_loop_config(args)
    if not 1 <= args.group_size <= args.num_env:
        raise BadInput(f"--group_size must lie in [1, --num_env ({args.num_env})], got {args.group_size}")
    if args.norm_scope == "group" and args.group_size < 2:
        raise BadInput("--norm_scope group needs --group_size of 2 or more (copies that begin from one seed)")
    if args.seeds < 1:
        raise BadInput(f"--seeds must be at least 1, got {args.seeds}")
    for flag in ("jobs", "max_idle_steps", "before_after_n"):
        if getattr(args, flag) < 0:
            raise BadInput(f"--{flag} must be 0 or more, got {getattr(args, flag)}")


def ignored_flags(argv: list[str]) -> list[str]:
    """The GPU-only flags present on a command line, as the user wrote them."""
    found = []
    for token in argv:
        if not token.startswith("--"):
            continue
        name = token[2:].split("=", 1)[0].replace("-", "_")
        name = name[3:] if name.startswith("no_") and name[3:] in GPU_ONLY_FLAGS else name
        if name in GPU_ONLY_FLAGS:
            found.append(token.split("=", 1)[0])
    return found
