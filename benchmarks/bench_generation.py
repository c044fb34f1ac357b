"""Generated tokens per second of a Hugging Face policy (default: the built-in tiny model).

python benchmarks/bench_generation.py --batch-sizes 1 8 32 --cpu-threads 1
"""

import time

import torch
import tyro
from rich.table import Table

from gymverse.console import console
from gymverse.policy.base import Sampling
from gymverse.policy.hf import HFPolicy
from gymverse.prompts import apply_template

OBSERVATION = (
    "A hidden array has 40 integers, indexed 0 to 39. A peak is an index whose value is at least that of each "
    "existing neighbour. Commands: \\boxed{read i} shows the value at index i; \\boxed{answer i} ends the game."
)


def main(
    pretrain: str = "tiny",
    batch_sizes: tuple[int, ...] = (1, 4, 16, 64),
    generate_max_length: int = 128,
    repeats: int = 3,
    cpu_threads: int = 1,
    device: str = "cpu",
) -> None:
    """Sample replies to game prompts at each batch size and print the best of ``repeats`` runs. The prompts of a
    batch differ (as a step's games do), so no prompt forward is shared; GRPO's shared prompts are measured by
    ``bench_train.py --mode grpo-vs-trl``.

    Args:
        pretrain: model folder, or ``tiny``.
        batch_sizes: prompts per ``generate`` call.
        generate_max_length: tokens per reply (EOS is masked out, so every reply is this long).
        repeats: runs per batch size; the fastest counts.
        cpu_threads: torch CPU threads while sampling (0: torch's default), as in training and evaluation.
        device: ``cpu`` or ``cuda``.
    """
    sampling = Sampling(generate_max_length=generate_max_length, seed=0)
    policy = HFPolicy(pretrain, sampling, device=device, num_threads=cpu_threads or None, batch_size=max(batch_sizes))
    # Every reply runs to the length limit, so all runs do the same work.
    eos = sorted(policy.eos_ids)
    policy.model.lm_head.register_forward_hook(lambda module, args, out: out.index_fill_(-1, torch.tensor(eos), -1e4))
    prompts = [apply_template("qwen3_game", f"{OBSERVATION}\nGame {k:03d}.") for k in range(max(batch_sizes))]
    prompt = prompts[0]
    threads = cpu_threads or torch.get_num_threads()
    table = Table(
        title=f"{pretrain}: {policy.count_tokens(prompt)}-token prompt, {generate_max_length}-token replies, "
        f"{threads} CPU thread(s)"
    )
    for column in ("batch", "seconds", "tokens/s"):
        table.add_column(column, justify="right")
    policy.generate([prompt])  # warm-up
    for batch in batch_sizes:
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            replies = policy.generate(prompts[:batch])
            best = min(best, time.perf_counter() - start)
        tokens = sum(len(r.response_ids) for r in replies)
        table.add_row(str(batch), f"{best:.3f}", f"{tokens / best:,.0f}")
    console.print(table)


if __name__ == "__main__":
    tyro.cli(main)
