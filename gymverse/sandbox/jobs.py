"""What runs inside the sandbox's children: list the games of a file, check one game.

Each function imports the file itself (the child starts from the server's clean state), so a
file's import-time behaviour can never reach the caller or another file's job.
"""

from pathlib import Path

from gymverse.env.checker import CheckReport, check_env
from gymverse.env.registry import entry_point_for, env_classes, load_env_file


def game_class(path: str, class_name: str) -> type:
    return next(cls for cls in env_classes(load_env_file(Path(path))) if cls.__name__ == class_name)


def list_games(path: str) -> list[str]:
    """The names of the env classes that ``path`` defines."""
    return [cls.__name__ for cls in env_classes(load_env_file(Path(path)))]


def check_game(path: str, class_name: str, env_id: str, levels: list[int], seeds: int) -> CheckReport:
    """The env checker's report on one class of ``path``, built as registration would build it."""
    return check_env(entry_point_for(game_class(path, class_name)), levels=levels, seeds=seeds, env_id=env_id)
