"""What runs inside the sandbox's children: list the games of a file, check one game.

The audit of one game runs as ``gymverse.evaluation.audit.audit_env`` itself.

Each function imports the file itself (the child starts from the server's clean state), so a
file's import-time behaviour can never reach the caller or another file's job.
"""

from pathlib import Path

from gymverse.env.checker import CheckReport, check_env
from gymverse.env.registry import env_classes, load_env_file
from gymverse.evaluation.targets import GameFile, game_class  # noqa: F401 (the synthesis gates import it here)


def list_games(path: str) -> list[tuple[str, str]]:
    """``(class name, domain)`` of each env class that ``path`` defines."""
    return [(cls.__name__, getattr(cls, "domain", "misc")) for cls in env_classes(load_env_file(Path(path)))]


def check_game(path: str, class_name: str, env_id: str, levels: list[int], seeds: int) -> CheckReport:
    """The env checker's report on one class of ``path``, built as registration would build it."""
    return check_env(GameFile(path, class_name).make, levels=levels, seeds=seeds, env_id=env_id)
