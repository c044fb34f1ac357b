"""Command-line arguments of the native trainer, with OAT's and GymVerse's flag names.

``TrainArgs`` is the run loop's configuration (``gymverse.run.config.LoopConfig``: ``RunConfig``, shared
with the OAT backend, defaults included, plus --device, --cpu_threads and --resume); the GPU-only flags
(``GPU_ONLY_FLAGS``) are accepted and listed as ignored, so the command lines documented for GymVerse parse
unchanged. Flags are parsed by tyro, as in OAT: ``--a_b`` and ``--a-b`` are the same flag, booleans are
``--flag`` / ``--no-flag``.
"""

from dataclasses import dataclass

from gymverse.run.config import LoopConfig


@dataclass
class TrainArgs(LoopConfig):
    """PERPO with the native trainer: one process, Hugging Face models, a CPU by default."""


# OAT's flags that need GPUs: accepted (GymVerse's command lines parse unchanged) and listed as ignored.
GPU_ONLY_FLAGS = (
    "gpus",
    "num_gpus_per_actor",
    "num_groups",
    "launch_type",
    "enable_prefix_caching",
    "collocate",
    "vllm_sleep",
    "vllm_gpu_ratio",
    "shm_size_mb",
    "asynchronous",
    "rollout_batch_size_per_device",
    "pi_buffer_maxlen_per_device",
    "zero_stage",
    "bf16",
    "flash_attn",
    "ref_offload",
    "adam_offload",
    "critic_type",
    "top_k",
    "eval_top_k",
    "apply_chat_template",
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
