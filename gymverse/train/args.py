"""Command-line arguments of the native trainer, with OAT's and GymVerse's flag names.

``TrainArgs`` is the run configuration (``gymverse.run.config.RunConfig``) plus the OAT flags it honours, and the GPU-only flags (``GPU_ONLY_FLAGS``) accepted and
ignored, so the command lines documented for GymVerse parse unchanged. Flags are parsed by tyro, as
in OAT: ``--a_b`` and ``--a-b`` are the same flag, booleans are ``--flag`` / ``--no-flag``.
"""

import math
from dataclasses import dataclass
from typing import Literal, Optional

from gymverse.errors import BadInput
from gymverse.run.config import TEMPLATE_NAMES, RunConfig, validate_run_config

SFT_EPISODES_FOR_TINY = 100


@dataclass
class TrainArgs(RunConfig):
    """The native trainer: runs on a CPU (or one GPU) with Hugging Face models.

    Its defaults are the CPU demo (tiny model, two games, short warm start, PERPO with a
    curriculum, a few minutes on two cores); OAT's defaults are noted where they differ.
    """

    # Demo defaults for RunConfig's flags (OAT/GymVerse: 4 envs, qwen3_game, gamma 1, no evolve, level 1 eval).
    num_env: int = 16
    prompt_template: TEMPLATE_NAMES = "no"
    gamma: float = 0.9
    evolve: bool = True
    eval_difficulty: str = "1|4"
    eval_n: int = 32

    # Model: "tiny" (built from a config), or a Hugging Face directory.
    pretrain: str = "tiny"
    ref_pretrain: Optional[str] = None
    # Supervised warm start from solver demonstrations before RL: episodes per environment, played
    # at the sft_levels complexities from train_difficulty up (-1: SFT_EPISODES_FOR_TINY when
    # --pretrain is "tiny", an untrained model, and none otherwise; 0: never). The demo's warm start
    # covers level 1 only, so the model starts partly competent and RL has something left to learn.
    sft_episodes: int = -1
    sft_levels: int = 1
    sft_epochs: int = 3
    sft_batch_size: int = 16
    sft_learning_rate: float = 2e-3
    device: str = "cpu"
    # Torch threads on a CPU (0: torch's default). Small models run fastest on one thread, and one
    # thread keeps working when other processes share the cores (more threads then wait on each other).
    cpu_threads: int = 1

    # Generation.
    max_model_len: Optional[int] = 512  # OAT: None (the model's limit)
    generate_max_length: int = 16  # OAT: 53
    temperature: float = 1.0
    top_p: float = 1.0
    num_samples: int = 1

    # PPO.
    algo: str = "PPO"
    num_ppo_epochs: int = 1
    cliprange: float = 0.2
    beta: float = 0.0
    # On 48-turn batches, 1e-4 and above let the first Adam steps swamp the signal and success falls.
    learning_rate: float = 3e-5  # OAT: 5e-7 (for billion-parameter models)
    lr_scheduler: Literal["cosine_with_min_lr", "polynomial", "constant"] = "constant"  # OAT: cosine_with_min_lr
    lr_warmup_ratio: float = 0.0  # OAT: 0.03
    max_norm: float = 1.0
    adam_beta_1: float = 0.9
    adam_beta_2: float = 0.95
    l2: float = 0.0
    gradient_checkpointing: bool = False

    # Batches, counted in turns (one response each): a step collects rollout_batch_size turns and
    # trains on them in optimizer steps of train_batch_size (micro-batches of the per-device size).
    rollout_batch_size: int = 48  # OAT: 128
    train_batch_size: int = 16  # OAT: 128
    train_batch_size_per_device: int = 16  # OAT: 1
    # Training stops after this many turns (max_train // rollout_batch_size steps).
    max_train: int = 2880  # OAT: 50000

    # Evaluation (eval_steps <= 0: only before and after training).
    eval_steps: int = 10  # OAT: 20
    eval_temperature: float = 0.0
    eval_top_p: float = 0.95
    eval_generate_max_length: int = 16  # OAT: 200

    # Run folder <save_path>/<wb_run_name>, checkpoints every save_steps (<= 0: at the end only).
    save_path: str = "./oat-output"
    save_steps: int = -1
    max_save_num: int = 5
    # Continue the latest run folder of this run name from its trainer state.
    resume: bool = False
    seed: int = 42
    # Draw the seed from the clock (OAT's flag); the drawn seed is saved with the run.
    rnd_seed: bool = False

    # Weights & Biases (offline when no API key is configured).
    use_wb: bool = False
    wb_org: Optional[str] = None
    wb_group: Optional[str] = None
    wb_project: str = "oat-llm"
    wb_run_name: str = "perpo-demo"  # OAT: debug

    # Accepted for OAT compatibility and ignored by the native trainer (see GPU_ONLY_FLAGS).
    gpus: int = 1
    launch_type: str = "local_mp"
    enable_prefix_caching: bool = False
    collocate: bool = False
    vllm_sleep: bool = False
    vllm_gpu_ratio: float = 0.25
    shm_size_mb: int = 5000
    asynchronous: bool = False
    rollout_batch_size_per_device: int = 16
    pi_buffer_maxlen_per_device: int = 16
    zero_stage: int = 2
    bf16: bool = True
    flash_attn: bool = True
    ref_offload: bool = False
    adam_offload: bool = False
    critic_type: Literal["ppo", "grpo", "drgrpo"] = "drgrpo"
    top_k: float = -1
    eval_top_k: float = -1
    apply_chat_template: bool = False


GPU_ONLY_FLAGS = (
    "gpus", "launch_type", "enable_prefix_caching", "collocate", "vllm_sleep", "vllm_gpu_ratio", "shm_size_mb",
    "asynchronous", "rollout_batch_size_per_device", "pi_buffer_maxlen_per_device", "zero_stage", "bf16",
    "flash_attn", "ref_offload", "adam_offload", "critic_type", "top_k", "eval_top_k", "apply_chat_template",
)


def ignored_flags(argv: list[str]) -> list[str]:
    """The GPU-only flags present on a command line, as the user wrote them."""
    found = []
    for token in argv:
        if not token.startswith("--"):
            continue
        name = token[2:].split("=", 1)[0].replace("-", "_")
        name = name[3:] if name.startswith("no_") and name[3:] in GPU_ONLY_FLAGS else name
        if name in GPU_ONLY_FLAGS:
            found.append(token.split("=", 1)[0])
    return found


def validate_train_args(args: TrainArgs) -> None:
    validate_run_config(args)
    for name in ("rollout_batch_size", "train_batch_size", "train_batch_size_per_device", "num_ppo_epochs",
                 "generate_max_length", "max_save_num"):
        if getattr(args, name) < 1:
            raise BadInput(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.train_batch_size % args.train_batch_size_per_device:
        raise BadInput(
            f"--train_batch_size ({args.train_batch_size}) must be a multiple of "
            f"--train_batch_size_per_device ({args.train_batch_size_per_device})"
        )
    if args.max_train < args.rollout_batch_size:
        raise BadInput(
            f"--max_train ({args.max_train}) is smaller than one step's "
            f"--rollout_batch_size ({args.rollout_batch_size})"
        )
    if args.num_samples != 1:
        raise BadInput(f"--num_samples must be 1: each turn gets one reply from the policy (got {args.num_samples})")
    if args.temperature <= 0:
        raise BadInput(f"--temperature must be positive for sampling, got {args.temperature}")
    if not math.isfinite(args.learning_rate) or args.learning_rate < 0:
        raise BadInput(f"--learning_rate must be a non-negative number, got {args.learning_rate}")
