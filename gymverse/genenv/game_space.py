"""The games task space: the environment policy writes game specs, the agent plays each ``n`` times.

One step: ``--env_prompts_per_step`` prompts (one game each, in turn), ``--num_generations_per_prompt``
specs from each; every valid spec is played ``--attempts`` times on the same instance by the agent (the
existing multi-turn rollouts), which then learns from those episodes with the PERPO step the native trainer
takes too (``gymverse.run.agent_step``; returns normalized per game). Each spec's ``p`` pays the environment
policy, now (``--alternate step``) or at the end of the epoch (``epoch``). The prompts show the agent's
latest success per complexity, so a prompted endpoint can aim too. The space counts the agent's episodes,
so a run can end on a budget of them (``--max_agent_episodes``).
"""

import dataclasses
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from gymverse.curriculum import CurriculumDriver
from gymverse.genenv.attempts import play_specs, success_rate
from gymverse.genenv.config import GenEnvArgs
from gymverse.genenv.prompts import (
    CURRICULUM,
    UNIFORM,
    CurriculumSpecs,
    UniformSpecs,
    game_prompt,
    spec_text,
    warm_start_pairs,
)
from gymverse.genenv.scoring import WrittenTask, task_record
from gymverse.genenv.sides import Side, prompt_text
from gymverse.genenv.space import AgentBatch, SavedFields
from gymverse.genenv.specs import GameSpec, game_info, read_spec
from gymverse.run.agent_step import AgentStep
from gymverse.run.config import train_env_ids, wrappers_spec
from gymverse.run.env_table import EnvTable
from gymverse.run.eval_plan import eval_metrics, eval_plan
from gymverse.run.files import RunFiles
from gymverse.run.online_eval import online_eval
from gymverse.seeds import Purpose, derive_seed

ENV_SFT_FOR_TINY = 800  # random valid specs the untrained tiny environment model is warm-started on


class GameSpace(SavedFields):
    saved = ("success", "played", "idle_steps")
    agent_stops_at_box = True

    def __init__(self, args: GenEnvArgs, seed: int) -> None:
        self.args, self.seed = args, seed
        self.games = train_env_ids(args)
        self.infos = {game: game_info(game, args.max_difficulty) for game in self.games}
        self.table = EnvTable(self.games)
        self.success: dict[str, dict[int, float]] = {game: {} for game in self.games}  # latest p per complexity
        self.played = 0  # the agent's episodes so far
        self.idle_steps = 0  # steps in a row without a valid task (so without an episode)
        self.tasks: list[WrittenTask] = []  # the step's tasks
        self.curriculum = (  # the curriculum writer's, on whatever --evolve says
            CurriculumDriver.from_config(self.games, args, args.seed, evolve=True)
            if args.env_model == CURRICULUM
            else None
        )

    def starts(self, run_dir: Path, progress: bool) -> tuple[str, str | None]:
        """The agent warm-started on solver demonstrations when it is a model to train (tiny or a Hugging Face
        folder); the environment policy warm-started on random valid specs with --env_sft_episodes (800 for
        tiny), none for the uniform and curriculum writers."""
        from gymverse.policy.tiny import TINY, resolve_pretrain
        from gymverse.run.sft import warm_start

        args = self.args
        agent = args.pretrain
        if args.pretrain == TINY or Path(args.pretrain).is_dir():
            agent = str(
                warm_start(
                    args, resolve_pretrain(args.pretrain), run_dir / "sft_model", self.seed, args.device, progress
                )
            )
        if not args.genenv_enable or args.env_model in (UNIFORM, CURRICULUM):
            return agent, None
        episodes = (
            args.env_sft_episodes if args.env_sft_episodes >= 0 else (ENV_SFT_FOR_TINY if args.env_model == TINY else 0)
        )
        if episodes > 0:
            return agent, str(
                warm_start_environment(args, self.infos, episodes, run_dir / "env_sft_model", self.seed, progress)
            )
        return agent, args.env_model

    def agent_settings(self, args: GenEnvArgs) -> GenEnvArgs:
        return args

    def attach(self, agent: Side) -> None:
        # --norm_scope group: a group is one task's --attempts, which play copies started from its seed; an idle
        # step is one without a valid task, counted by the space itself
        settings = dataclasses.replace(self.args, group_size=self.args.attempts)
        self.perpo = AgentStep(settings, self.table, agent.learn, self.seed)

    def scheduled_steps(self) -> int:
        """--total_epochs x --steps_per_epoch, or with --max_agent_episodes the steps the budget takes when every
        task is valid."""
        args = self.args
        if args.max_agent_episodes:
            return math.ceil(
                args.max_agent_episodes / (args.env_prompts_per_step * args.num_generations_per_prompt * args.attempts)
            )
        return args.total_epochs * args.steps_per_epoch

    def total_steps(self) -> int | None:
        return None if self.args.max_agent_episodes else self.scheduled_steps()

    def agent_samples_per_step(self) -> int:
        return self.args.rollout_batch_size

    def finished(self, step: int) -> bool:
        """Done after ``step`` steps: the last one, or the episode budget spent (or left unspendable: a whole epoch
        of steps without a valid task)."""
        args = self.args
        if args.max_agent_episodes:
            return self.played >= args.max_agent_episodes or self.idle_steps >= args.steps_per_epoch
        return step >= self.scheduled_steps()

    def env_updates_now(self, step: int) -> bool:
        """Whether the environment policy learns after ``step`` (once it is attempted): every step, or at the end
        of each epoch and of the run (which a budget of episodes can end mid-epoch)."""
        return self.args.alternate == "step" or step % self.args.steps_per_epoch == 0 or self.finished(step)

    def write(self, env: Side | None, step: int) -> list[WrittenTask]:
        """The step's tasks, read and checked (a spec without a seed gets one derived from the step); ``env`` None:
        the uniform or curriculum writer."""
        args = self.args
        games = [
            self.games[((step - 1) * args.env_prompts_per_step + k) % len(self.games)]
            for k in range(args.env_prompts_per_step)
        ]
        contents = [game_prompt(game, self.infos[game], self.success[game]) for game in games]
        if self.curriculum is not None:
            env = Side(CURRICULUM, CurriculumSpecs(self.games, self.curriculum))
        elif args.env_model == UNIFORM or not args.genenv_enable:
            env = Side(UNIFORM, UniformSpecs(self.infos, derive_seed(self.seed, Purpose.UNIFORM_SPECS, step)))
        assert env is not None, "a model writes the tasks when no curriculum or uniform writer does"
        prompts, generations = env.write(contents, args.num_generations_per_prompt)
        tasks = []
        for i, (prompt, generation) in enumerate(zip(prompts, generations)):
            check = read_spec(generation.text, self.infos)
            spec = check.spec
            if spec is not None and spec.seed is None:
                spec = GameSpec(
                    spec.game, spec.complexity, spec.params, derive_seed(self.seed, Purpose.SPEC_RESET, step, i)
                )
            tasks.append(
                WrittenTask(f"{step}/{i // args.num_generations_per_prompt}", prompt, generation, spec, check.reason)
            )
        return tasks

    def attempt(self, agent: Side, tasks: list[WrittenTask]) -> list[Any]:
        """Play every valid task ``--attempts`` times; set each one's ``p``; all the episodes."""
        args = self.args
        valid = [t for t in tasks if t.valid]
        max_model_len = args.max_model_len if agent.tokenizer is not None else None  # scripted agents have no tokens
        played = (
            play_specs(
                agent.policy,
                [t.task for t in valid],
                args.attempts,
                args.prompt_template,
                wrappers_spec(args.wrappers),
                agent.tokenizer,
                max_model_len,
            )
            if valid
            else []
        )
        by_level: dict[tuple[str, int], list[float]] = defaultdict(list)
        for task, episodes in zip(valid, played):
            task.p = success_rate(episodes)
            by_level[(task.task.game, task.task.complexity)].append(task.p)
        self.played += sum(len(episodes) for episodes in played)
        self.idle_steps = 0 if valid else self.idle_steps + 1
        for (game, complexity), rates in by_level.items():
            self.success[game][complexity] = sum(rates) / len(rates)
        return [e for game_episodes in played for e in game_episodes]

    def advance_curriculum(self, success_rates: dict[str, tuple[float, int]]) -> None:
        """The curriculum writer's driver takes each played game's success rate and episode count."""
        if self.curriculum is not None:
            self.curriculum.advance(success_rates)

    def agent_step(self, agent: Side, env: Side | None, step: int, files: RunFiles) -> AgentBatch:
        """The step's tasks, written and played; PERPO on their episodes (the agent's update included)."""
        args = self.args

        def play() -> list[Any]:
            self.tasks = self.write(env, step)
            return self.attempt(agent, self.tasks)

        def record(episodes: list[Any]) -> dict[str, Any]:
            files.log_episodes(step, episodes)
            return {"epoch": (step - 1) // args.steps_per_epoch, **self.agent_metrics(self.tasks, episodes)}

        played = self.perpo(step, play, self.advance_curriculum, record)
        return AgentBatch(played.record, played.stats)

    def env_phase_tasks(self, env: Side | None, agent: Side, step: int) -> list[WrittenTask]:
        """Every step: the tasks the agent just played."""
        return self.tasks

    def adopt(self, tasks: list[WrittenTask]) -> dict[str, Any]:
        return {}

    def end_step(self, step: int, run_dir: Path) -> None:
        pass

    def agent_metrics(self, tasks: list[WrittenTask], episodes: list[Any]) -> dict[str, Any]:
        valid = [t for t in tasks if t.valid]
        complexities: dict[str, list[int]] = defaultdict(list)
        for t in valid:
            complexities[t.task.game].append(t.task.complexity)
        return {
            "agent_success": sum(e.success for e in episodes) / len(episodes) if episodes else None,
            "episodes": len(episodes),
            "total_episodes": self.played,
            "complexities": dict(complexities),
            "params": [t.task.params for t in valid if t.task.params],
        }

    def evaluate(self, agent: Side, step: int, files: RunFiles) -> dict[str, float]:
        """The PERPO trainer's online evaluation (--eval_* flags)."""
        return eval_metrics(online_eval(agent.policy, self.args, self.seed, files, step), eval_plan(self.args))

    def record(self, step: int, task: WrittenTask) -> dict[str, Any]:
        return task_record(step, task, spec_text(task.task) if task.valid else None)

    def progress(self, step: int) -> tuple[int, int | None, str]:
        """Episodes played with --max_agent_episodes (at most the budget), else steps."""
        budget = self.args.max_agent_episodes
        if budget:
            return min(self.played, budget), budget, " episodes"
        return step, self.scheduled_steps(), " steps"

    def report(self, step: int) -> str | None:
        args = self.args
        if args.max_agent_episodes and self.played < args.max_agent_episodes:
            return (
                f"Stopped early at step {step}: the environment policy wrote no valid task in "
                f"{args.steps_per_epoch} steps in a row; the agent played {self.played} of the "
                f"{args.max_agent_episodes} episodes of --max_agent_episodes"
            )
        return None

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "curriculum": self.curriculum.state_dict() if self.curriculum else {}}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        if self.curriculum is not None:
            self.curriculum.load_state_dict(state["curriculum"])


def warm_start_environment(
    args: GenEnvArgs, infos: dict, count: int, out: Path, seed: int, progress: bool = True
) -> Path:
    """SFT of ``--env_model`` on ``count`` uniformly random valid specs of the games ``infos`` describes, saved to
    ``out`` (with the agent's --sft_epochs, --sft_batch_size and --sft_learning_rate)."""
    from gymverse.policy.tiny import resolve_pretrain
    from gymverse.run.sft import fit_and_save

    pairs = warm_start_pairs(infos, count, derive_seed(seed, Purpose.ENV_WARM_START))
    result = fit_and_save(
        resolve_pretrain(args.env_model),
        lambda tokenizer: [
            (prompt_text(args.env_prompt_template, content, tokenizer), spec) for content, spec in pairs
        ],
        args,
        out,
        seed,
        args.device,
        progress,
    )
    print(
        f"Environment warm start: SFT on {result.pairs} random valid specs, "
        f"loss {result.first_loss:.3f} -> {result.last_loss:.3f}"
    )
    return Path(out)
