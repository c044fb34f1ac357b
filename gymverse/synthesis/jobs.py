"""What the gates run inside the sandbox's children beyond the env checker: the audit of one game."""

from dataclasses import replace

from gymverse.env.registry import entry_point_for
from gymverse.evaluation.audit import AuditConfig, EnvAudit, audit_env
from gymverse.evaluation.targets import EnvTarget
from gymverse.sandbox.jobs import game_class


def audit_game(path: str, class_name: str, env_id: str, config: AuditConfig) -> EnvAudit:
    """The audit's correctness and difficulty of one class of ``path``, built as registration builds it."""
    cls = game_class(path, class_name)
    audit = audit_env(EnvTarget(env_id, str(getattr(cls, "domain", "misc")), entry_point_for(cls)), config)
    difficulty = audit.difficulty
    if difficulty is not None:  # numpy scalars cannot cross the sandbox's result filter; plain floats can
        difficulty.trends = {k: _plain(t) for k, t in difficulty.trends.items()}
        difficulty.judged = _plain(difficulty.judged) if difficulty.judged else None
    return audit


def _plain(trend):
    return replace(trend, spearman=float(trend.spearman), slope=float(trend.slope), drop=float(trend.drop))
