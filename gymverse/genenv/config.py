"""``gymverse genenv``'s flags: the run loop's (for the agent; not the OAT backend's) plus the environment
policy's and GenEnv's.

GenEnv's command keys (``genenv.enable=True env_model_path=... data.train_files=...``) become these flags in
:mod:`gymverse.genenv.keys`.
"""

import math
from dataclasses import dataclass
from typing import Literal, Optional

from gymverse.curriculum import AlphaCurriculum, params_of
from gymverse.errors import BadInput, require_at_least_one
from gymverse.genenv.prompts import CURRICULUM, UNIFORM
from gymverse.genenv.rewards import ENV_REWARDS
from gymverse.policy import check_policy
from gymverse.run.config import LoopConfig, validate_loop_config


@dataclass
class GenEnvArgs(LoopConfig):
    """Co-evolution of an agent and an environment policy (GenEnv) on games or on a GenEnv parquet dataset.

    The agent takes the run loop's flags (--pretrain, --learning_rate, --temperature, ...; not the OAT backend's);
    the environment policy takes the --env_* flags.
    """

    # The agent keeps the settings GenEnv's demo was measured with, from before the PERPO demo's recipe changed.
    learning_rate: float = 3e-5
    """Peak learning rate of the agent."""
    sft_epochs: int = 3
    """Warm start: passes over the demonstrations."""
    sft_epsilon: float = 0.2
    """Warm start: probability that the demonstrator plays a random move instead of the solver's."""
    sft_label: Literal["solver", "played"] = "solver"
    """Warm start: what each demonstrated move is labelled with (see gymverse train --help)."""
    eval_steps: int = 10
    """Evaluate every this many steps, and before and after training (<= 0: before and after only)."""

    task_space: Literal["games", "datasets"] = "games"
    """games: the environment policy writes game specs for --env_id; datasets: it rewrites rows of --train_files."""
    genenv_enable: bool = True
    """Run the environment phase (False: the agent trains on the starting tasks alone, a baseline)."""
    alternate: Literal["step", "epoch"] = "step"
    """When the environment phase runs: after every agent step, or after every epoch (GenEnv's released loop)."""
    total_epochs: int = 2
    """Epochs; datasets: one epoch is a pass over the (growing) dataset."""
    steps_per_epoch: int = 10
    """games: agent steps per epoch."""
    max_agent_episodes: int = 0
    """games: end the run once the agent has played this many episodes (0: off), to compare task writers after the
    same number of agent episodes (invalid specs are not played); --total_epochs is then unused. Steps keep their
    size, so the last one may pass the budget by less than a step's episodes; learning-rate schedules are sized for
    the steps the budget takes when every task is valid and hold their last rate after. A run whose environment
    policy writes no valid task for --steps_per_epoch steps in a row ends early, saying so."""

    env_model: str = "tiny"
    """Environment policy: a policy spec (tiny, a Hugging Face folder, vllm:PATH, openai:URL#MODEL); games also take
    uniform (uniformly random valid specs) and curriculum (each game at the complexity --curriculum gives it)."""
    env_train: bool = True
    """Train the environment policy with R_env (endpoints are always prompted only: GenEnv's released behaviour)."""
    env_prompt_template: Literal["chat", "no"] = "chat"
    """chat: the environment model's chat template (plain text when it has none); no: the prompt as it is."""
    env_learning_rate: float = 1e-4
    """Learning rate of the environment policy's updates (the agent's is --learning_rate)."""
    env_temperature: float = 1.0
    """Sampling temperature of the environment policy."""
    env_generate_max_length: int = 96
    """Longest reply of the environment policy, in tokens."""
    env_sft_episodes: int = -1
    """games: warm-start the environment policy on this many uniformly random valid specs (-1: 800 for tiny, else 0)."""

    env_reward: Literal["gaussian", "learnability", "uncertainty"] = "gaussian"
    """gaussian: GenEnv's exp(-beta (p - alpha)^2); learnability: 1 - p for 0 < p < 1 (Absolute Zero); uncertainty: 1 - 2|p - 0.5| (R-Zero)."""
    env_beta: float = 10.0
    """beta of GenEnv's R_env (--beta stays the agent's KL coefficient)."""
    band_filter: bool = False
    """The paper's filter: tasks with |p - alpha| > k_min are logged but do not update the environment policy."""
    filtering_k: float = 0.1
    """GenEnv's filter: drop this fraction of the easiest and of the hardest prompts before generating from them."""
    num_generations_per_prompt: int = 4
    """Tasks the environment policy writes from each of its prompts (its advantages are normalized over them)."""
    env_prompts_per_step: int = 2
    """games: environment prompts per step (one game each, in turn)."""
    attempts: int = 4
    """n: the agent's attempts at each task; p is measured over them."""
    invalid_reward: float = -1.0
    """R_env of a task that is not valid (a spec that does not parse or leaves the declared ranges, a rejected row)."""

    train_files: str = ""
    """datasets: GenEnv parquet file (prompt, reward_model.ground_truth)."""
    val_files: str = ""
    """datasets: validation parquet file, scored before and after training ("" for none)."""
    prompts_per_step: int = 8
    """datasets: prompts per agent step, each answered --attempts times (single-turn GRPO)."""
    reward_manager: str = "math"
    """math, genenv, tool_call, action, token_f1, embedding, paper, or module:Class with compute_reward(generated_text,
    ground_truth) (a subclass of gymverse.genenv.utils.RewardManager, or of GenEnv's own)."""
    verifier: str = "auto"
    """Check generated dataset tasks: auto (by --reward_manager), math, tool_call or none."""
    task_template: Optional[str] = None
    """File with the rewrite prompt ({task} and {answer}); default: GenEnv's New Task / New Answer."""
    task_parser: Optional[str] = None
    """module:function reading (task, answer) from the environment policy's reply; default: New Task / New Answer."""
    max_prompt_length: int = 512
    """datasets: longest agent prompt, in the agent's tokens with its chat template (veRL's data.max_prompt_length);
    a longer row is refused at load with its row number, unless --filter_overlong_prompts or --truncation."""
    filter_overlong_prompts: bool = False
    """datasets: drop the rows longer than --max_prompt_length at load, saying how many (veRL's key)."""
    truncation: Literal["error", "left", "right"] = "error"
    """datasets: a prompt longer than --max_prompt_length is refused (error), or cut to it keeping its end (left) or
    its start (right), as veRL's data.truncation."""
    val_batch_size: int = 0
    """datasets: validation prompts answered at a time (veRL's data.val_batch_size; 0: all at once)."""
    val_n: int = 1
    """datasets: replies to each validation prompt (veRL's rollout.n_val); the validation reward is their mean."""
    kl_penalty_coef: float = 0.0
    """datasets: veRL's algorithm.kl_ctrl.kl_coef (OAT's name): each reply's reward minus this times its summed KL to
    the reference model (--kl_penalty_type), before the GRPO normalization; as in veRL, only without a KL loss
    (--beta 0)."""
    kl_penalty_type: Literal["kl", "abs", "mse", "low_var_kl"] = "kl"
    """datasets: the KL estimator of --kl_penalty_coef (veRL's algorithm.kl_penalty)."""
    request_timeout: float = 120.0
    """Seconds an openai: endpoint (either policy) may take to answer one request before it is tried again."""
    request_retries: int = 3
    """Times a failed endpoint request is tried again (after 1, 2, 4, ... s) before the run stops, resumable."""

    wb_run_name: str = "genenv"
    """Run name: the run folder is <save_path>/<wb_run_name>."""
    evolve: bool = False
    """No complexity curriculum: in co-evolution the environment policy chooses complexities."""
    max_difficulty: int = 10
    """Highest complexity a spec may ask for (also capped by each game's own highest)."""


def validate_genenv_args(args: GenEnvArgs) -> None:
    validate_loop_config(args)
    if args.group_size != 1:
        raise BadInput(
            "--group_size is the native trainer's: in genenv a group is the --attempts of one task (--norm_scope group)"
        )
    if args.task_space == "games" and args.norm_scope == "group" and args.attempts < 2:
        raise BadInput("--norm_scope group normalizes each task's --attempts together: give --attempts 2 or more")
    if args.task_space == "datasets" and args.norm_scope != "env":
        raise BadInput(
            "--norm_scope is for --task_space games: datasets normalize the replies to each prompt together (GRPO)"
        )
    require_at_least_one(
        args,
        "total_epochs",
        "steps_per_epoch",
        "num_generations_per_prompt",
        "env_prompts_per_step",
        "attempts",
        "prompts_per_step",
        "env_generate_max_length",
        "max_prompt_length",
        "val_n",
    )
    params_of(AlphaCurriculum, args).validate()  # GenEnv's reward and band read --alpha and --k_min too
    if not 0.0 <= args.filtering_k < 0.5:
        raise BadInput(f"--filtering_k must lie in [0, 0.5), got {args.filtering_k}")
    if args.env_reward not in ENV_REWARDS:
        raise BadInput(f"--env_reward must be one of {', '.join(ENV_REWARDS)}")
    if args.env_beta <= 0 or not math.isfinite(args.env_beta):
        raise BadInput(f"--env_beta must be a positive number, got {args.env_beta}")
    if args.env_temperature <= 0:
        raise BadInput(f"--env_temperature must be positive, got {args.env_temperature}")
    if args.max_agent_episodes < 0:
        raise BadInput(f"--max_agent_episodes must be 0 (off) or more, got {args.max_agent_episodes}")
    if args.max_agent_episodes and args.task_space != "games":
        raise BadInput(
            "--max_agent_episodes is a budget of game episodes: use it with --task_space games "
            "(datasets run --total_epochs)"
        )
    if args.genenv_enable:
        check_env_model(args)
    for name in ("val_batch_size", "request_retries", "kl_penalty_coef"):
        if getattr(args, name) < 0:
            raise BadInput(f"--{name} must be 0 or more, got {getattr(args, name)}")
    if not args.request_timeout > 0:
        raise BadInput(f"--request_timeout must be a positive number of seconds, got {args.request_timeout}")
    if args.task_space == "datasets" and not args.train_files:
        raise BadInput("--task_space datasets needs --train_files (data.train_files=PATH)")


def check_env_model(args: GenEnvArgs) -> None:
    """Refuse an --env_model that names no policy (reads the disk only: nothing is loaded)."""
    if args.env_model in (UNIFORM, CURRICULUM):
        if args.task_space != "games":
            raise BadInput(f"--env_model {args.env_model} writes game specs: use it with --task_space games")
        return
    check_policy(args.env_model, "--env_model")
