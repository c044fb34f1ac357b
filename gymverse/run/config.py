"""The run configuration: the flags every trainer reads the same way, and what follows from them.

``RunConfig`` holds what GymVerse adds to OAT's flags (environments, PERPO returns, curriculum,
online evaluation). Each trainer's own args class inherits it (the native ``TrainArgs``, the OAT
backend's class next to OAT's ``PPOArgs``), so a flag means one thing on every backend. The
helpers below read a config (any object with these attributes): the training and evaluation ids,
the evaluation levels and settings; :func:`validate_run_config`
refuses values no trainer can run with, naming the flag as the user typed it.
"""

import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import Annotated, Literal, Optional

import tyro

from gymverse.curriculum import CurriculumSettings, validate_curriculum
from gymverse.env.id_lists import split_env_ids
from gymverse.errors import BadInput, require_at_least_one

# Two games whose early levels a tiny byte-level model learns from the latest observation alone.
DEMO_ENVS = "gymverse:GridCourier|gymverse:MailSorter"
TEMPLATE_NAMES = Literal["qwen3_game", "qwen3_general", "qwen3_tool", "code", "no", "chat"]


@dataclass
class RunConfig(CurriculumSettings):
    """The flags both trainers read, with one set of defaults: the CPU demo's (the tiny model learns two
    games with a curriculum in a few minutes). OAT's own defaults, where they differ, are in brackets. The
    curriculum's flags are :class:`~gymverse.curriculum.CurriculumSettings`'."""

    # -- environments
    env_id: str = DEMO_ENVS
    """Training environments: registered ids joined by "|"; one vector env of --num_env copies per id."""
    num_env: int = 16
    """Copies of each training environment played side by side [GymVerse: 4]."""
    wrappers: str = ""
    """GEM observation wrappers, comma-separated (e.g. "concat"); "" or "none" for none."""
    async_env: bool = False
    """Step each vector env's copies in a thread pool (GEM's async mode)."""
    prompt_template: TEMPLATE_NAMES = "no"
    """Prompt template that turns an observation into the model's prompt [GymVerse: qwen3_game]."""
    env_sampling: Literal["round_robin", "mixed"] = "round_robin"
    """round_robin: each step plays one environment in turn (GymVerse); mixed: every step plays all of them."""
    env_dir: Annotated[list[str], tyro.conf.UseAppendAction] = field(default_factory=list)
    """Folder of game files to register in every process that plays (GymVerse's folder under its own ids)."""
    trusted: bool = False
    """Import the --env_dir folders into this process instead of jailing each file (your own code only)."""

    # -- PERPO returns
    gamma: float = 0.9
    """Discount of the PERPO returns G_t = r_t + gamma * G_{t+1} [GymVerse: 1.0]."""
    norm_return: bool = True
    """Normalize the returns per environment over the batch (PERPO); --no-norm_return trains on raw returns."""
    norm_scope: Literal["env", "batch", "group"] = "env"
    """Over which turns a return is normalized: env (each environment's turns in the batch, PERPO), batch (all
    turns together) or group (the turns of the episodes whose copies began from one seed, GRPO's group; needs
    --group_size of 2 or more). The native trainer only; OAT normalizes per environment."""
    group_size: int = 1
    """Copies of each training environment reset from one seed, so their episodes start from the same instance."""
    length_norm_constant: Optional[int] = None
    """Constant that divides each reply's token sum in the loss (Dr.GRPO); None = --generate_max_length."""
    non_stop_penalty: float = 0.0
    """Added to the reward of a turn whose reply was cut at --generate_max_length (OAT's flag)."""
    non_stop_fixed_reward: Optional[float] = None
    """Reward of a turn whose reply was cut at --generate_max_length, instead of the game's (OAT's flag)."""

    # -- model and warm start
    pretrain: str = "tiny"
    """Model to train: "tiny" (built from a config, no download), a Hugging Face model folder, or on OAT a Hub id."""
    ref_pretrain: Optional[str] = None
    """Reference model of the KL penalty (--beta > 0); None = the starting model."""
    sft_episodes: int = -1
    """Warm start: solver-demonstration episodes per environment before RL (-1: 100 for "tiny", else 0)."""
    sft_epsilon: float = 0.5
    """Warm start: probability that the demonstrator plays a random move instead of the solver's."""
    sft_label: Literal["solver", "played"] = "played"
    """Warm start: what each demonstrated move is labelled with: the solver's move (the demonstrations show how to
    recover from random moves) or the move played (the epsilon-solver's own, noisy: RL has to beat its teacher)."""
    sft_levels: int = 1
    """Warm start: complexities demonstrated, from --train_difficulty up."""
    sft_epochs: int = 6
    """Warm start: passes over the demonstrations."""
    sft_batch_size: int = 16
    """Warm start: demonstrated moves per optimizer step."""
    sft_learning_rate: float = 2e-3
    """Warm start: peak learning rate (decays linearly to 0)."""

    # -- generation
    max_model_len: Optional[int] = 512
    """Longest prompt plus reply; an episode whose prompt outgrows it ends as a failure [OAT: the model's]."""
    generate_max_length: int = 16
    """Most tokens of one reply; a longer one is cut and played as an invalid action [OAT: 512]."""
    temperature: float = 1.0
    """Sampling temperature while training."""
    top_p: float = 1.0
    """Nucleus sampling while training."""
    top_k: int = -1
    """Top-k sampling while training, OAT backend only (-1: off)."""
    num_samples: int = 1
    """Replies per prompt; must be 1, each turn of an episode gets one reply [OAT: 2]."""

    # -- PPO
    num_ppo_epochs: int = 1
    """Passes over each step's turns."""
    cliprange: float = 0.2
    """PPO clip range of the token probability ratios."""
    beta: float = 0.0
    """Weight of the KL penalty to the reference model (native trainer: 0 loads no reference model) [OAT: 0.1]."""
    learning_rate: float = 1e-4
    """Peak learning rate (the demo's, from a warm start on the epsilon-solver's moves) [OAT: 5e-7]."""
    lr_scheduler: Literal["cosine_with_min_lr", "polynomial", "constant"] = "constant"
    """Learning-rate schedule over the run [OAT: cosine_with_min_lr]."""
    lr_warmup_ratio: float = 0.0
    """Share of the run's optimizer steps spent warming the learning rate up [OAT: 0.03]."""
    max_norm: float = 1.0
    """Gradient norm clip."""
    adam_beta_1: float = 0.9
    """Adam's beta 1."""
    adam_beta_2: float = 0.95
    """Adam's beta 2."""
    l2: float = 0.0
    """Weight decay."""
    gradient_checkpointing: bool = False
    """Recompute activations in the backward pass (less memory, more time)."""
    critic_type: Literal["ppo", "grpo", "drgrpo"] = "drgrpo"
    """OAT backend: drgrpo (constant normalizer, PERPO's) or grpo; ppo's value critic is refused."""

    # -- batches, counted in turns (one reply each)
    rollout_batch_size: int = 48
    """Turns a step trains on [OAT: 128]."""
    train_batch_size: int = 16
    """Turns per optimizer step [OAT: 128]."""
    train_batch_size_per_device: int = 16
    """Turns per forward/backward pass (gradients accumulate up to --train_batch_size) [OAT: 1]."""
    max_train: int = 2880
    """Turns the whole run trains on: --max_train // --rollout_batch_size steps [OAT: 50000]."""
    rollout_batch_size_per_device: Optional[int] = None
    """OAT backend: turns per learner GPU and step; None = --rollout_batch_size / learner GPUs; given, it sets
    the step's --rollout_batch_size (times the learner GPUs), as in GymVerse."""
    pi_buffer_maxlen_per_device: Optional[int] = None
    """OAT backend: the learner's turn buffer; always one step's turns (None, or the same value as
    --rollout_batch_size_per_device)."""

    # -- evaluation
    eval_envs: str = ""
    """Evaluation environments joined by "|" ("" = the training environments)."""
    eval_difficulty: str = "1|4"
    """Complexities the evaluation plays, joined by "|" [GymVerse: 1]."""
    eval_wrappers: str = ""
    """Wrappers of the evaluation envs: "" = --wrappers, one value for all, or one per --eval_envs id joined by "|"."""
    eval_prompt_templates: str = ""
    """Templates of the evaluation envs: "" = --prompt_template, one for all, or one per --eval_envs id joined by "|"."""
    eval_n: int = 32
    """Episodes per evaluated environment and complexity."""
    eval_steps: int = 20
    """Evaluate every this many steps, and before and after training (<= 0: native trainer before and after
    only, OAT never) [OAT: 20]."""
    eval_temperature: float = 0.0
    """Sampling temperature of the evaluation (0: greedy)."""
    eval_top_p: float = 0.95
    """Nucleus sampling of the evaluation [OAT: 1.0]."""
    eval_top_k: int = -1
    """Top-k sampling of the evaluation, OAT backend only (-1: off)."""
    eval_generate_max_length: int = 16
    """Most tokens of one evaluation reply [OAT: 512]."""

    # -- run folder, checkpoints, logging
    save_path: str = "./oat-output"
    """Folder that holds the run folders."""
    wb_run_name: str = ""
    """Name of the run: its folder is <--save_path>/<--wb_run_name> (OAT adds a timestamp), also on Weights & Biases;
    "" = perpo-<the games' names>, so runs on other games never share a folder [OAT: debug]."""
    save_steps: int = -1
    """Save a checkpoint every this many steps, and at the end (<= 0: native trainer at the end only, OAT never)."""
    max_save_num: int = 5
    """Checkpoints kept (the newest)."""
    dump_experience_every: int = 1
    """Save the sampled episodes to trajectories/ every this many steps (0 = never)."""
    keep_generation_failed: bool = False
    """Train on episodes whose prompt outgrew --max_model_len (scored as failures) instead of dropping them."""
    seed: int = 42
    """Seed of the games, the sampling and the batch order."""
    rnd_seed: bool = False
    """Draw the seed from the clock instead of --seed; the drawn seed is saved with the run."""
    use_wb: bool = False
    """Log to Weights & Biases (offline when no API key is configured)."""
    wb_org: Optional[str] = None
    """Weights & Biases entity."""
    wb_group: Optional[str] = None
    """Weights & Biases group."""
    wb_project: str = "oat-llm"
    """Weights & Biases project."""

    # -- OAT backend (GPUs); the native trainer lists them as ignored
    gpus: int = 1
    """OAT backend: GPUs of one group; OAT uses every GPU that CUDA_VISIBLE_DEVICES lists [OAT: 8]."""
    num_gpus_per_actor: int = 1
    """OAT backend: GPUs of one vLLM actor (tensor parallel): 1, 2, 4 or 8."""
    num_groups: int = 1
    """OAT backend: groups (machines) of --gpus GPUs each."""
    collocate: bool = False
    """OAT backend: actors and learners share every GPU (else half the GPUs act, half learn)."""
    vllm_gpu_ratio: float = 0.25
    """OAT backend: share of each actor GPU's memory vLLM takes."""
    vllm_sleep: bool = False
    """OAT backend: vLLM frees its memory while the learners train (with --collocate)."""
    enable_prefix_caching: bool = False
    """OAT backend: vLLM reuses the cached prompt prefix of the growing episodes."""
    asynchronous: bool = False
    """OAT backend: actors play the next step while learners train; the curriculum then lags one step."""
    launch_type: str = "local_mp"
    """OAT backend: launchpad's launch type."""
    shm_size_mb: int = 5000
    """OAT backend: shared memory between actors and learners, in MB."""
    zero_stage: int = 2
    """OAT backend: DeepSpeed ZeRO stage."""
    bf16: bool = True
    """OAT backend: train and generate in bfloat16."""
    flash_attn: bool = True
    """OAT backend: FlashAttention 2 in the learners."""
    ref_offload: bool = False
    """OAT backend: keep the reference model on the CPU."""
    adam_offload: bool = False
    """OAT backend: keep the optimizer state on the CPU."""
    apply_chat_template: bool = False
    """Accepted for OAT's command lines; no effect: the games' prompts come from --prompt_template."""


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


def train_env_ids(config) -> list[str]:
    return split_env_ids(config.env_id)


def default_run_name(config) -> str:
    """``perpo-<game names>`` (``perpo-GridCourier-MailSorter``): a run's folder named after what it trains; a long
    list is cut and keeps a hash of the whole."""
    ids = train_env_ids(config)
    names = "-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", env_id.split(":")[-1]) for env_id in ids)
    if len(names) > 60:
        names = f"{names[:50]}-{hashlib.sha1('|'.join(ids).encode()).hexdigest()[:8]}"
    return f"perpo-{names}"


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


def validate_run_config(config) -> None:
    """Raise :class:`BadInput` for values no trainer can run with."""
    if not train_env_ids(config):
        raise BadInput("--env_id is empty; give one or more environment ids joined by '|'")
    if config.num_env < 1:
        raise BadInput(f"--num_env must be at least 1, got {config.num_env}")
    if not 0.0 <= config.gamma <= 1.0:
        raise BadInput(f"--gamma must lie in [0, 1], got {config.gamma}")
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
    if not 1 <= config.group_size <= config.num_env:
        raise BadInput(f"--group_size must lie in [1, --num_env ({config.num_env})], got {config.group_size}")
    if config.norm_scope == "group" and config.group_size < 2:
        raise BadInput("--norm_scope group needs --group_size of 2 or more (copies that begin from one seed)")
    if not math.isfinite(config.learning_rate) or config.learning_rate < 0:
        raise BadInput(f"--learning_rate must be a non-negative number, got {config.learning_rate}")


def validate_loop_config(config) -> None:
    """:func:`validate_run_config`, and the run loop's own flags."""
    validate_run_config(config)
    if config.cpu_threads < 0:
        raise BadInput(f"--cpu_threads must be 0 (torch's default) or more, got {config.cpu_threads}")
