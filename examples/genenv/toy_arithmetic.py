"""Write a toy GenEnv dataset (sums and products of small numbers) as train and validation parquet files.

    python examples/genenv/toy_arithmetic.py data/toy      # data/toy/train.parquet, data/toy/val.parquet

Rows follow GenEnv's format: ``prompt`` as chat messages, ``reward_model.ground_truth``, and veRL's
``data_source``, ``ability`` and ``extra_info`` columns.
"""

import random
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def rows(count: int, seed: int, split: str) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for index in range(count):
        a, b = rng.randint(1, 20), rng.randint(1, 20)
        op = rng.choice("+*")
        answer = a + b if op == "+" else a * b
        out.append(
            {
                "data_source": "toy_arithmetic",
                "prompt": [{"role": "user", "content": f"What is {a} {op} {b}? Put the answer in \\boxed{{}}."}],
                "ability": "math",
                "reward_model": {"style": "rule", "ground_truth": str(answer)},
                "extra_info": {"split": split, "index": index},
            }
        )
    return out


def main(folder: str) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows(64, 0, "train")), out / "train.parquet")
    pq.write_table(pa.Table.from_pylist(rows(16, 1, "val")), out / "val.parquet")
    print(f"wrote {out / 'train.parquet'} (64 rows) and {out / 'val.parquet'} (16 rows)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "data/toy")
