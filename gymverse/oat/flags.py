"""The OAT backend's own flags (GPUs, vLLM, DeepSpeed): one group, importable without OAT.

The OAT backend's args class adds them to OAT's ``PPOArgs`` with GymVerse's defaults; the native trainer takes
them too, so that GymVerse's documented command lines parse, and names them as ignored
(:data:`GPU_ONLY_FLAGS`); ``gymverse genenv`` does not take them.
"""

from dataclasses import dataclass, fields
from typing import Literal, Optional


@dataclass
class OatSettings:
    """The flags only the OAT backend reads."""

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
    critic_type: Literal["ppo", "grpo", "drgrpo"] = "drgrpo"
    """OAT backend: drgrpo (constant normalizer, PERPO's) or grpo; ppo's value critic is refused."""
    top_k: int = -1
    """Top-k sampling while training, OAT backend only (-1: off)."""
    eval_top_k: int = -1
    """Top-k sampling of the evaluation, OAT backend only (-1: off)."""
    rollout_batch_size_per_device: Optional[int] = None
    """OAT backend: turns per learner GPU and step; None = --rollout_batch_size / learner GPUs; given, it sets
    the step's --rollout_batch_size (times the learner GPUs), as in GymVerse."""
    pi_buffer_maxlen_per_device: Optional[int] = None
    """OAT backend: the learner's turn buffer; always one step's turns (None, or the same value as
    --rollout_batch_size_per_device)."""
    apply_chat_template: bool = False
    """Accepted for OAT's command lines; no effect: the games' prompts come from --prompt_template."""


GPU_ONLY_FLAGS = tuple(f.name for f in fields(OatSettings))
