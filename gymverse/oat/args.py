"""The OAT backend's flags: every flag of OAT's PPO, plus the run configuration (``RunConfig``).

GymVerse's values win where both define a flag (``gamma``, ``eval_n``), so both trainers read the
same flags the same way.
"""

from dataclasses import dataclass

from oat.algorithms.ppo import PPOArgs

from gymverse.run.config import RunConfig


@dataclass
class OATPerpoArgs(RunConfig, PPOArgs):
    """PERPO on OAT: vLLM actors play GymVerse games, DeepSpeed learners train on the turns."""
