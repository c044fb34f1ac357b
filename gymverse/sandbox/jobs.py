"""What runs inside the sandbox's children: list the games of a file, check or audit one game.

Each function imports the file itself (the child starts from the server's clean state), so a
file's import-time behaviour can never reach the caller or another file's job.
"""

from pathlib import Path

from gymverse.env.checker import CheckReport, check_env
from gymverse.env.registry import env_classes, load_env_file
from gymverse.evaluation.audit import AuditConfig, EnvAudit, audit_env
from gymverse.evaluation.targets import EnvTarget, GameFile


def list_games(path: str) -> list[tuple[str, str]]:
    """``(class name, domain)`` of each env class that ``path`` defines."""
    return [(cls.__name__, getattr(cls, "domain", "misc")) for cls in env_classes(load_env_file(Path(path)))]


def check_game(path: str, class_name: str, env_id: str, levels: list[int], seeds: int) -> CheckReport:
    """The env checker's report on one class of ``path``, built as registration would build it."""
    return check_env(GameFile(path, class_name).make, levels=levels, seeds=seeds, env_id=env_id)


def audit_game(target: EnvTarget, config: AuditConfig) -> EnvAudit:
    """The audit's correctness and difficulty sections on one game (diversity is read by the caller)."""
    return audit_env(target, config)
