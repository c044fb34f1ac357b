"""The run's settings, one small dataclass per concern, each holding the flags of that concern with their defaults.

``RunConfig`` (:mod:`gymverse.run.config`) inherits them all, so a command line stays flat (``--learning_rate``,
not ``--update.learning_rate``) while code that reads one concern takes that concern: the update step takes
:class:`UpdateSettings`, online evaluation :class:`EvalSettings`. The defaults are the CPU demo's (the tiny model
learns two games with a curriculum in a few minutes); OAT's own defaults, where they differ, are in brackets.
The OAT backend's own flags are a group of their own, :class:`gymverse.oat.flags.OatSettings`.
"""

from dataclasses import dataclass, field
from typing import Annotated, Literal, Optional

import tyro

# Two games whose early levels a tiny byte-level model learns from the latest observation alone.
DEMO_ENVS = "gymverse:GridCourier|gymverse:MailSorter"
TEMPLATE_NAMES = Literal["qwen3_game", "qwen3_general", "qwen3_tool", "code", "no", "chat"]


@dataclass
class EnvSettings:
    """The training environments and how their observations become prompts."""

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


@dataclass
class ReturnSettings:
    """PERPO's returns and their normalization, and the turns they are computed for: replies cut at the length
    limit, episodes whose prompt outgrew the context."""

    gamma: float = 0.9
    """Discount of the PERPO returns G_t = r_t + gamma * G_{t+1} [GymVerse: 1.0]."""
    norm_return: bool = True
    """Normalize the returns per environment over the batch (PERPO); --no-norm_return trains on raw returns."""
    norm_scope: Literal["env", "batch", "group"] = "env"
    """Over which turns a return is normalized: env (each environment's turns in the batch, PERPO), batch (all
    turns together) or group (the turns of the episodes whose copies began from one seed, GRPO's group: needs
    --group_size of 2 or more; in genenv, each task's --attempts). OAT normalizes per environment."""
    group_size: int = 1
    """Copies of each training environment reset from one seed, so their episodes start from the same instance."""
    non_stop_penalty: float = 0.0
    """Added to the reward of a turn whose reply was cut at --generate_max_length (OAT's flag)."""
    non_stop_fixed_reward: Optional[float] = None
    """Reward of a turn whose reply was cut at --generate_max_length, instead of the game's (OAT's flag)."""
    keep_generation_failed: bool = False
    """Train on episodes whose prompt outgrew --max_model_len (scored as failures) instead of dropping them."""


@dataclass
class WarmStartSettings:
    """The model to train and its warm start on the solvers' demonstrations."""

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


@dataclass
class GenerationSettings:
    """How the policy samples its replies while training."""

    max_model_len: Optional[int] = 512
    """Longest prompt plus reply; an episode whose prompt outgrows it ends as a failure [OAT: the model's]."""
    generate_max_length: int = 16
    """Most tokens of one reply; a longer one is cut and played as an invalid action [OAT: 512]."""
    temperature: float = 1.0
    """Sampling temperature while training."""
    top_p: float = 1.0
    """Nucleus sampling while training."""
    num_samples: int = 1
    """Replies per prompt; must be 1, each turn of an episode gets one reply [OAT: 2]."""


@dataclass
class UpdateSettings:
    """The PPO-clip update: its loss, its optimizer and schedule, and the batches it steps on."""

    num_ppo_epochs: int = 1
    """Passes over each step's turns."""
    cliprange: float = 0.2
    """PPO clip range of the token probability ratios."""
    beta: float = 0.0
    """Weight of the KL penalty to the reference model (native trainer: 0 loads no reference model) [OAT: 0.1]."""
    length_norm_constant: Optional[int] = None
    """Constant that divides each reply's token sum in the loss (Dr.GRPO); None = --generate_max_length."""
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
    train_batch_size: int = 16
    """Turns per optimizer step [OAT: 128]."""
    train_batch_size_per_device: int = 16
    """Turns per forward/backward pass (gradients accumulate up to --train_batch_size) [OAT: 1]."""


@dataclass
class BatchSettings:
    """How many turns a step plays and the whole run trains on."""

    rollout_batch_size: int = 48
    """Turns a step trains on [OAT: 128]."""
    max_train: int = 2880
    """Turns the whole run trains on: --max_train // --rollout_batch_size steps [OAT: 50000]."""


@dataclass
class EvalSettings:
    """Online evaluation: what is played, how often and how the policy samples."""

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
    eval_generate_max_length: int = 16
    """Most tokens of one evaluation reply [OAT: 512]."""


@dataclass
class RunFileSettings:
    """The run folder, its checkpoints and logs, the seed and Weights & Biases."""

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
