"""Which environments to evaluate: registered ids, the whole built-in library, or a folder of env files.

A folder's games are not ours: ``register_env_dir`` registers them behind jailed proxies, so every
target here is built and played in this process, the folder's code in its jail.
"""

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import gem

from gymverse.env.players import has_solver
from gymverse.env.registry import env_class, game_domain, registered_ids
from gymverse.errors import BadInput, require_known
from gymverse.sandbox.folders import register_env_dir


@dataclass(frozen=True)
class EnvTarget:
    env_id: str
    domain: str
    spec: str | Callable[..., gem.Env]  # a registered id, or an env class or factory (tests pass classes)
    file: str = ""  # the file that defines the game, for games from a folder

    def make(self, complexity: int) -> gem.Env:
        if isinstance(self.spec, str):
            return gem.make(self.spec, complexity=complexity)
        return self.spec(complexity=complexity)

    def has_solver(self) -> bool:
        """Whether the game has a reference solver (asked of one game at level 1, reset)."""
        env = self.make(1)
        env.reset(seed=0)
        return has_solver(env)


def target_for(env: str | type) -> EnvTarget:
    """An :class:`EnvTarget` for a registered id or an env class (tests pass classes)."""
    if isinstance(env, str):
        try:
            cls = env_class(env)
        except KeyError as error:
            raise BadInput(error.args[0]) from None
        return EnvTarget(env, game_domain(cls), env)
    return EnvTarget(env.__name__, game_domain(env), env)


def resolve_env_ids(
    ids: list[str],
    all_builtin: bool = False,
    folder: Path | None = None,
    log: Callable[[str], None] = print,
    trusted: bool = False,
) -> list[str]:
    """``ids``, plus every built-in game with ``all_builtin``, plus every game in ``folder`` (registered first,
    behind jailed proxies unless ``trusted``). An id with ``*``, ``?`` or ``[`` is a pattern for the registered
    ids it matches (``example:*``). Files in ``folder`` that fail to import are reported through ``log`` and
    skipped.
    """
    ids = expand_patterns(ids)
    if folder is not None:
        report = register_env_dir(folder, trusted=trusted)
        for where, error in report.failed.items():
            log(f"skipped {where}: {error}")
        known = set(registered_ids())
        found = [env_id for env_id in report.files if env_id in known]  # also games an earlier call registered
        if not found:
            raise BadInput(f"no games found in {folder}")
        ids += found
    if all_builtin:
        ids += registered_ids("gymverse")
    if not ids:
        raise BadInput("name env ids, or use --all or --dir PATH")
    require_known(ids, registered_ids())
    return list(dict.fromkeys(ids))


def expand_patterns(ids: list[str]) -> list[str]:
    """Each pattern of ``ids`` replaced by the registered ids it matches (a pattern that matches none is refused)."""
    expanded = []
    for env_id in ids:
        if not any(mark in env_id for mark in "*?["):
            expanded.append(env_id)
            continue
        matched = fnmatch.filter(registered_ids(), env_id)
        if not matched:
            raise BadInput(f"no registered environment id matches {env_id!r}; see `gymverse envs`")
        expanded += matched
    return expanded
