"""Throughput of the native trainer with the tiny model: episodes, generated tokens and trained tokens per second.

    python benchmarks/bench_train.py [--steps 6] [--num_env 16] [--rollout_batch_size 48] [--cpu_threads 1]

Plays and trains a few PERPO steps on the demo games (no warm start, so the untrained model writes
full-length replies: the worst case for generation) and times the two halves separately. Timings
depend on the machine and on whatever else runs on it.
"""

import argparse
import tempfile
import time

from gymverse.run.plan import turn_samples
from gymverse.train.args import TrainArgs
from gymverse.train.loop import Trainer, advantages_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--num_env", type=int, default=16)
    parser.add_argument("--rollout_batch_size", type=int, default=48)
    parser.add_argument("--cpu_threads", type=int, default=1)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as save_path:
        args = TrainArgs(
            pretrain="tiny", sft_episodes=0, save_path=save_path, num_env=options.num_env,
            rollout_batch_size=options.rollout_batch_size, train_batch_size=options.rollout_batch_size,
            max_train=options.rollout_batch_size * options.steps, cpu_threads=options.cpu_threads, evolve=False,
        )
        trainer = Trainer(args, progress=False)
        trainer.setup()
        episodes = generated = trained = 0
        play_time = learn_time = 0.0
        for step in range(1, options.steps + 1):
            start = time.perf_counter()
            played = [e for eps in trainer.collect(step).values() for e in eps]
            play_time += time.perf_counter() - start
            samples = turn_samples(played, args.gamma, args.keep_generation_failed)[: args.rollout_batch_size]
            start = time.perf_counter()
            trainer.learn(samples, advantages_of(samples, trainer.curriculum.table, args.norm_return), step)
            learn_time += time.perf_counter() - start
            episodes += len(played)
            generated += sum(len(t.response_ids) for e in played for t in e.turns)
            trained += sum(len(s.turn.response_ids) for s in samples) * args.num_ppo_epochs
    print(f"tiny model, {options.steps} steps of {options.rollout_batch_size} turns, {options.num_env} envs, "
          f"{options.cpu_threads} CPU thread(s)")
    print(f"episodes/s          {episodes / play_time:8.2f}   ({episodes} episodes in {play_time:.1f} s of play)")
    print(f"generated tokens/s  {generated / play_time:8.1f}   ({generated} tokens)")
    print(f"trained tokens/s    {trained / learn_time:8.1f}   "
          f"({trained} reply tokens in {learn_time:.1f} s of training)")


if __name__ == "__main__":
    main()
