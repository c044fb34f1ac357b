"""Dataset-mode GRPO throughput, gymverse's agent step against TRL's ``GRPOTrainer``, on the same work.

    pip install trl    # not a gymverse dependency
    python benchmarks/bench_grpo_vs_trl.py [--steps 4] [--prompts 4] [--generations 4] [--length 32] [--cpu_threads 1]

Both train the same tiny model (built from its config, untrained, so replies run to the length limit) on the
same toy arithmetic prompts (chat messages, math reward), with the same prompts per step, generations per
prompt, generation length, learning rate and one update per batch, on CPU. Reported: reply tokens generated per
second of training (generation and update together) for each, and the ratio. Timings depend on the machine
and on whatever else runs on it.
"""

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "genenv"))

from toy_arithmetic import rows as toy_rows  # noqa: E402


def gymverse_run(options, model_path: str, rows: list[dict]) -> tuple[int, float, float]:
    from gymverse.genenv.attempts import answer_tasks
    from gymverse.genenv.config import GenEnvArgs
    from gymverse.genenv.dataset import agent_prompt, ground_truth
    from gymverse.genenv.reward_managers import load_reward_manager
    from gymverse.genenv.scoring import group_advantages
    from gymverse.genenv.sides import load_side
    from gymverse.run.plan import TurnSample
    from gymverse.train.update import prepare_torch

    args = GenEnvArgs(pretrain=model_path, generate_max_length=options.length, max_model_len=None,
                      train_batch_size=options.prompts * options.generations,
                      train_batch_size_per_device=options.prompts * options.generations, learning_rate=1e-5)
    prepare_torch("cpu", options.cpu_threads, 0)
    agent = load_side("agent", model_path, args, options.steps, True, "no", seed=0)
    manager = load_reward_manager("math")
    tokens, started, learning = 0, time.perf_counter(), 0.0
    for step in range(options.steps):
        batch = rows[step * options.prompts : (step + 1) * options.prompts]
        prompts = [agent_prompt(row["prompt"], agent.tokenizer) for row in batch]
        replies = answer_tasks(agent.policy, prompts, [ground_truth(row) for row in batch], options.generations, manager)
        samples = [TurnSample(str(k), r.turn, r.reward) for k, group in enumerate(replies) for r in group]
        update_started = time.perf_counter()
        agent.learn(samples, group_advantages(samples), random.Random(step))
        learning += time.perf_counter() - update_started
        tokens += sum(len(s.turn.response_ids) for s in samples)
    return tokens, time.perf_counter() - started, learning


def trl_run(options, model_path: str, rows: list[dict]) -> tuple[int, float]:
    import torch
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from gymverse.genenv.reward_managers import MathRewardManager

    torch.set_num_threads(options.cpu_threads)
    manager, counted = MathRewardManager(), []

    def math_reward(completions, ground_truth, completion_ids=None, **_):
        counted.extend(len(ids) for ids in completion_ids)
        texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
        return [manager.compute_reward(text, truth) for text, truth in zip(texts, ground_truth)]

    data = Dataset.from_list([{"prompt": row["prompt"], "ground_truth": row["reward_model"]["ground_truth"]}
                              for row in rows[: options.steps * options.prompts]])
    with tempfile.TemporaryDirectory() as out:
        config = GRPOConfig(
            output_dir=out, use_cpu=True, per_device_train_batch_size=options.prompts * options.generations,
            num_generations=options.generations, max_completion_length=options.length, max_steps=options.steps,
            learning_rate=1e-5, temperature=1.0, beta=0.0, num_iterations=1, report_to="none", save_strategy="no",
            logging_steps=options.steps, bf16=False, shuffle_dataset=False, seed=0,
        )
        trainer = GRPOTrainer(model=model_path, reward_funcs=math_reward, args=config, train_dataset=data)
        started = time.perf_counter()
        trainer.train()
        return sum(counted), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--length", type=int, default=32)
    parser.add_argument("--cpu_threads", type=int, default=1)
    options = parser.parse_args()
    from gymverse.policy.tiny import resolve_pretrain

    model_path = str(resolve_pretrain("tiny"))
    rows = toy_rows(options.steps * options.prompts, seed=0, split="train")
    ours = gymverse_run(options, model_path, rows)
    theirs = trl_run(options, model_path, rows)
    print(f"tiny model, {options.steps} steps x {options.prompts} prompts x {options.generations} generations, "
          f"up to {options.length} tokens each, {options.cpu_threads} CPU thread(s)")
    for name, (tokens, seconds) in (("gymverse", ours[:2]), ("TRL GRPOTrainer", theirs)):
        print(f"{name:16s} {tokens / seconds:8.1f} reply tokens/s   ({tokens} tokens in {seconds:.1f} s)")
    print(f"gymverse's time: {ours[1] - ours[2]:.1f} s generating, {ours[2]:.1f} s updating")
    print(f"ratio (gymverse / TRL): {(ours[0] / ours[1]) / (theirs[0] / theirs[1]):.2f}x")
    print("load average:", " ".join(open("/proc/loadavg").read().split()[:3]) if Path("/proc/loadavg").exists() else "n/a")


if __name__ == "__main__":
    main()
