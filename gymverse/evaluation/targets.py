"""Which environments to evaluate: registered ids, the whole built-in library, or a folder of env files.

A folder's games are not ours: the sandbox lists them (``gymverse.sandbox.select_targets``) as
:class:`GameFile` targets, which are only ever built inside the sandbox's children.
"""

import fnmatch
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import gem

from gymverse.env.players import has_solver
from gymverse.env.registry import (
    entry_point_for, env_class, env_classes, game_domain, load_env_file, register_env_dir, registered_ids,
)
from gymverse.errors import BadInput, require_known


@dataclass(frozen=True)
class GameFile:
    """A game class in a file that is not ours, built where it is played (a sandbox's child)."""

    path: str
    class_name: str

    def make(self, complexity: int) -> gem.Env:
        return entry_point_for(game_class(self.path, self.class_name))(complexity=complexity)


@functools.lru_cache(maxsize=None)
def game_class(path: str, class_name: str) -> type:
    """The class ``class_name`` of the file at ``path``, the file imported once per process."""
    return next(cls for cls in env_classes(load_env_file(path)) if cls.__name__ == class_name)


@dataclass(frozen=True)
class EnvTarget:
    env_id: str
    domain: str
    spec: str | type | GameFile  # a registered id, an env class (tests pass classes), or a game file
    file: str = ""  # the file that defines the game, for games from a folder

    def make(self, complexity: int) -> gem.Env:
        if isinstance(self.spec, str):
            return gem.make(self.spec, complexity=complexity)
        if isinstance(self.spec, GameFile):
            return self.spec.make(complexity)
        return self.spec(complexity=complexity)

    @property
    def sandboxed(self) -> bool:
        return isinstance(self.spec, GameFile)

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
    ids: list[str], all_builtin: bool = False, folder: Path | None = None, log: Callable[[str], None] = print,
) -> list[str]:
    """``ids``, plus every built-in game with ``all_builtin``, plus every game in ``folder`` (registered first).

    An id with ``*``, ``?`` or ``[`` is a pattern for the registered ids it matches (``example:*``). Files in
    ``folder`` that fail to import are reported through ``log`` and skipped.
    """
    ids = expand_patterns(ids)
    if folder is not None:
        report = register_env_dir(folder)
        for where, error in report.failed.items():
            log(f"skipped {where}: {error}")
        # the folder's namespace includes games a previous call registered; GymVerse's ids may name others
        found = sorted(set(registered_ids(Path(folder).name)) | set(report.registered))
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
