"""Folders of games that are not ours: their entries, the ids their games get, and their registration
behind jailed proxies (the one way in for untrusted code; ``trusted=True`` imports one's own folder).
"""

import ast
import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterable

from gymverse.cache import cache_dir
from gymverse.env.gymverse_ids import domain_from_file_name, parse_python, read_registrations
from gymverse.env.registry import (
    RegistrationReport,
    folder_entries,
    folder_env_ids,
    folder_env_specs,
    import_env_dir,
    register_id,
)
from gymverse.errors import BadInput
from gymverse.sandbox.jail import HOST, Limits, jail_problem
from gymverse.sandbox.proxy import JailBroken, JailedFile, ProxyFactory

NOT_A_GAME = "not a game: the file defines no class (a script)"


def class_names(file: Path) -> list[str]:
    """The top-level classes a file defines, read without running it (for ids that must not clash)."""
    try:
        return list(_top_level_classes(file.read_bytes()) or [])
    except OSError:
        return []


def syntax_error(file: Path) -> bool:
    """Whether this Python cannot parse the file (its import, in the jail, will say how)."""
    return _top_level_classes(file.read_bytes()) is None


_parsed: dict[str, tuple[str, ...] | None] = {}  # by content: a large file is parsed once, not per question


def _top_level_classes(source: bytes) -> tuple[str, ...] | None:
    """The names of the top-level classes of ``source``, or None where it does not parse."""
    key = hashlib.sha256(source).hexdigest()
    if key not in _parsed:
        try:
            tree = parse_python(source)
            _parsed[key] = tuple(node.name for node in tree.body if isinstance(node, ast.ClassDef))
        except (SyntaxError, ValueError):
            _parsed[key] = None
    return _parsed[key]


def folder_ids(folder: Path, prefix: str, files: Iterable[Path]) -> dict[tuple[Path, str], str]:
    """The id of each class the folder's files define (GymVerse's where its registration file names it),
    computed before any of them runs."""
    return folder_env_ids(prefix, {file: class_names(file) for file in files}, read_registrations(folder))


def file_digest(file: Path) -> str:
    return hashlib.sha256(file.read_bytes()).hexdigest()


class JailPool:
    """One running jail per file, started at its first game's construction and restarted if it broke."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.jails: dict[Path, JailedFile] = {}

    def jail(self, file: Path) -> Callable[[], JailedFile]:
        def current() -> JailedFile:
            jail = self.jails.get(file)
            if jail is None or jail.broken:
                jail = self.jails[file] = JailedFile(file, self.limits)
                if jail.load_error:
                    raise JailBroken(f"{file.name} no longer imports in its jail: {jail.load_error}")
            return jail

        return current


HOST_VERSION = hashlib.sha256(HOST.read_bytes()).hexdigest()[:12]
LISTING_LIMITS = Limits(answer_seconds=30.0, seconds=60.0)
_pool = JailPool(Limits())


def list_file(file: Path, limits: Limits = LISTING_LIMITS) -> list[dict] | str:
    """The games a file defines, listed in a jail of its own; or how its import ended, in one line."""
    with JailedFile(file, limits) as jail:
        return jail.listing()


def list_files(files: list[Path], workers: int | None = None) -> dict[Path, list[dict] | str]:
    """:func:`list_file` for many files, several jails at a time, remembered by content (a second run is instant)."""
    cache = ListingCache()
    found = {file: listed for file in files if (listed := cache.get(file)) is not None}
    todo = [file for file in files if file not in found]
    with ThreadPoolExecutor(workers or os.cpu_count() or 2) as pool:
        for file, listed in zip(todo, pool.map(list_file, todo)):
            cache.put(file, listed)
            found[file] = listed
    return {file: found[file] for file in files}


class ListingCache:
    """What each file defines, keyed by its content and by the host that listed it (``<cache>/listed``); a file
    that failed to list is not kept."""

    def __init__(self) -> None:
        self.folder = cache_dir() / "listed" / HOST_VERSION
        self.memory: dict[str, Any] = {}

    def _path(self, file: Path) -> Path:
        return self.folder / f"{file_digest(file)}.json"

    def get(self, file: Path) -> list[dict] | str | None:
        path = self._path(file)
        if str(path) not in self.memory:
            try:
                self.memory[str(path)] = json.loads(path.read_text())
            except (OSError, ValueError):
                return None
        return self.memory[str(path)]

    def put(self, file: Path, listed: list[dict] | str) -> None:
        path = self._path(file)
        self.memory[str(path)] = listed
        if isinstance(listed, str):
            return  # a failure may be the machine's (its load, a package not yet installed): ask again next time
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(listed))
        except OSError:
            pass  # a cache that cannot be written only costs time


def register_env_dir(path: str | Path, prefix: str | None = None, trusted: bool = False) -> RegistrationReport:
    """Register every game in the ``.py`` files of ``path`` in GEM's registry.

    By default the folder is not trusted: each file is listed in its own jail, and each registered id
    builds a :class:`~gymverse.sandbox.proxy.ProxyEnv` whose game runs in that file's jail. Where no jail
    can be made this raises :class:`BadInput` saying why. ``trusted=True`` imports the files into this
    process instead (one's own code only). Ids are ``<prefix>:<Name>`` (``prefix`` defaults to the folder's
    name); files that fail to import, unreadable entries and games that fail to build are in the report's
    ``failed``, and the rest still register.
    """
    folder = Path(path)
    prefix = prefix or folder.name
    if trusted:
        return import_env_dir(folder, prefix)
    problem = jail_problem()
    if problem:
        raise BadInput(
            f"{folder} is not trusted and no jail can be made here: {problem}; "
            "pass --trusted (trusted=True) to import your own games into this process"
        )
    entries = folder_entries(folder)
    report = RegistrationReport(failed=dict(entries.bad))
    games = [file for file in entries.files if class_names(file) or syntax_error(file)]
    report.failed.update({str(file): NOT_A_GAME for file in entries.files if file not in games})
    specs = folder_env_specs(prefix, {file: class_names(file) for file in games}, read_registrations(folder))
    listed = list_files(games)
    for file, failure in listed.items():
        if isinstance(failure, str):
            report.failed[str(file)] = failure
    for env_id, (file, name, kwargs) in specs.items():
        found = listed[file]
        game = next((g for g in found if g["name"] == name), None) if isinstance(found, list) else None
        if game is None:
            continue  # a helper class, or a file that did not import
        report.files[env_id] = str(file)
        if game["unbuildable"]:
            report.failed[env_id] = game["unbuildable"]
            continue
        source = file.resolve()
        factory = ProxyFactory(
            _pool.jail(source), game, kwargs=kwargs, domain=domain_from_file_name(file.name), source=str(source)
        )
        register_id(env_id, factory, report)
    return report
