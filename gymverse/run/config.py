"""The run configuration: the flags every trainer reads the same way, and what follows from them.

``RunConfig`` holds what GymVerse adds to OAT's flags, composed of the settings by concern
(:mod:`gymverse.run.settings`: environments, PERPO returns, warm start, generation, update, batches,
evaluation, run files; the curriculum's ``CurriculumSettings``). Each trainer's own args class inherits it (the
native ``TrainArgs``, the OAT backend's class next to OAT's ``PPOArgs``), so a flag means one thing on every
backend.
The helpers below read the concern they need: the training and evaluation ids, the evaluation levels and
settings; :func:`validate_run_config` refuses values no trainer can run with, naming the flag as the user typed it.
"""

import hashlib
import math
import re
from dataclasses import dataclass
from typing import Literal

from gymverse.curriculum import CurriculumSettings, validate_curriculum
from gymverse.env.id_lists import split_env_ids
from gymverse.errors import BadInput, require_at_least_one, require_rate
from gymverse.run.settings import (
    BatchSettings,
    EnvSettings,
    EvalSettings,
    GenerationSettings,
    ReturnSettings,
    RunFileSettings,
    UpdateSettings,
    WarmStartSettings,
)


@dataclass
class RunConfig(
    RunFileSettings,
    EvalSettings,
    BatchSettings,
    UpdateSettings,
    GenerationSettings,
    WarmStartSettings,
    CurriculumSettings,
    ReturnSettings,
    EnvSettings,
):
    """The flags both trainers read, with one set of defaults: the CPU demo's (the tiny model learns two
    games with a curriculum in a few minutes). OAT's own defaults, where they differ, are in brackets.
    Each concern's flags are declared in its settings class (:mod:`gymverse.run.settings`, the curriculum's
    :class:`~gymverse.curriculum.CurriculumSettings`), listed last to first, so that ``--help`` shows them in the
    order environments, returns, curriculum, warm start, ... run files."""


@dataclass
class LoopConfig(RunConfig):
    """The run configuration of a trainer on the in-process run loop (``gymverse.run.loop``): the PERPO trainer
    and GenEnv's co-evolution. Adds where the models run and whether the run continues a saved one."""

    device: str = "cpu"
    """Torch device of the model (e.g. cpu, cuda)."""
    cpu_threads: int = 1
    """Torch threads on a CPU (0: torch's default); small models run fastest on one, also beside other work."""
    resume: bool = False
    """Continue the latest run folder named --wb_run_name from its last checkpoint."""
    kl_loss_type: Literal["low_var_kl", "kl", "abs", "mse"] = "low_var_kl"
    """Estimator of the KL penalty that --beta weighs (veRL's kl_loss_type): low_var_kl (k3, clipped to 10), kl
    (k1), abs or mse (k2)."""
    eval_before_train: bool = True
    """Evaluate before the first step (GenEnv: trainer.val_before_train)."""


def wrappers_spec(spec: str) -> str:
    """GEM's wrapper list from a flag value ("none" is no wrapper)."""
    return "" if spec.strip().lower() in ("", "none") else spec


def train_env_ids(envs: EnvSettings) -> list[str]:
    return split_env_ids(envs.env_id)


def default_run_name(envs: EnvSettings) -> str:
    """``perpo-<game names>`` (``perpo-GridCourier-MailSorter``): a run's folder named after what it trains; a long
    list is cut and keeps a hash of the whole."""
    ids = train_env_ids(envs)
    names = "-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", env_id.split(":")[-1]) for env_id in ids)
    if len(names) > 60:
        names = f"{names[:50]}-{hashlib.sha1('|'.join(ids).encode()).hexdigest()[:8]}"
    return f"perpo-{names}"


def eval_env_ids(config: RunConfig) -> list[str]:
    """``--eval_envs``, or the training environments when it is empty."""
    return split_env_ids(config.eval_envs) or train_env_ids(config)


def eval_levels(evaluation: EvalSettings) -> list[int]:
    return [int(level) for level in split_env_ids(evaluation.eval_difficulty)]


def eval_settings(config: RunConfig) -> dict[str, tuple[str, str]]:
    """Wrappers and prompt template of each evaluation environment (an empty flag: the training one;
    one value: for all; else one per environment of ``--eval_envs``, joined by '|')."""
    ids = eval_env_ids(config)

    def per_env(flag: str, default: str) -> list[str]:
        spec = getattr(config, flag)
        values = [v.strip() for v in spec.split("|")] if spec.strip() else [default]
        if len(values) == 1:
            return values * len(ids)
        if len(values) != len(ids):
            raise BadInput(f"--{flag} has {len(values)} values for {len(ids)} evaluation environments")
        return values

    wrappers = [wrappers_spec(w) for w in per_env("eval_wrappers", config.wrappers)]
    return dict(zip(ids, zip(wrappers, per_env("eval_prompt_templates", config.prompt_template))))


def validate_run_config(config: RunConfig) -> None:
    """Raise :class:`BadInput` for values no trainer can run with."""
    if not train_env_ids(config):
        raise BadInput("--env_id is empty; give one or more environment ids joined by '|'")
    require_at_least_one(config, "num_env")
    require_rate(config, "gamma")
    validate_curriculum(config)
    try:
        levels = eval_levels(config)
    except ValueError:
        raise BadInput(f"--eval_difficulty must be integers joined by '|', got {config.eval_difficulty!r}") from None
    if not levels or min(levels) < 1:
        raise BadInput(f"--eval_difficulty needs complexities >= 1, got {config.eval_difficulty!r}")
    eval_settings(config)  # raises on a bad --eval_wrappers / --eval_prompt_templates
    require_at_least_one(
        config,
        "rollout_batch_size",
        "train_batch_size",
        "train_batch_size_per_device",
        "num_ppo_epochs",
        "generate_max_length",
        "max_save_num",
    )
    if config.train_batch_size % config.train_batch_size_per_device:
        raise BadInput(
            f"--train_batch_size ({config.train_batch_size}) must be a multiple of "
            f"--train_batch_size_per_device ({config.train_batch_size_per_device})"
        )
    if config.max_train < config.rollout_batch_size:
        raise BadInput(
            f"--max_train ({config.max_train}) is smaller than one step's "
            f"--rollout_batch_size ({config.rollout_batch_size})"
        )
    if config.num_samples != 1:
        raise BadInput(f"--num_samples must be 1: each turn gets one reply from the policy (got {config.num_samples})")
    if config.temperature <= 0:
        raise BadInput(f"--temperature must be positive for sampling, got {config.temperature}")
    if not math.isfinite(config.learning_rate) or config.learning_rate < 0:
        raise BadInput(f"--learning_rate must be a non-negative number, got {config.learning_rate}")


def validate_loop_config(config: LoopConfig) -> None:
    """:func:`validate_run_config`, and the run loop's own flags."""
    validate_run_config(config)
    if config.cpu_threads < 0:
        raise BadInput(f"--cpu_threads must be 0 (torch's default) or more, got {config.cpu_threads}")
