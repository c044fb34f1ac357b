"""Which environments to evaluate: registered ids, the whole built-in library, or a folder of env files."""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import gem

from gymverse.errors import BadInput, require_known


@dataclass(frozen=True)
class EnvTarget:
    env_id: str
    domain: str
    spec: str | type  # a registered id, or an env class (what gem.make and check_env accept)

    def make(self, complexity: int) -> gem.Env:
        if isinstance(self.spec, str):
            return gem.make(self.spec, complexity=complexity)
        return self.spec(complexity=complexity)


def target_for(env: str | type) -> EnvTarget:
    """An :class:`EnvTarget` for a registered id or an env class (tests pass classes)."""
    from gymverse.env import env_class

    if isinstance(env, str):
        try:
            cls = env_class(env)
        except KeyError as error:
            raise BadInput(error.args[0]) from None
        return EnvTarget(env, getattr(cls, "domain", "misc"), env)
    return EnvTarget(env.__name__, getattr(env, "domain", "misc"), env)


def resolve_env_ids(
    ids: list[str], all_builtin: bool = False, folder: Path | None = None, log: Callable[[str], None] = print,
) -> list[str]:
    """``ids``, plus every built-in game with ``all_builtin``, plus every game in ``folder`` (registered first).

    Files in ``folder`` that fail to import are reported through ``log`` and skipped.
    """
    import gymverse
    from gymverse.env import registered_ids

    ids = list(ids)
    if folder is not None:
        try:
            report = gymverse.register_env_dir(folder)
        except FileNotFoundError as error:
            raise BadInput(str(error)) from None
        for where, error in report.failed.items():
            log(f"skipped {where}: {error}")
        ids += registered_ids(Path(folder).name)  # includes games a previous call registered
    if all_builtin:
        ids += registered_ids("gymverse")
    if not ids:
        raise BadInput("name env ids, or use --all or --dir PATH")
    require_known(ids, registered_ids())
    return list(dict.fromkeys(ids))
