"""Putting games into GEM's registry: a library package, user folders and installed plugins.

A library registers by ``"module:Class"`` entries, as GEM and Gymnasium do: its modules are listed
from their files, not imported, and GEM imports a game at its first ``make``. This layer never
imports a library itself; ``import gymverse`` names the built-in one.

Third-party envs that only read ``complexity`` in their constructor are registered behind
:class:`RebuildOnComplexity`, which re-creates them with the new keyword at the next reset;
that is how a curriculum reaches games that were never written for one.
"""

import importlib
import importlib.util
import inspect
import pkgutil
import sys
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable

import gem
from gem.envs.registration import ENV_REGISTRY

from gymverse.env.complexity import validate_complexity
from gymverse.env.core import ComplexityKnob, EvolvableEnv
from gymverse.env.gymverse_ids import (
    Registration,
    default_game_name,
    defines_a_class,
    domain_from_file_name,
    read_registrations,
)
from gymverse.env.visible import visible
from gymverse.errors import BadInput

NAMESPACE = "gymverse"
PLUGIN_GROUP = "gymverse.envs"
CURRICULUM_GROUP = "gymverse.curricula"
NOT_A_GAME = "not a game: the file defines no class (a script)"


@dataclass
class RegistrationReport:
    registered: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # file or id -> error message
    files: dict[str, str] = field(default_factory=dict)  # id -> the file that defines it (env folders)

    def merge(self, other: "RegistrationReport") -> None:
        self.registered += other.registered
        self.failed.update(other.failed)
        self.files.update(other.files)


class PlaysInner(gem.Env):
    """An env that plays the game in ``self.inner``: steps, random moves and every other attribute are the game's."""

    inner: gem.Env

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        return self.inner.step(action)

    def sample_random_action(self) -> str:
        return self.inner.sample_random_action()

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not yet built: avoid recursing through __getattr__
            raise AttributeError(name)
        return getattr(self.inner, name)


class RebuildOnComplexity(ComplexityKnob, PlaysInner):
    """Gives a constructor-only env ``set_complexity``: the env is rebuilt at the next reset. The wrapped class's
    ``max_complexity``, if it declares one, is the limit ``set_complexity`` enforces."""

    def __init__(self, env_class: Callable[..., gem.Env], complexity: int = 1, **kwargs: Any) -> None:
        self.env_class = env_class
        self.kwargs = kwargs
        self.max_complexity = getattr(env_class, "max_complexity", None)  # type: ignore[misc]
        name = getattr(env_class, "__name__", type(self).__name__)
        self._complexity = self._next_complexity = validate_complexity(complexity, self.max_complexity, name)
        self.inner = env_class(complexity=self._complexity, **kwargs)

    def reset(self, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        if self._next_complexity != self._complexity:
            self._complexity = self._next_complexity
            self.inner = self.env_class(complexity=self._complexity, **self.kwargs)
        return self.inner.reset(seed=seed)


class DeferComplexity(PlaysInner):
    """Holds a game's ``set_complexity`` until its next reset. Games written elsewhere (GymVerse's ``*TEST_env.py``)
    may apply a new complexity at once, rebuilding the running episode; behind this wrapper the contract holds:
    the running episode is unchanged and the next one uses the new complexity."""

    def __init__(self, inner: gem.Env) -> None:
        self.inner = inner
        self._pending: int | None = None

    def set_complexity(self, complexity: int) -> None:
        self._pending = complexity

    def get_complexity(self) -> int:
        return get_env_complexity(self.inner) if self._pending is None else self._pending

    def reset(self, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        if self._pending is not None:
            self.inner.set_complexity(self._pending)
            self._pending = None
        return self.inner.reset(seed=seed)


def set_env_complexity(env: gem.Env, complexity: int) -> None:
    """Set the next episode's complexity of ``env``, looking through wrappers and vector envs."""
    for single in getattr(env, "envs", None) or [env]:
        base = single.unwrapped
        if not hasattr(base, "set_complexity"):
            raise TypeError(
                f"{type(base).__name__} has no set_complexity; register it with gymverse.register_env_dir "
                "or wrap it in RebuildOnComplexity so a curriculum can change its complexity"
            )
        base.set_complexity(complexity)


def get_env_complexity(env: gem.Env) -> int:
    base = env.unwrapped
    return base.get_complexity() if hasattr(base, "get_complexity") else getattr(base, "complexity", 1)


def env_classes(module: Any) -> list[type]:
    """The env classes a module defines itself (not those it imports), abstract ones left out."""
    return [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if obj.__module__ == module.__name__
        and issubclass(obj, gem.Env)
        and not inspect.isabstract(obj)
        and obj is not EvolvableEnv
    ]


def library_entries(package: str) -> dict[str, str]:
    """``{ClassName: "module:ClassName"}`` for every game module of a library package, none imported.

    One game per module, the class named after its file (``lights_out.py`` holds ``LightsOut``).
    """
    spec = importlib.util.find_spec(package)
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError(f"no package named {package}")
    entries = {}
    for info in pkgutil.walk_packages(spec.submodule_search_locations, package + "."):
        if not info.ispkg:
            name = "".join(part.capitalize() for part in info.name.rsplit(".", 1)[1].split("_"))
            entries[name] = f"{info.name}:{name}"
    return entries


def register_library(package: str, namespace: str = NAMESPACE) -> RegistrationReport:
    """Register a library package's games as ``<namespace>:<ClassName>`` by ``"module:Class"`` entries."""
    report = RegistrationReport()
    for name, entry in sorted(library_entries(package).items()):
        register_id(f"{namespace}:{name}", entry, report)
    return report


def builtin_env_classes(namespace: str = NAMESPACE) -> list[type[EvolvableEnv]]:
    """Every game class registered under ``namespace`` (imported now), in a stable order."""
    classes = [env_class(env_id) for env_id in registered_ids(namespace)]
    return sorted(classes, key=lambda c: (game_domain(c), c.__name__))


def game_domain(cls: Any) -> str:
    """What a game is about: the ``domain`` its class declares, else the one its file's name gives (GymVerse's
    ``tool_use_...``, ``logic_...``), else ``"misc"``."""
    declared = getattr(cls, "domain", None)
    if isinstance(declared, str) and declared and declared != EvolvableEnv.domain:
        return declared
    module = sys.modules.get(getattr(cls, "__module__", ""))
    return domain_from_file_name(Path(getattr(module, "__file__", None) or "").name) or EvolvableEnv.domain


def register_id(
    env_id: str,
    entry_point: Callable[..., gem.Env] | str,
    report: RegistrationReport,
    kwargs: dict[str, Any] | None = None,
) -> None:
    """Register ``env_id`` (with constructor ``kwargs``, as ``gem.register`` takes them) unless it is taken: by
    the same game it is left as it is, by another one it is a failure in ``report``."""
    if env_id in ENV_REGISTRY:
        if _game_of(ENV_REGISTRY[env_id].entry_point) != _game_of(entry_point):
            report.failed[env_id] = "an environment with this id is already registered"
        return
    gem.register(env_id, entry_point, **(kwargs or {}))
    report.registered.append(env_id)


def _game_of(entry_point: Callable[..., gem.Env] | str) -> Any:
    """What an entry point builds, to compare: a class (or a factory of one) by module and name, so the same file
    imported again is the same game; anything else by itself."""
    cls = getattr(entry_point, "__wrapped__", entry_point)
    return (cls.__module__, cls.__qualname__) if inspect.isclass(cls) else cls


def entry_point_for(cls: type) -> Callable[..., gem.Env]:
    """``cls`` itself for a game of this contract (a :class:`ComplexityKnob`), else a factory that wraps it: in
    :class:`RebuildOnComplexity` for a constructor-only env, in :class:`DeferComplexity` for one with its own
    ``set_complexity`` (which may take effect at once)."""
    if issubclass(cls, ComplexityKnob):
        return cls

    def build(**kwargs: Any) -> gem.Env:
        return DeferComplexity(cls(**kwargs)) if hasattr(cls, "set_complexity") else RebuildOnComplexity(cls, **kwargs)

    build.__name__ = build.__qualname__ = cls.__name__
    build.__wrapped__ = cls  # type: ignore[attr-defined]
    return build


@dataclass
class FolderEntries:
    files: list[Path] = field(default_factory=list)  # readable .py files that may hold games
    bad: dict[str, str] = field(default_factory=dict)  # entry -> why it cannot be read (a loop, a dangling link)


def folder_entries(folder: str | Path) -> FolderEntries:
    """The ``.py`` files of a game folder (``_private.py`` files are helpers), and the entries that cannot be read."""
    folder = Path(folder)
    if folder.is_file():
        raise BadInput(f"{folder} is a file: give the folder that holds it ({folder.parent})")
    if not folder.is_dir():
        raise BadInput(f"no such env folder: {folder}")
    entries = FolderEntries()
    for entry in sorted(folder.iterdir()):
        if entry.suffix != ".py" or entry.name.startswith("_"):
            continue
        try:
            target = entry.resolve(strict=True)
            if not target.is_file():
                raise IsADirectoryError(f"{entry.name} is not a file")
            with open(target, "rb"):
                pass
        except RuntimeError:
            entries.bad[str(entry)] = "a symlink loop"
        except FileNotFoundError:
            entries.bad[str(entry)] = "a dangling symlink" if entry.is_symlink() else "vanished while listed"
        except OSError as error:
            entries.bad[str(entry)] = f"cannot be read: {error.strerror or error}"
        else:
            entries.files.append(entry)
    return entries


def folder_env_specs(
    prefix: str,
    classes_by_file: dict[Path, list[str]],
    registrations: dict[tuple[str, str], list[Registration]] | None = None,
) -> dict[str, tuple[Path, str, dict[str, Any]]]:
    """Every id the games of an env folder take: ``{env id: (file, class name, constructor kwargs)}``.

    A class that ``registrations`` names (GymVerse's ``register()`` calls, :func:`read_registrations`) takes
    those ids and kwargs, one id per call; any other class is ``prefix:<Name>`` for a ``<Name>Env`` class
    (other names as they are), or ``prefix:<file stem>.<Name>`` where that id is taken twice.
    """
    registrations = registrations or {}
    specs: dict[str, tuple[Path, str, dict[str, Any]]] = {}
    unnamed = []
    for file, names in classes_by_file.items():
        for name in names:
            known = registrations.get((file.stem, name), [])
            for env_id, kwargs in known:
                specs[visible(env_id)] = (file, name, dict(kwargs))
            if not known:
                unnamed.append((file, name))
    count = Counter(f"{prefix}:{default_game_name(name)}" for _, name in set(unnamed))
    for file, name in unnamed:
        env_id = f"{prefix}:{default_game_name(name)}"
        if count[env_id] > 1 or env_id in specs:
            env_id = f"{prefix}:{file.stem}.{default_game_name(name)}"
        specs[visible(env_id)] = (file, name, {})  # a file's name can hold anything, a new line too
    return specs


def folder_env_ids(
    prefix: str,
    classes_by_file: dict[Path, list[str]],
    registrations: dict[tuple[str, str], list[Registration]] | None = None,
) -> dict[tuple[Path, str], str]:
    """Each game's own id, one per class: the first of its ids in :func:`folder_env_specs` (the id a verdict names)."""
    ids: dict[tuple[Path, str], str] = {}
    for env_id, (file, name, _) in folder_env_specs(prefix, classes_by_file, registrations).items():
        ids.setdefault((file, name), env_id)
    return ids


def load_env_file(path: str | Path, prefix: str = "sandbox") -> Any:
    """Import one file of an env folder as module ``gymverse_user_envs.<prefix>.<stem>``.

    Entries of ``sys.modules`` the file replaces are put back afterwards (GymVerse's solver scripts swap
    ``gem.core`` for a copy of their own), so one file cannot break the imports of the files after it.
    """
    path = Path(path)
    name = f"gymverse_user_envs.{prefix}.{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be imported as a module")
    module = importlib.util.module_from_spec(spec)
    before = dict(sys.modules)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        for key, kept in before.items():
            if sys.modules.get(key) is not kept:
                sys.modules[key] = kept
    return module


def _describe(error: BaseException) -> str:
    """How importing or building a game ended, in the words a jailed file's row uses."""
    return f"raised {type(error).__name__}: {error}"


def import_env_dir(path: str | Path, prefix: str | None = None) -> RegistrationReport:
    """Import every file of a folder of games into this process and register each game with the ids
    :func:`folder_env_specs` gives: GymVerse's where the ``__init__.py`` beside the folder registers them
    (read, never run), else ``<prefix>:<Name>``.

    For one's own code only (``register_env_dir(..., trusted=True)``); folders that are not ours are
    registered behind jailed proxies by :func:`gymverse.sandbox.register_env_dir`. A file that defines no
    class is a script, not a game, and is not imported; it is in the report's ``failed`` with the files that
    fail to import, unreadable entries and classes that fail to construct; the rest register.
    """
    folder = Path(path)
    entries = folder_entries(folder)
    prefix = prefix or folder.name
    report = RegistrationReport(failed=dict(entries.bad))
    modules = {}
    for file in entries.files:
        try:
            if not defines_a_class(file.read_bytes(), file.name):
                report.failed[str(file)] = NOT_A_GAME
                continue
            modules[file] = load_env_file(file, prefix)
        except BaseException as error:  # a user's file may even call sys.exit
            report.failed[str(file)] = _describe(error)
    classes = {file: {cls.__name__: cls for cls in env_classes(module)} for file, module in modules.items()}
    specs = folder_env_specs(prefix, {file: list(names) for file, names in classes.items()}, read_registrations(folder))
    for env_id, (file, name, kwargs) in specs.items():
        entry_point = entry_point_for(classes[file][name])
        report.files[env_id] = str(file)
        try:
            entry_point(**{"complexity": 1, **kwargs})
        except BaseException as error:
            report.failed[env_id] = _describe(error)
            continue
        register_id(env_id, entry_point, report, kwargs)
    return report


def register_plugins() -> RegistrationReport:
    """Load the entry points of installed packages: in ``gymverse.envs`` a callable is called (it registers
    games), a module is just imported (it registers on import); in ``gymverse.curricula`` a module is imported
    (defining a :class:`~gymverse.curriculum.controllers.Curriculum` subclass registers its ``--curriculum``)."""
    report = RegistrationReport()
    for group in (PLUGIN_GROUP, CURRICULUM_GROUP):
        for point in entry_points(group=group):
            try:
                loaded = point.load()
                if group == PLUGIN_GROUP and callable(loaded) and not inspect.isclass(loaded):
                    result = loaded()
                    if isinstance(result, RegistrationReport):
                        report.merge(result)
            except Exception as error:
                kind = "plugin" if group == PLUGIN_GROUP else "curriculum plugin"
                report.failed[f"{kind} {point.name}"] = _describe(error)
    return report


def highest_complexity(env_id: str) -> int | None:
    """The highest complexity the game behind ``env_id`` declares (``max_complexity``), or None where it declares
    none (third-party games): what a curriculum takes as that environment's ceiling."""
    return getattr(env_class(env_id), "max_complexity", None)


def registered_ids(namespace: str | None = None) -> list[str]:
    return sorted(i for i in ENV_REGISTRY if namespace is None or i.split(":")[0] == namespace)


def env_class(env_id: str) -> type:
    """The class behind a registered id (unwrapping :class:`RebuildOnComplexity` factories)."""
    if env_id not in ENV_REGISTRY:
        raise KeyError(f"unknown environment id {env_id!r}; see `gymverse envs` for the registered ones")
    entry = ENV_REGISTRY[env_id].entry_point
    if isinstance(entry, str):
        module, name = entry.split(":")
        entry = getattr(importlib.import_module(module), name)
    return getattr(entry, "__wrapped__", entry)
