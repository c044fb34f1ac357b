"""The datasets task space (GenEnv's): the agent trains on a parquet dataset that the environment policy grows.

A step answers ``--prompts_per_step`` prompts ``--attempts`` times each and trains the agent with GRPO (each
reply's reward normalized over the replies to the same prompt); each prompt's ``p`` is its mean reward.
The environment phase (after every step with ``--alternate step``, after each pass over the dataset with
``epoch``) drops the easiest and hardest ``filtering_k`` of the prompts just scored, asks the environment
policy for ``--num_generations_per_prompt`` new tasks from each of the rest, reads and verifies them, lets
the agent attempt each valid one ``--attempts`` times for its ``p``, and appends the valid ones to the
dataset. Every epoch writes the dataset as it then stands to ``data/train_epoch_XXX.parquet``.
"""

import json
import random
from typing import Any

from gymverse.genenv.attempts import answer_tasks, mean_reward_rate
from gymverse.genenv.dataset import (
    agent_prompt, derived_row, full_prompt_text, ground_truth, read_tasks, task_text, write_tasks,
)
from gymverse.genenv.reward_managers import load_reward_manager
from gymverse.genenv.rewards import filter_prompts
from gymverse.genenv.rewrite import load_task_parser, load_task_template
from gymverse.genenv.scoring import WrittenTask, group_advantages, task_record
from gymverse.genenv.sides import Side
from gymverse.genenv.verifiers import select_verifier
from gymverse.run.plan import TurnSample, derive_seed


def answer_text(truth: Any) -> str:
    return truth if isinstance(truth, str) else json.dumps(truth)


class DatasetSpace:
    def __init__(self, args: Any, seed: int) -> None:
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

    def use_reward_manager(self, tokenizer: Any) -> None:
        """Give the reward manager the agent's tokenizer (GenEnv's managers take one)."""
        self.manager = load_reward_manager(self.args.reward_manager, tokenizer)

    def _epoch_order(self) -> list[int]:
        order = list(range(len(self.rows)))
        random.Random(derive_seed(self.seed, self.epoch, 5)).shuffle(order)
        return order

    def steps_in_epoch(self) -> int:
        return -(-len(self.order) // self.args.prompts_per_step)

    def finished(self) -> bool:
        return self.epoch >= self.args.total_epochs

    # -- the agent's step -----------------------------------------------------------------------
    def agent_step(self, agent: Side, step: int) -> tuple[list[TurnSample], list[float], dict[str, Any]]:
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
        metrics = {"agent_success": sum(self.success[i] for i in batch) / len(batch), "prompts": len(batch),
                   "epoch": self.epoch, "reward_errors": len(errors), "reward_error": errors[0] if errors else None}
        return samples, group_advantages(samples), metrics

    def answer(self, agent: Side, rows: list[dict[str, Any]], attempts: int | None = None) -> list[list[Any]]:
        prompts = [agent_prompt(row["prompt"], agent.tokenizer, self.args.prompt_template) for row in rows]
        return answer_tasks(agent.policy, prompts, [ground_truth(row) for row in rows],
                            attempts or self.args.attempts, self.manager)

    def epoch_ends(self) -> bool:
        return self.position >= len(self.order)

    def env_phase_now(self) -> bool:
        return self.args.genenv_enable and (self.args.alternate == "step" or self.epoch_ends())

    # -- the environment's phase ----------------------------------------------------------------
    def write(self, env: Side, step: int) -> list[WrittenTask]:
        """New tasks from the boundary prompts among those scored since the last phase."""
        args = self.args
        scored, self.scored = list(dict.fromkeys(self.scored)), []
        kept = [scored[k] for k in filter_prompts([self.success[i] for i in scored], args.filtering_k)]
        contents = [self.template.format(task=task_text(self.rows[i]["prompt"]),
                                         answer=answer_text(ground_truth(self.rows[i]))) for i in kept]
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
        return derived_row(parent, task, answer, self.schema)

    def attempt(self, agent: Side, tasks: list[WrittenTask]) -> None:
        valid = [t for t in tasks if t.valid]
        if valid:
            for task, group in zip(valid, self.answer(agent, [t.task for t in valid])):
                task.p = mean_reward_rate(group)

    def adopt(self, tasks: list[WrittenTask]) -> int:
        """Append the valid tasks to the dataset; how many."""
        new = [t.task for t in tasks if t.valid]
        self.rows += new
        return len(new)

    def end_step(self, run_dir: Any) -> None:
        """After the step's phases: at the end of an epoch, write the dataset and start the next epoch."""
        if not self.epoch_ends():
            return
        write_tasks(run_dir / "data" / f"train_epoch_{self.epoch + 1:03d}.parquet", self.rows, self.schema)
        self.epoch, self.position = self.epoch + 1, 0
        self.order = self._epoch_order()

    def evaluate(self, agent: Side) -> dict[str, Any] | None:
        """Mean reward of one reply to each validation prompt."""
        if not self.val:
            return None
        replies = self.answer(agent, self.val, attempts=1)
        return {"val_mean_reward": sum(group[0].reward for group in replies) / len(replies), "val_prompts": len(replies)}

    @staticmethod
    def record(step: int, task: WrittenTask) -> dict[str, Any]:
        row = task.task
        payload = {"task": task_text(row["prompt"]), "answer": ground_truth(row)} if task.valid else None
        return task_record(step, task, payload)

    def state_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "epoch": self.epoch, "position": self.position, "order": self.order,
                "success": self.success, "scored": self.scored}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.rows, self.epoch, self.position = state["rows"], state["epoch"], state["position"]
        self.order, self.success, self.scored = state["order"], state["success"], state["scored"]
