"""The OAT backend's flags: every flag of OAT's PPO, plus the run configuration (``RunConfig``) and the
backend's own group (``OatSettings``, with GymVerse's defaults).

GymVerse's values win where both define a flag (``gamma``, ``eval_n``, ``gpus``), so both trainers read the
same flags the same way.
"""

from dataclasses import dataclass

from oat.algorithms.ppo import PPOArgs

from gymverse.oat.flags import OatSettings
from gymverse.run.config import RunConfig


@dataclass
class OATPerpoArgs(OatSettings, RunConfig, PPOArgs):
    """PERPO on OAT: vLLM actors play GymVerse games, DeepSpeed learners train on the turns."""
