"""Training throughput with the tiny model: the native trainer on games, or dataset-mode GRPO against TRL.

    python benchmarks/bench_train.py [--steps 6] [--num_env 16] [--rollout_batch_size 48] [--cpu_threads 1]
    pip install trl    # not a gymverse dependency
    python benchmarks/bench_train.py --mode grpo-vs-trl [--steps 8] [--prompts 4] [--generations 4] [--length 64]

``--mode games`` (the default) plays and trains PERPO steps on the demo games (no warm start, so the
untrained model writes full-length replies: the worst case for generation), times the two halves
separately and prints episodes, generated tokens and trained tokens per second.

``--mode grpo-vs-trl`` trains GenEnv's agent step (dataset-mode GRPO) and TRL's ``GRPOTrainer`` on the same
work, one after the other in this process: the same tiny model folder (untrained, so replies run to the
length limit), the same toy arithmetic prompts (chat messages, math reward), prompts per step, generations
per prompt, generation length, learning rate, one update per batch, no KL term and CPU threads; TRL's
activation checkpointing is turned off, as gymverse does not recompute activations. Each side's first step
is a warm-up, not counted. Prints reply tokens generated per second of training (generation and update
together) for both, and the ratio.

``--clock cpu`` counts this process's CPU time instead of wall-clock time: steadier while other processes
share the cores. Timings depend on the machine and on whatever else runs on it.
"""

import argparse
import importlib.util
import random
import sys
import tempfile
import time
from pathlib import Path

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def games(options, clock) -> None:
    from gymverse.run.env_table import advantages_of
    from gymverse.run.plan import turn_samples
    from gymverse.train.args import TrainArgs
    from gymverse.train.loop import Trainer

    steps = options.steps or 6
    with tempfile.TemporaryDirectory() as save_path:
        args = TrainArgs(
            pretrain="tiny",
            sft_episodes=0,
            save_path=save_path,
            num_env=options.num_env,
            rollout_batch_size=options.rollout_batch_size,
            train_batch_size=options.rollout_batch_size,
            max_train=options.rollout_batch_size * steps,
            cpu_threads=options.cpu_threads,
            evolve=False,
        )
        trainer = Trainer(args, progress=False)
        trainer.setup()
        episodes = generated = trained = 0
        play_time = learn_time = 0.0
        for step in range(1, steps + 1):
            start = clock()
            played = [e for eps in trainer.collect(step).values() for e in eps]
            play_time += clock() - start
            samples = turn_samples(played, args.gamma, args.keep_generation_failed)[: args.rollout_batch_size]
            start = clock()
            trainer.agent_step.learn(samples, advantages_of(samples, trainer.table, args.norm_return), step)
            learn_time += clock() - start
            episodes += len(played)
            generated += sum(len(t.response_ids) for e in played for t in e.turns)
            trained += sum(len(s.turn.response_ids) for s in samples) * args.num_ppo_epochs
    print(
        f"tiny model, {steps} steps of {options.rollout_batch_size} turns, {options.num_env} envs, "
        f"{options.cpu_threads} CPU thread(s), {options.clock} clock"
    )
    print(f"episodes/s          {episodes / play_time:8.2f}   ({episodes} episodes in {play_time:.1f} s of play)")
    print(f"generated tokens/s  {generated / play_time:8.1f}   ({generated} tokens)")
    print(
        f"trained tokens/s    {trained / learn_time:8.1f}   ({trained} reply tokens in {learn_time:.1f} s of training)"
    )


def gymverse_grpo(options, clock, model_path: str, rows: list[dict]) -> tuple[int, float, float]:
    """GenEnv's agent step on ``options.steps`` counted batches: ``(reply tokens, seconds, seconds updating)``."""
    from gymverse.genenv.attempts import answer_tasks
    from gymverse.genenv.config import GenEnvArgs
    from gymverse.genenv.dataset import agent_prompt, ground_truth
    from gymverse.genenv.reward_managers import load_reward_manager
    from gymverse.genenv.scoring import group_advantages
    from gymverse.genenv.sides import load_side
    from gymverse.run.plan import TurnSample
    from gymverse.run.update import prepare_torch

    batch_size = options.prompts * options.generations
    args = GenEnvArgs(
        pretrain=model_path,
        generate_max_length=options.length,
        max_model_len=None,
        train_batch_size=batch_size,
        train_batch_size_per_device=batch_size,
        learning_rate=1e-5,
    )
    prepare_torch("cpu", options.cpu_threads, 0)
    agent = load_side("agent", model_path, args, options.steps + 1, True, "no", seed=0)
    manager = load_reward_manager("math")
    tokens, seconds, updating = 0, 0.0, 0.0
    for step in range(options.steps + 1):  # step 0 warms up
        started = clock()
        batch = rows[step * options.prompts : (step + 1) * options.prompts]
        prompts = [agent_prompt(row["prompt"], agent.tokenizer) for row in batch]
        replies = answer_tasks(
            agent.policy, prompts, [ground_truth(row) for row in batch], options.generations, manager
        )
        samples = [TurnSample(str(k), r.turn, r.reward) for k, group in enumerate(replies) for r in group]
        update_started = clock()
        agent.learn(samples, group_advantages(samples), random.Random(step))
        if step > 0:
            updating += clock() - update_started
            seconds += clock() - started
            tokens += sum(len(s.turn.response_ids) for s in samples)
    return tokens, seconds, updating


def trl_grpo(options, clock, model_path: str, rows: list[dict]) -> tuple[int, float]:
    """TRL's ``GRPOTrainer`` on the same counted batches: ``(reply tokens, seconds)``."""
    import warnings

    import torch
    from datasets import Dataset
    from transformers import PrinterCallback, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    from gymverse.genenv.reward_managers import MathRewardManager

    torch.set_num_threads(options.cpu_threads)
    manager, step_tokens, step_ends = MathRewardManager(), [], []

    def math_reward(completions, ground_truth, completion_ids=None, **_):
        step_tokens.append(sum(len(ids) for ids in completion_ids))
        texts = [c[-1]["content"] if isinstance(c, list) else c for c in completions]
        return [manager.compute_reward(text, truth) for text, truth in zip(texts, ground_truth)]

    class StepEnds(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            step_ends.append(clock())

    data = Dataset.from_list(
        [{"prompt": row["prompt"], "ground_truth": row["reward_model"]["ground_truth"]} for row in rows]
    )
    with tempfile.TemporaryDirectory() as out, warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # TRL uses transformers' deprecated checkpointing names
        config = GRPOConfig(
            output_dir=out,
            use_cpu=True,
            per_device_train_batch_size=options.prompts * options.generations,
            num_generations=options.generations,
            max_completion_length=options.length,
            max_steps=options.steps + 1,
            learning_rate=1e-5,
            temperature=1.0,
            beta=0.0,
            num_iterations=1,
            gradient_checkpointing=False,
            report_to="none",
            save_strategy="no",
            logging_steps=options.steps + 1,
            bf16=False,
            shuffle_dataset=False,
            seed=0,
            disable_tqdm=True,
        )
        trainer = GRPOTrainer(
            model=model_path, reward_funcs=math_reward, args=config, train_dataset=data, callbacks=[StepEnds()]
        )
        trainer.remove_callback(PrinterCallback)  # its log lines would bury the result
        trainer.train()
    assert len(step_tokens) == len(step_ends) == options.steps + 1, "one generation per training step"
    return sum(step_tokens[1:]), step_ends[-1] - step_ends[0]  # from the end of the warm-up step


def grpo_vs_trl(options, clock) -> None:
    if importlib.util.find_spec("trl") is None:
        sys.exit("--mode grpo-vs-trl compares against TRL, which is not installed: pip install trl")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "genenv"))
    from toy_arithmetic import rows as toy_rows

    from gymverse.policy.tiny import resolve_pretrain

    options.steps = options.steps or 8
    model_path = str(resolve_pretrain("tiny"))
    rows = toy_rows((options.steps + 1) * options.prompts, seed=0, split="train")
    ours = gymverse_grpo(options, clock, model_path, rows)
    theirs = trl_grpo(options, clock, model_path, rows)
    print(
        f"tiny model, {options.steps} steps (after a warm-up step) x {options.prompts} prompts x "
        f"{options.generations} generations, up to {options.length} tokens each, "
        f"{options.cpu_threads} CPU thread(s), {options.clock} clock"
    )
    print(
        f"gymverse         {ours[0] / ours[1]:8.1f} reply tokens/s   ({ours[0]} tokens in {ours[1]:.2f} s: "
        f"{ours[1] - ours[2]:.2f} s generating, {ours[2]:.2f} s updating)"
    )
    print(f"TRL GRPOTrainer  {theirs[0] / theirs[1]:8.1f} reply tokens/s   ({theirs[0]} tokens in {theirs[1]:.2f} s)")
    print(f"ratio (gymverse / TRL): {(ours[0] / ours[1]) / (theirs[0] / theirs[1]):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["games", "grpo-vs-trl"], default="games")
    parser.add_argument("--steps", type=int, default=None, help="training steps (default: 6 games, 8 grpo-vs-trl)")
    parser.add_argument("--cpu_threads", type=int, default=1)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    parser.add_argument("--num_env", type=int, default=16, help="games: environments per game")
    parser.add_argument("--rollout_batch_size", type=int, default=48, help="games: turns per step")
    parser.add_argument("--prompts", type=int, default=4, help="grpo-vs-trl: prompts per step")
    parser.add_argument("--generations", type=int, default=4, help="grpo-vs-trl: replies per prompt")
    parser.add_argument("--length", type=int, default=64, help="grpo-vs-trl: tokens per reply at most")
    options = parser.parse_args()
    (games if options.mode == "games" else grpo_vs_trl)(options, CLOCKS[options.clock])
    if Path("/proc/loadavg").exists():
        print("load average:", " ".join(Path("/proc/loadavg").read_text().split()[:3]))


if __name__ == "__main__":
    main()
