"""The datasets task space (GenEnv's): the agent trains on a parquet dataset that the environment policy grows.

A step answers ``--prompts_per_step`` prompts ``--attempts`` times each and trains the agent with GRPO (each
reply's reward normalized over the replies to the same prompt); each prompt's ``p`` is its mean reward.
The environment phase (after every step with ``--alternate step``, after each pass over the dataset with
``epoch``) drops the easiest and hardest ``filtering_k`` of the prompts just scored, asks the environment
policy for ``--num_generations_per_prompt`` new tasks from each of the rest, reads and verifies them, lets
the agent attempt each valid one ``--attempts`` times for its ``p``, and appends the valid ones to the
dataset. Every epoch writes the dataset as it then stands to ``data/train_epoch_XXX.parquet``.

Prompts follow veRL's rules: the agent's prompt (with its chat template) may be ``--max_prompt_length``
tokens and ``--generate_max_length`` more for the reply; a longer row is refused when the dataset is read
(with its row number), dropped with ``--filter_overlong_prompts`` or cut with ``--truncation left|right``,
and a generated task over the limit is invalid. With ``--kl_penalty_coef`` (veRL's ``algorithm.kl_ctrl``) and
no KL loss, each reply's reward loses its KL to the reference model before the GRPO normalization.
"""

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

from gymverse.errors import BadInput
from gymverse.genenv.attempts import answer_tasks, mean_reward_rate
from gymverse.genenv.config import GenEnvArgs
from gymverse.genenv.dataset import (
    PromptLimit,
    agent_prompt,
    derived_row,
    full_prompt_text,
    ground_truth,
    read_tasks,
    task_text,
    write_tasks,
)
from gymverse.genenv.reward_managers import load_reward_manager
from gymverse.genenv.rewards import filter_prompts
from gymverse.genenv.rewrite import load_task_parser, load_task_template
from gymverse.genenv.scoring import WrittenTask, group_advantages, task_record
from gymverse.genenv.sides import Side
from gymverse.genenv.space import AgentBatch, SavedFields
from gymverse.genenv.verifiers import select_verifier
from gymverse.run.files import RunFiles
from gymverse.run.online_eval import evaluation_copy
from gymverse.run.plan import TurnSample
from gymverse.seeds import Purpose, derive_seed


def answer_text(truth: Any) -> str:
    return truth if isinstance(truth, str) else json.dumps(truth)


class DatasetSpace(SavedFields):
    saved = ("rows", "epoch", "position", "order", "success", "scored")
    agent_stops_at_box = False

    def __init__(self, args: GenEnvArgs, seed: int) -> None:
        self.args, self.seed = args, seed
        table = read_tasks(args.train_files, "data.train_files")
        self.rows, self.schema = table.rows, table.schema
        self.val = read_tasks(args.val_files, "data.val_files").rows if args.val_files else []
        self.manager = load_reward_manager(args.reward_manager)
        self.verifier = select_verifier(args.verifier, args.reward_manager)
        self.template = load_task_template(args.task_template)
        self.parser = load_task_parser(args.task_parser)
        self.epoch, self.position = 0, 0
        self.order = self._epoch_order()
        self.success: dict[int, float] = {}  # p of each row, as last measured
        self.scored: list[int] = []  # rows scored since the last environment phase
        self.rejections = 0  # generated tasks refused by the verifier, this step
        self.limit: PromptLimit | None = None  # the agent's prompt limit, once its tokenizer is known
        self.tokenizer: Any = None

    def starts(self, run_dir: Path, progress: bool) -> tuple[str, str | None]:
        args = self.args
        return args.pretrain, args.env_model if args.genenv_enable else None

    def agent_settings(self, args: GenEnvArgs) -> GenEnvArgs:
        """A prompt of --max_prompt_length tokens and a reply of --generate_max_length fit the agent (veRL's)."""
        return dataclasses.replace(args, max_model_len=args.max_prompt_length + args.generate_max_length)

    def attach(self, agent: Side) -> None:
        """Give the reward manager the agent's tokenizer (GenEnv's managers take one) and hold the datasets to the
        prompt limit in its tokens (an endpoint's prompts are not counted)."""
        args = self.args
        self.manager = load_reward_manager(args.reward_manager, agent.tokenizer)
        if agent.tokenizer is None:
            return
        self.limit = PromptLimit(agent.tokenizer, args.max_prompt_length, args.truncation)
        self.tokenizer = agent.tokenizer
        self.rows = self._within_limit(self.rows, f"data.train_files={args.train_files}")
        self.val = self._within_limit(self.val, f"data.val_files={args.val_files}")
        self.order = self._epoch_order()

    def _within_limit(self, rows: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
        """``rows`` without those over the prompt limit (--filter_overlong_prompts), or all of them once none is
        over it or --truncation may cut them; else the first one over it is refused by its row number."""
        args, limit = self.args, self.limit
        assert limit is not None, "set when the agent's tokenizer is attached"
        over = {}
        for index, row in enumerate(rows):
            length = limit.length(agent_prompt(row["prompt"], self.tokenizer, self.args.prompt_template))
            if length > args.max_prompt_length:
                over[index] = length
        if not over:
            return rows
        if args.filter_overlong_prompts:
            print(
                f"{source}: dropped {len(over)} of {len(rows)} rows longer than --max_prompt_length "
                f"{args.max_prompt_length} tokens (--filter_overlong_prompts)"
            )
            return [row for index, row in enumerate(rows) if index not in over]
        if args.truncation != "error":
            return rows
        index, length = next(iter(over.items()))
        more = f" (and {len(over) - 1} more rows)" if len(over) > 1 else ""
        raise BadInput(
            f"{source}: row {index}: its prompt is {length} tokens, over --max_prompt_length "
            f"{args.max_prompt_length}{more}; veRL refuses it too: --filter_overlong_prompts drops such "
            "rows, --truncation left or right cuts them"
        )

    def _epoch_order(self) -> list[int]:
        order = list(range(len(self.rows)))
        random.Random(derive_seed(self.seed, Purpose.DATASET_ORDER, self.epoch)).shuffle(order)
        return order

    def scheduled_steps(self) -> int:
        """--total_epochs passes over the starting dataset (it grows, so the run takes more)."""
        return self.args.total_epochs * -(-len(self.order) // self.args.prompts_per_step)

    def total_steps(self) -> int | None:
        return None

    def agent_samples_per_step(self) -> int:
        return self.args.prompts_per_step * self.args.attempts

    def finished(self, step: int) -> bool:
        return self.epoch >= self.args.total_epochs

    # -- the agent's step -----------------------------------------------------------------------
    def agent_step(self, agent: Side, env: Side | None, step: int, files: RunFiles) -> AgentBatch:
        """GRPO on the next --prompts_per_step prompts of the epoch, each answered --attempts times."""
        del files  # replies to a prompt are not episodes: nothing goes to episode_details.jsonl
        args = self.args
        batch = self.order[self.position : self.position + args.prompts_per_step]
        self.position += len(batch)
        replies = self.answer(agent, [self.rows[i] for i in batch])
        samples = []
        for i, group in zip(batch, replies):
            self.success[i] = mean_reward_rate(group)
            samples += [TurnSample(str(i), r.turn, r.reward) for r in group]
        self.scored += batch
        errors = [r.reason for group in replies for r in group if r.reason]
        metrics = {
            "agent_success": sum(self.success[i] for i in batch) / len(batch),
            "prompts": len(batch),
            "epoch": self.epoch,
            "reward_errors": len(errors),
            "reward_error": errors[0] if errors else None,
        }
        if args.kl_penalty_coef > 0 and args.beta == 0:  # veRL applies kl_ctrl only without a KL loss
            kls = agent.reference_kl(samples, args.kl_penalty_type)
            samples = [dataclasses.replace(s, ret=s.ret - args.kl_penalty_coef * kl) for s, kl in zip(samples, kls)]
            metrics["reference_kl"] = sum(kls) / len(kls) if kls else 0.0
        stats = agent.learn(
            samples, group_advantages(samples), random.Random(derive_seed(self.seed, Purpose.AGENT_UPDATE, step))
        )
        return AgentBatch(metrics, stats)

    def answer(self, agent: Side, rows: list[dict[str, Any]], attempts: int | None = None) -> list[list[Any]]:
        prompts = [agent_prompt(row["prompt"], agent.tokenizer, self.args.prompt_template) for row in rows]
        if self.limit is not None:
            prompts = [self.limit.fit(prompt) for prompt in prompts]
        return answer_tasks(
            agent.policy, prompts, [ground_truth(row) for row in rows], attempts or self.args.attempts, self.manager
        )

    def epoch_ends(self) -> bool:
        return self.position >= len(self.order)

    # -- the environment's phase ----------------------------------------------------------------
    def env_phase_tasks(self, env: Side | None, agent: Side, step: int) -> list[WrittenTask] | None:
        """After every step (--alternate step) or at the end of each epoch, when GenEnv is enabled: new tasks
        written from the boundary prompts and attempted by the agent."""
        args = self.args
        if not (args.genenv_enable and (args.alternate == "step" or self.epoch_ends())):
            return None
        assert env is not None, "GenEnv is enabled: the environment policy writes"
        tasks = self.write(env, step)
        self.attempt(agent, tasks)
        return tasks

    def env_updates_now(self, step: int) -> bool:
        return True

    def write(self, env: Side, step: int) -> list[WrittenTask]:
        """New tasks from the boundary prompts among those scored since the last phase."""
        args = self.args
        scored, self.scored = list(dict.fromkeys(self.scored)), []
        kept = [scored[k] for k in filter_prompts([self.success[i] for i in scored], args.filtering_k)]
        contents = [
            self.template.format(task=task_text(self.rows[i]["prompt"]), answer=answer_text(ground_truth(self.rows[i])))
            for i in kept
        ]
        prompts, generations = env.write(contents, args.num_generations_per_prompt)
        tasks, self.rejections = [], 0
        for k, (prompt, generation) in enumerate(zip(prompts, generations)):
            parent = self.rows[kept[k // args.num_generations_per_prompt]]
            row, reason = self.read(parent, generation.text)
            tasks.append(WrittenTask(f"{step}/{k // args.num_generations_per_prompt}", prompt, generation, row, reason))
        return tasks

    def read(self, parent: dict[str, Any], text: str) -> tuple[dict[str, Any] | None, str | None]:
        """A new row from the environment policy's reply, or the reason there is none."""
        try:
            parsed = self.parser(text)
        except Exception as error:  # a user's parser may raise anything; the run goes on
            return None, f"task parser raised {type(error).__name__}: {error}"
        if not parsed:
            return None, "no New Task / New Answer in the reply"
        task, answer = parsed
        if self.verifier is not None:
            reason = self.verifier(full_prompt_text(parent["prompt"]), task, answer)
            if reason:
                self.rejections += 1
                return None, f"rejected by the verifier: {reason}"
        row, reason = derived_row(parent, task, answer, self.schema)
        if row is not None and self.limit is not None and self.args.truncation == "error":
            length = self.limit.length(agent_prompt(row["prompt"], self.tokenizer, self.args.prompt_template))
            if length > self.args.max_prompt_length:
                return None, f"its prompt is {length} tokens, over --max_prompt_length {self.args.max_prompt_length}"
        return row, reason

    def attempt(self, agent: Side, tasks: list[WrittenTask]) -> None:
        valid = [t for t in tasks if t.valid]
        if valid:
            for task, group in zip(valid, self.answer(agent, [t.task for t in valid])):
                task.p = mean_reward_rate(group)

    def adopt(self, tasks: list[WrittenTask]) -> dict[str, Any]:
        """Append the valid tasks to the dataset."""
        new = [t.task for t in tasks if t.valid]
        self.rows += new
        return {
            "rejection_rate": self.rejections / len(tasks) if tasks else 0.0,
            "added_tasks": len(new),
            "dataset_size": len(self.rows),
        }

    def end_step(self, step: int, run_dir: Path) -> None:
        """After the step's phases: at the end of an epoch, write the dataset and start the next epoch."""
        if not self.epoch_ends():
            return
        write_tasks(run_dir / "data" / f"train_epoch_{self.epoch + 1:03d}.parquet", self.rows, self.schema)
        self.epoch, self.position = self.epoch + 1, 0
        self.order = self._epoch_order()

    def evaluate(self, agent: Side, step: int, files: RunFiles) -> dict[str, float]:
        """With --val_files: the mean reward of --val_n replies to each validation prompt, sampled at
        --eval_temperature (a model's answers keep their full length), --val_batch_size prompts at a time,
        logged to ``eval_metrics.jsonl``."""
        if not self.val:
            return {}
        args = self.args
        judge = agent
        if hasattr(agent.policy, "generator"):
            judge = Side(
                "judge",
                evaluation_copy(
                    agent.policy, derive_seed(self.seed, Purpose.EVAL_SAMPLER), temperature=args.eval_temperature
                ),
                None,
                agent.template,
            )
        size = args.val_batch_size or len(self.val)
        rewards = [
            reply.reward
            for start in range(0, len(self.val), size)
            for group in self.answer(judge, self.val[start : start + size], attempts=args.val_n)
            for reply in group
        ]
        mean = sum(rewards) / len(rewards)
        files.append("eval_metrics.jsonl", {"step": step, "val_mean_reward": mean, "val_prompts": len(self.val)})
        return {"eval/val_mean_reward": mean}

    def record(self, step: int, task: WrittenTask) -> dict[str, Any]:
        row = task.task
        payload = {"task": task_text(row["prompt"]), "answer": ground_truth(row)} if task.valid else None
        return task_record(step, task, payload)

    def progress(self, step: int) -> tuple[int, int | None, str]:
        return step, None, " steps"

    def report(self, step: int) -> str | None:
        return None
