"""Evaluation of agents (pass@k over a progressive complexity sweep) and of environments (the audit).

``gymverse eval`` runs :func:`run_sweep` and writes its report; ``gymverse audit`` runs
:func:`gymverse.evaluation.audit.run_audit`. Both read envs by id, the whole library or a folder.
"""

from gymverse.evaluation.metrics import difficulty_band, pass_at_k, progressive_levels
from gymverse.evaluation.sweep import SweepConfig, run_sweep

__all__ = ["SweepConfig", "difficulty_band", "pass_at_k", "progressive_levels", "run_sweep"]
