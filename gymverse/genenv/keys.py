"""GenEnv's command keys (veRL's Hydra overrides, ``key=value``) as ``gymverse genenv`` flags, with veRL's meaning.

Every key of GenEnv's ``scripts/run_genenv.sh`` is either translated (:data:`FLAG_KEYS`, :data:`SWITCH_KEYS`
and the keys :func:`genenv_argv` derives flags from) or, when it only places work on GPUs, named and ignored
(:data:`HARDWARE_KEYS`). A key given twice keeps its last value, as in Hydra; ``--flags`` pass through and
win over keys. Other veRL keys are named and ignored; an unknown ``genenv.*`` key is an error.
"""

from gymverse.errors import BadInput

FLAG_KEYS = {  # key -> the flag that takes its value as it is
    "genenv.filtering_k": "filtering_k",
    "genenv.num_generations_per_prompt": "num_generations_per_prompt",
    "genenv.alpha": "alpha",
    "genenv.beta": "env_beta",
    "genenv.k_min": "k_min",
    "env_model_path": "env_model",
    "actor_rollout_ref.model.path": "pretrain",
    "actor_rollout_ref.actor.optim.lr": "learning_rate",
    "actor_rollout_ref.actor.clip_ratio": "cliprange",
    "actor_rollout_ref.actor.ppo_epochs": "num_ppo_epochs",
    "actor_rollout_ref.actor.ppo_micro_batch_size": "train_batch_size_per_device",
    "actor_rollout_ref.actor.kl_loss_type": "kl_loss_type",
    "actor_rollout_ref.rollout.n": "attempts",
    "actor_rollout_ref.rollout.n_val": "val_n",
    "actor_rollout_ref.rollout.temperature": "temperature",
    "actor_rollout_ref.rollout.val_temperature": "eval_temperature",
    "algorithm.kl_ctrl.kl_coef": "kl_penalty_coef",
    "algorithm.kl_penalty": "kl_penalty_type",
    "data.train_files": "train_files",
    "data.val_files": "val_files",
    "data.train_batch_size": "prompts_per_step",
    "data.val_batch_size": "val_batch_size",
    "data.max_prompt_length": "max_prompt_length",
    "data.max_response_length": "generate_max_length",
    "data.truncation": "truncation",
    "trainer.default_local_dir": "save_path",
    "trainer.total_epochs": "total_epochs",
    "trainer.experiment_name": "wb_run_name",
    "trainer.project_name": "wb_project",
    "trainer.save_freq": "save_steps",
    "trainer.test_freq": "eval_steps",
}
SWITCH_KEYS = {  # key=True|False -> --flag | --no-flag
    "genenv.enable": "genenv_enable",
    "actor_rollout_ref.model.enable_gradient_checkpointing": "gradient_checkpointing",
    "data.filter_overlong_prompts": "filter_overlong_prompts",
    "trainer.val_before_train": "eval_before_train",
}
DERIVED_KEYS = (  # read together by genenv_argv
    "actor_rollout_ref.actor.use_kl_loss",
    "actor_rollout_ref.actor.kl_loss_coef",
    "actor_rollout_ref.actor.ppo_mini_batch_size",
    "algorithm.adv_estimator",
    "trainer.logger",
)
HARDWARE_KEYS = {  # key -> why it changes nothing here: it places or packs work on GPUs, the maths is the same
    "actor_rollout_ref.model.use_remove_padding": "padding-free kernels (speed only)",
    "actor_rollout_ref.actor.use_dynamic_bsz": "micro-batches packed by tokens (speed and memory; same gradient)",
    "actor_rollout_ref.actor.ppo_max_token_len_per_gpu": "the token budget of those packed micro-batches",
    "actor_rollout_ref.actor.fsdp_config.param_offload": "FSDP parameter offload (memory only)",
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload": "FSDP optimizer offload (memory only)",
    "actor_rollout_ref.ref.fsdp_config.param_offload": "FSDP offload of the reference model (memory only)",
    "actor_rollout_ref.rollout.tensor_model_parallel_size": "vLLM tensor parallelism",
    "actor_rollout_ref.rollout.name": "the rollout engine (the agent samples with what --model names)",
    "actor_rollout_ref.rollout.gpu_memory_utilization": "vLLM's share of GPU memory",
    "trainer.n_gpus_per_node": "GPUs per node (one process here)",
    "trainer.nnodes": "nodes (one process here)",
    "trainer.critic_warmup": "critic warm-up steps: GRPO has no critic (no effect in veRL's GRPO either)",
}
VERL_KL_LOSS_COEF = 0.001  # veRL's default actor.kl_loss_coef
DEFAULT_ATTEMPTS = 4  # GenEnvArgs.attempts


def genenv_argv(argv: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``(flags, hardware keys, other keys)``: GenEnv's ``key=value`` tokens as flags (before the ``--flags``
    that pass through, so a flag wins over a key), and the keys named and ignored."""
    values: dict[str, str] = {}
    passed, hardware, unknown = [], [], []
    for token in argv:
        if token.startswith("-") or "=" not in token:
            passed.append(token)
            continue
        key, value = token.split("=", 1)
        key = key.lstrip("+")  # Hydra's "add a key" prefix
        if key in FLAG_KEYS or key in SWITCH_KEYS or key in DERIVED_KEYS:
            values.pop(key, None)
            values[key] = value
        elif key in HARDWARE_KEYS:
            hardware.append(key)
        elif key.startswith("genenv."):
            known = [k for k in (*FLAG_KEYS, *SWITCH_KEYS) if k.startswith("genenv.")]
            raise BadInput(f"{key}: not a GenEnv key; known: {', '.join(known)}")
        else:
            unknown.append(key)
    return _flags(values, passed) + passed, list(dict.fromkeys(hardware)), list(dict.fromkeys(unknown))


USE_KL_LOSS, KL_LOSS_COEF = "actor_rollout_ref.actor.use_kl_loss", "actor_rollout_ref.actor.kl_loss_coef"
MINI_BATCH, REPLIES = "actor_rollout_ref.actor.ppo_mini_batch_size", "actor_rollout_ref.rollout.n"


def _flags(values: dict[str, str], passed: list[str]) -> list[str]:
    flags: list[str] = []
    for key, value in values.items():
        if key in FLAG_KEYS:
            flags += [f"--{FLAG_KEYS[key]}", value]
        elif key in SWITCH_KEYS:
            flags.append(f"--{SWITCH_KEYS[key]}" if _truth(key, value) else f"--no-{SWITCH_KEYS[key]}")
    if "data.train_files" in values:
        flags += ["--task_space", "datasets"]
    if USE_KL_LOSS in values or KL_LOSS_COEF in values:  # veRL: no KL loss unless use_kl_loss=True
        use = _truth(USE_KL_LOSS, values.get(USE_KL_LOSS, "False"))
        flags += ["--beta", values.get(KL_LOSS_COEF, str(VERL_KL_LOSS_COEF)) if use else "0"]
    if MINI_BATCH in values:  # veRL counts it in prompts, each with n replies
        replies = values.get(REPLIES) or _flag_value(passed, "attempts") or str(DEFAULT_ATTEMPTS)
        flags += ["--train_batch_size", str(_count(MINI_BATCH, values[MINI_BATCH]) * _count(REPLIES, replies))]
    estimator = values.get("algorithm.adv_estimator")
    if estimator is not None and estimator != "grpo":
        raise BadInput(
            f"algorithm.adv_estimator={estimator}: the agent learns with GRPO here (rewards normalized over "
            "the replies to a prompt); use grpo"
        )
    if "trainer.logger" in values:
        flags.append("--use_wb" if "wandb" in values["trainer.logger"] else "--no-use_wb")
    return flags


def _truth(key: str, value: str) -> bool:
    if value.lower() not in ("true", "false", "1", "0"):
        raise BadInput(f"{key}={value}: write True or False")
    return value.lower() in ("true", "1")


def _count(key: str, value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise BadInput(f"{key}={value}: write a whole number of at least 1")
    return count


def _flag_value(flags: list[str], name: str) -> str | None:
    """The last value ``flags`` give ``--name`` (spelled with ``_`` or ``-``), if any."""
    value = None
    for k, token in enumerate(flags):
        flag, _, inline = token.partition("=")
        if flag.replace("-", "_") == f"__{name}":
            value = inline or (flags[k + 1] if k + 1 < len(flags) else None)
    return value
