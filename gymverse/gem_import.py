"""GEM without reasoning-gym until a game needs it.

GEM's registry (``gem.envs``) imports reasoning-gym only to name its ``rg:*`` ids, and that import (sympy,
matplotlib, ...) costs 0.8 s, most of what ``import gymverse`` and a jail's start take. Given the dataset names,
the registry is built with a stand-in instead: the ids are the same, and ``gem.make("rg:...")`` or a game that
imports reasoning-gym gets the real package. The names are read once from the real package and kept in the cache
per reasoning-gym version.

Standard library only: the jail's host loads this file by path, without the gymverse package.
"""

import importlib.abc
import importlib.metadata
import importlib.util
import json
import os
import sys
import types
from pathlib import Path
from typing import Any


class GemRegistryFinder(importlib.abc.MetaPathFinder):
    """Imports ``gem.envs`` with a stand-in for reasoning-gym that holds only its dataset names."""

    def __init__(self, datasets: list[str]) -> None:
        self.datasets = datasets

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "gem.envs":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run_init = spec.loader.exec_module

        def exec_module(module: types.ModuleType) -> None:
            if "reasoning_gym" in sys.modules:  # the real one is already there
                return run_init(module)
            stand_in = types.ModuleType("reasoning_gym")
            stand_in.factory = types.SimpleNamespace(DATASETS=dict.fromkeys(self.datasets))  # type: ignore[attr-defined]
            sys.modules["reasoning_gym"] = stand_in
            try:
                run_init(module)
            finally:
                sys.modules.pop("reasoning_gym", None)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def import_gem(cache: Path) -> None:
    """Import GEM, its registry built from the dataset names saved in the folder ``cache`` for the installed
    reasoning-gym; where none are saved, with the real reasoning-gym, whose names are then saved."""
    if "gem.envs" in sys.modules:
        return
    try:
        saved = cache / f"reasoning-gym-{importlib.metadata.version('reasoning-gym')}-datasets.json"
    except importlib.metadata.PackageNotFoundError:
        saved = None
    try:
        datasets = json.loads(saved.read_text()) if saved else None
    except (OSError, ValueError):
        datasets = None
    if isinstance(datasets, list) and all(isinstance(name, str) for name in datasets):
        sys.meta_path.insert(0, GemRegistryFinder(datasets))
    import gem.envs  # noqa: F401

    real = sys.modules.get("reasoning_gym")
    if saved is not None and datasets is None and real is not None:
        save_atomically(saved, json.dumps(list(real.factory.DATASETS)))


def save_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so that a concurrent reader sees all of it or none;
    a cache that cannot be written is skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        temporary.write_text(text)
        os.replace(temporary, path)
    except OSError:
        pass
