"""The checks every command that trains runs before it loads anything: ``prepare(args, argv)``.

``gymverse train`` (native and OAT) and ``gymverse genenv`` call it once the flags are parsed: the values are
validated, an empty ``--wb_run_name`` named after the games, the ``--env_dir`` folders registered (in this process; a trainer that plays in other processes
registers them there too), and the training and evaluation ids checked against the registry. Whatever is
refused is a :class:`BadInput` whose message names each flag as the user typed it (``--a-b`` or ``--a_b``).
Nothing here imports torch.
"""

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from gymverse.env.id_lists import split_env_ids
from gymverse.env.visible import visible
from gymverse.errors import BadInput
from gymverse.run.config import (
    RunConfig,
    default_run_name,
    eval_env_ids,
    eval_levels,
    train_env_ids,
    validate_run_config,
)


def prepare(
    args: RunConfig, argv: list[str], validate: Callable[[Any], object] = validate_run_config, plays_games: bool = True
) -> None:
    """Validate ``args`` with ``validate``, register its ``--env_dir`` folders and, when the run plays games,
    check its ids; raises :class:`BadInput` naming the flags as ``argv`` spells them."""
    try:
        validate(args)
        if not getattr(args, "wb_run_name", "x"):
            args.wb_run_name = default_run_name(args)
        if plays_games:
            register_env_dirs(args)
            check_run_envs(args)
    except BadInput as error:
        raise BadInput(flags_as_typed(str(error), argv)) from None


class EnvDirFlags(Protocol):
    """--env_dir and --trusted, as every command that plays games takes them."""

    @property
    def env_dir(self) -> Sequence[str | Path]: ...

    @property
    def trusted(self) -> bool: ...


def register_env_dirs(config: EnvDirFlags, log: Callable[[str], Any] = print) -> None:
    """Register the games of each ``--env_dir`` folder (jailed unless ``--trusted``; call it in every process
    that plays them) under the ids ``register_env_dir`` gives; a file or class that fails is reported through
    ``log``, the others register."""
    from gymverse.sandbox import register_env_dir

    for folder in config.env_dir:
        try:
            report = register_env_dir(folder, trusted=config.trusted)
        except (BadInput, FileNotFoundError) as error:
            raise BadInput(f"--env_dir {folder}: {error}") from None
        for what, why in report.failed.items():
            log(visible(f"--env_dir {folder}: {what} was not registered: {why}"))


def check_run_envs(config: RunConfig) -> None:
    """Raise :class:`BadInput` for an unknown training or evaluation id (with a "did you mean") or a complexity
    flag above a game's highest complexity."""
    import gymverse  # noqa: F401  (registers the built-in games)
    from gymverse.env import highest_complexity, registered_ids
    from gymverse.errors import require_known

    known = registered_ids()
    require_known(train_env_ids(config), known, flag="--env_id")
    require_known(split_env_ids(config.eval_envs), known, flag="--eval_envs")
    asked = [
        ("--train_difficulty", train_env_ids(config), [config.train_difficulty]),
        ("--eval_difficulty", eval_env_ids(config), eval_levels(config)),
    ]
    for flag, env_ids, complexities in asked:
        for env_id in env_ids:
            highest = highest_complexity(env_id)
            if highest is not None and max(complexities) > highest:
                raise BadInput(f"{flag} {max(complexities)} is above {env_id}'s highest complexity, {highest}")


def flags_as_typed(message: str, argv: list[str]) -> str:
    """``message`` with each ``--flag`` it names spelled as the user typed it (``--a-b`` or ``--a_b``)."""
    typed = {
        token[2:].split("=", 1)[0].replace("-", "_"): token.split("=", 1)[0] for token in argv if token.startswith("--")
    }
    return re.sub(r"--([A-Za-z][\w-]*)", lambda m: typed.get(m.group(1).replace("-", "_"), m.group(0)), message)
