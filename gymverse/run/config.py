"""The run configuration: the flags every trainer reads the same way, and what follows from them.

``RunConfig`` holds what GymVerse adds to OAT's flags (environments, PERPO returns, curriculum,
online evaluation). Each trainer's own args class inherits it (the native ``TrainArgs``, the OAT
backend's class next to OAT's ``PPOArgs``), so a flag means one thing on every backend. The
helpers below read a config (any object with these attributes): the training and evaluation ids,
the evaluation levels and settings, the curriculum's parameters; :func:`validate_run_config`
refuses values no trainer can run with, naming the flag as the user typed it.
"""

from dataclasses import dataclass
from typing import Literal, Optional

from gymverse.curriculum import CURRICULA
from gymverse.errors import BadInput
from gymverse.rollout import split_env_ids

# Two games whose early levels a tiny byte-level model learns from the latest observation alone.
DEMO_ENVS = "gymverse:GridCourier|gymverse:MailSorter"
TEMPLATE_NAMES = Literal["qwen3_game", "qwen3_general", "qwen3_tool", "code", "no", "chat"]


@dataclass
class RunConfig:
    """GymVerse's flags: environments, PERPO returns, curriculum, evaluation."""

    env_id: str = DEMO_ENVS
    """Training environments: registered ids joined by "|"; one vector env of --num_env copies per id."""
    num_env: int = 4
    """Copies of each training environment played side by side."""
    wrappers: str = ""
    """GEM observation wrappers, comma-separated (e.g. "concat"); "" or "none" for none."""
    async_env: bool = False
    """Step each vector env's copies in a thread pool (GEM's async mode)."""
    prompt_template: TEMPLATE_NAMES = "qwen3_game"
    """Prompt template that turns an observation into the model's prompt."""
    env_sampling: Literal["round_robin", "mixed"] = "round_robin"
    """round_robin: each step plays one environment in turn (GymVerse); mixed: every step plays all of them."""

    gamma: float = 1.0
    """Discount of the PERPO returns G_t = r_t + gamma * G_{t+1}."""
    norm_return: bool = True
    """Normalize the returns per environment over the batch (PERPO); --no-norm_return trains on raw returns."""
    length_norm_constant: Optional[int] = None
    """Constant that divides each reply's token sum in the loss (Dr.GRPO); None = --generate_max_length."""

    evolve: bool = False
    """Let a curriculum move each environment's complexity with its success rate."""
    curriculum: Literal["threshold", "alpha", "ratchet"] = "threshold"
    """threshold (GymVerse's evolve), alpha (GenEnv: success near --alpha) or ratchet (RLVE: up only)."""
    train_difficulty: int = 1
    """Complexity every training environment starts at."""
    min_difficulty: int = 1
    """Lowest complexity the curriculum may set."""
    max_difficulty: int = 10
    """Highest complexity the curriculum may set."""
    up_threshold: float = 0.8
    """threshold curriculum: success rate that counts a batch towards a level up."""
    down_threshold: float = 0.1
    """threshold curriculum: success rate that counts a batch towards a level down."""
    up_steps: int = 3
    """threshold curriculum: batches in a row at or above --up_threshold before a level up."""
    down_steps: int = 3
    """threshold curriculum: batches in a row at or below --down_threshold before a level down."""
    alpha: float = 0.5
    """alpha curriculum: the success rate to keep each environment at."""
    k_min: float = 0.1
    """alpha curriculum: the level moves only when success is further than this from --alpha."""
    ratchet_accuracy: float = 0.9
    """ratchet curriculum: accuracy at the current level that moves one level up."""
    ratchet_min_episodes: int = 32
    """ratchet curriculum: episodes at the current level before a move is considered."""

    eval_envs: str = ""
    """Evaluation environments joined by "|" ("" = the training environments)."""
    eval_difficulty: str = "1"
    """Complexities the evaluation plays, joined by "|" (e.g. "1|5|10")."""
    eval_wrappers: str = ""
    """Wrappers of the evaluation envs: "" = --wrappers, one value for all, or one per --eval_envs id joined by "|"."""
    eval_prompt_templates: str = ""
    """Templates of the evaluation envs: "" = --prompt_template, one for all, or one per --eval_envs id joined by "|"."""
    eval_n: int = 16
    """Episodes per evaluated environment and complexity."""

    dump_experience_every: int = 1
    """Save the sampled episodes to trajectories/ every this many steps (0 = never)."""
    keep_generation_failed: bool = False
    """Train on episodes whose prompt outgrew --max_model_len (scored as failures) instead of dropping them."""


def wrappers_spec(spec: str) -> str:
    """GEM's wrapper list from a flag value ("none" is no wrapper)."""
    return "" if spec.strip().lower() in ("", "none") else spec


def train_env_ids(config) -> list[str]:
    return split_env_ids(config.env_id)


def eval_env_ids(config) -> list[str]:
    """``--eval_envs``, or the training environments when it is empty."""
    return split_env_ids(config.eval_envs) or train_env_ids(config)


def eval_levels(config) -> list[int]:
    return [int(level) for level in split_env_ids(config.eval_difficulty)]


def eval_settings(config) -> dict[str, tuple[str, str]]:
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


def curriculum_params(config) -> dict:
    """Keyword arguments of ``gymverse.curriculum.make_curriculum`` for ``config.curriculum``."""
    bounds = dict(start=config.train_difficulty, min_complexity=config.min_difficulty,
                  max_complexity=config.max_difficulty)
    own = {
        "threshold": dict(up_threshold=config.up_threshold, down_threshold=config.down_threshold,
                          up_steps=config.up_steps, down_steps=config.down_steps),
        "alpha": dict(alpha=config.alpha, k_min=config.k_min),
        "ratchet": dict(accuracy=config.ratchet_accuracy, min_episodes=config.ratchet_min_episodes),
    }[config.curriculum]
    return {**bounds, **own}


def validate_run_config(config) -> None:
    """Raise :class:`BadInput` for values no trainer can run with."""
    if not train_env_ids(config):
        raise BadInput("--env_id is empty; give one or more environment ids joined by '|'")
    if config.num_env < 1:
        raise BadInput(f"--num_env must be at least 1, got {config.num_env}")
    if not 0.0 <= config.gamma <= 1.0:
        raise BadInput(f"--gamma must lie in [0, 1], got {config.gamma}")
    if not 1 <= config.min_difficulty <= config.train_difficulty <= config.max_difficulty:
        raise BadInput(
            "complexities must satisfy 1 <= --min_difficulty <= --train_difficulty <= --max_difficulty, got "
            f"{config.min_difficulty}, {config.train_difficulty}, {config.max_difficulty}"
        )
    if config.curriculum not in CURRICULA:
        raise BadInput(f"unknown --curriculum {config.curriculum!r}; choose one of {sorted(CURRICULA)}")
    try:
        levels = eval_levels(config)
    except ValueError:
        raise BadInput(f"--eval_difficulty must be integers joined by '|', got {config.eval_difficulty!r}") from None
    if not levels or min(levels) < 1:
        raise BadInput(f"--eval_difficulty needs complexities >= 1, got {config.eval_difficulty!r}")
    eval_settings(config)  # raises on a bad --eval_wrappers / --eval_prompt_templates
