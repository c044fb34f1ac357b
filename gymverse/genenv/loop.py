"""The co-evolution loop behind ``gymverse genenv``: an agent and an environment policy trained in turn, on the
run loop every in-process trainer shares (``gymverse.run.loop``: run folder, resume, evaluation and save
cadence, Ctrl-C).

Each step the agent trains on its task space's batch (games: PERPO on the episodes of the tasks just written;
datasets: GRPO on a batch of the dataset), then the environment phase (every step, or once per epoch with
``--alternate epoch``) scores what the environment policy wrote by the agent's success ``p`` and updates it
with the same PPO step (:class:`gymverse.run.update.PolicyUpdate`), its advantages normalized over the tasks of
one environment prompt. The task space (:mod:`gymverse.genenv.space`) decides what a step plays.

The run folder ``<save_path>/<wb_run_name>`` holds ``genenv_metrics.jsonl`` (one line per step),
``generated_tasks.jsonl`` (every task written, valid or not, with its reason, ``p`` and ``R_env``),
``episode_details.jsonl`` (games), ``eval_env_metrics.jsonl`` and ``eval_results/`` (games: the PERPO trainer's
online evaluation, ``--eval_*`` flags), ``eval_metrics.jsonl`` (datasets with ``--val_files``),
``data/train_epoch_XXX.parquet`` (datasets), Hugging Face checkpoints of the agent in ``saved_models/``
and of the environment policy in ``env_policy/saved_models/``, ``trainer_state.pt`` and
``figures/genenv_curves.png``.
"""

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gymverse.genenv.config import GenEnvArgs
from gymverse.genenv.rewards import env_reward_fn
from gymverse.genenv.scoring import WrittenTask, group_advantages, score, summary
from gymverse.genenv.sides import env_settings, load_side
from gymverse.genenv.space import TaskSpace
from gymverse.run.checkpoints import save_checkpoint, step_dir_name
from gymverse.run.loop import RunLoop
from gymverse.run.update import PolicyUpdate
from gymverse.seeds import Purpose, derive_seed

ENV_DIR = "env_policy"


def make_space(args: GenEnvArgs, seed: int) -> TaskSpace:
    from gymverse.genenv.dataset_space import DatasetSpace
    from gymverse.genenv.game_space import GameSpace

    spaces: dict[str, Callable[[GenEnvArgs, int], TaskSpace]] = {"games": GameSpace, "datasets": DatasetSpace}
    return spaces[args.task_space](args, seed)


class GenEnvRun(RunLoop):
    name = "GenEnv"
    logs = ("genenv_metrics.jsonl", "generated_tasks.jsonl", "eval_metrics.jsonl")
    args: GenEnvArgs

    def __init__(self, args: GenEnvArgs, progress: bool = True) -> None:
        super().__init__(args, progress)
        self.reward_fn = env_reward_fn(args.env_reward, args.alpha, args.env_beta)
        self.pending: list[Any] = []  # the environment policy's samples waiting for its next update

    # -- the two policies -----------------------------------------------------------------------
    def build(self) -> None:
        args = self.args
        self.space = make_space(args, self.seed)
        agent_start: str | None
        if self.state:
            agent_start, env_start = self._saved_model("agent"), self._saved_model("env")
        else:
            agent_start, env_start = self.space.starts(self.run_dir, self.progress)
        assert agent_start is not None, "the agent always has a model"
        self.starts = {"agent": agent_start, "env": env_start}
        self.reference_path = self.state["reference"] if self.state else agent_start
        steps = self.space.scheduled_steps()
        agent_updates = steps * PolicyUpdate.updates_per_call(args, self.space.agent_samples_per_step())
        self.agent = load_side(
            "agent",
            agent_start,
            self.space.agent_settings(args),
            agent_updates,
            True,
            args.prompt_template,
            self.seed,
            stop_at_box=self.space.agent_stops_at_box,
            reference=self.reference_path,
        )
        self.space.attach(self.agent)
        settings = env_settings(args)
        env_tasks = args.env_prompts_per_step * args.num_generations_per_prompt
        self.env = (
            None
            if env_start is None
            else load_side(
                "environment",
                env_start,
                settings,
                steps * PolicyUpdate.updates_per_call(settings, env_tasks),
                args.env_train,
                args.env_prompt_template,
                derive_seed(self.seed, Purpose.ENV_POLICY),
            )
        )

    def _saved_model(self, side: str) -> str | None:
        """The model a saved state names for ``side``: a checkpoint in the run folder, or a spec."""
        assert self.state is not None  # read on resume only
        saved = self.state["models"][side]
        if saved is None:
            return None
        kind, where = saved
        return str(self.run_dir / where) if kind == "checkpoint" else where

    # -- one step -------------------------------------------------------------------------------
    def train_step(self, step: int) -> dict[str, Any]:
        space = self.space
        batch = space.agent_step(self.agent, self.env, step, self.files)
        result = {**batch.record, "agent_update": batch.stats}
        tasks = space.env_phase_tasks(self.env, self.agent, step)
        if tasks is not None:
            result.update(self._environment_phase(step, tasks, space.env_updates_now(step)))
            result.update(space.adopt(tasks))
        space.end_step(step, self.run_dir)
        self.files.append("genenv_metrics.jsonl", {"step": step, **result})
        return result

    def _environment_phase(self, step: int, tasks: list[WrittenTask], update_now: bool) -> dict[str, Any]:
        """Score the written tasks, log them, and update the environment policy when it is time."""
        args = self.args
        self.pending += score(tasks, self.reward_fn, args.invalid_reward, args.alpha, args.k_min, args.band_filter)
        for task in tasks:
            self.files.append("generated_tasks.jsonl", self.space.record(step, task))
        env_stats: dict[str, Any] = {}
        if update_now:
            if self.env is not None and self.env.trainable:
                env_stats = self.env.learn(
                    self.pending,
                    group_advantages(self.pending),
                    random.Random(derive_seed(self.seed, Purpose.ENV_UPDATE, step)),
                )
            self.pending = []
        return {**summary(tasks), "env_update": env_stats}

    def finished(self) -> bool:
        return self.space.finished(self.step)

    def total_steps(self) -> int | None:
        return self.space.total_steps()

    # -- evaluation, checkpoints, state ---------------------------------------------------------
    def evaluate(self, step: int) -> dict[str, float]:
        return self.space.evaluate(self.agent, step, self.files)

    def save_models(self, step: int) -> dict[str, Any]:
        models: dict[str, tuple[str, str | None] | None] = {}
        for name, side, folder in (("agent", self.agent, self.run_dir), ("env", self.env, self.run_dir / ENV_DIR)):
            if side is not None and side.trainable:
                save_checkpoint(folder, step, side.policy.model, side.tokenizer)
                models[name] = (
                    "checkpoint",
                    str((folder / "saved_models" / step_dir_name(step)).relative_to(self.run_dir)),
                )
            else:
                models[name] = None if side is None else ("spec", self.starts[name])
        return {"models": models}

    def checkpoint_folders(self) -> list[Path]:
        return [self.run_dir, self.run_dir / ENV_DIR]

    def state_dict(self) -> dict[str, Any]:
        return {
            "reference": str(self.reference_path),
            "agent": self.agent.state_dict(),
            "env": self.env.state_dict() if self.env is not None else {},
            "space": self.space.state_dict(),
            "pending": self.pending,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.agent.load_state_dict(state["agent"])
        if self.env is not None:
            self.env.load_state_dict(state["env"])
        self.space.load_state_dict(state["space"])
        self.pending = state["pending"]

    # -- what the run shows ---------------------------------------------------------------------
    def progress_position(self) -> tuple[int, int | None, str]:
        return self.space.progress(self.step)

    def postfix(self, result: dict[str, Any]) -> str:
        return (
            f"R_env {result.get('mean_r_env', 0):.2f} band {result.get('band_fraction', 0):.2f} "
            f"agent {result.get('agent_success') or 0:.2f}"
        )

    def wandb_metrics(self, result: dict[str, Any]) -> dict[str, float]:
        """The numbers of a step's record (``env_update/loss``, ``agent_update/loss``, ``genenv/mean_r_env``, ...)."""
        flat = {}
        for key, value in result.items():
            if isinstance(value, dict) and key.endswith("_update"):
                flat.update({f"{key}/{k}": v for k, v in value.items()})
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                flat[f"genenv/{key}"] = value
        return flat

    def plot(self) -> Path | None:
        from gymverse.genenv.figures import plot_genenv

        return plot_genenv(self.run_dir)

    def report(self) -> None:
        note = self.space.report(self.step)
        if note:
            print(note)
