"""Fingerprints of every built-in game's play, to show that a refactor changed no observation.

For each game, level and seed, two episodes are played: the solver's, and random play with a few hostile
replies mixed in. Everything the agent sees (observations, rewards, ends, info) is hashed into one
fingerprint per episode. Write the fingerprints of one version of the code, then check another against them:

    python benchmarks/transcripts.py write before.json     # on the old code
    python benchmarks/transcripts.py check before.json     # on the new code: lists every episode that differs

A game that has no fingerprints yet (one added since they were written) is named as new, not counted as a
difference; `write` takes its fingerprints with everyone else's.
"""

import argparse
import hashlib
import json
import random
import sys

import gem
from tqdm import tqdm

import gymverse  # noqa: F401  (registers the library)
from gymverse.env import builtin_env_classes

HOSTILE = [
    "",
    "no box here",
    "\\boxed{}",
    "\\boxed{answer 99999999999}",
    "\\boxed{" + "x" * 500 + "}",
    "\\boxed{ANSWER  1}",
    "\\boxed{é ü 😀}",
    "\\boxed{read -1}",
    "\\boxed{go north}",
    "\\boxed{1,2}",
]


def fingerprint(env, seed: int, random_play: bool) -> str:
    digest = hashlib.sha256()
    observation, info = env.reset(seed=seed)
    digest.update(repr((observation, sorted(info.items()))).encode())
    agent = random.Random(seed)
    for turn in range(400):
        if not random_play:
            action = env.oracle_action()
        elif turn % 5 == 4:
            action = HOSTILE[agent.randrange(len(HOSTILE))]
        else:
            action = env.random_action(agent)
        observation, reward, terminated, truncated, info = env.step(action)
        digest.update(repr((action, observation, reward, terminated, truncated, sorted(info.items()))).encode())
        if terminated or truncated:
            break
    return digest.hexdigest()[:16]


def game_fingerprints(name: str, levels: range, seeds: range) -> dict[str, str]:
    """``{"Game/level/seed/mode": fingerprint}`` for the built-in game ``name``."""
    env = gem.make(f"gymverse:{name}").unwrapped
    result = {}
    for level in levels:
        env.set_complexity(level)
        for seed in seeds:
            for mode in ("solver", "random"):
                result[f"{name}/{level}/{seed}/{mode}"] = fingerprint(env, seed, mode == "random")
    return result


def fingerprints(levels: range, seeds: range) -> dict[str, str]:
    result = {}
    for cls in tqdm(builtin_env_classes(), desc="games"):
        result.update(game_fingerprints(cls.__name__, levels, seeds))
    return result


def game_of(key: str) -> str:
    return key.split("/", 1)[0]


def new_games(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """The games played ``now`` that ``before`` has no fingerprint of."""
    return sorted({game_of(key) for key in now} - {game_of(key) for key in before})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["write", "check"])
    parser.add_argument("path")
    parser.add_argument("--levels", type=int, default=20, help="levels 1..LEVELS")
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0..SEEDS-1")
    args = parser.parse_args()
    now = fingerprints(range(1, args.levels + 1), range(args.seeds))
    if args.mode == "write":
        with open(args.path, "w") as file:
            json.dump(now, file, indent=0, sort_keys=True)
        print(f"wrote {len(now)} fingerprints to {args.path}")
        return 0
    with open(args.path) as file:
        before = json.load(file)
    differ = sorted(key for key in before.keys() & now.keys() if before[key] != now[key])
    for key in differ:
        print("differs:", key)
    for name in new_games(before, now):
        print(f"new: {name} (no fingerprints yet; `write` takes them)")
    print(f"{len(differ)} of {len(before.keys() & now.keys())} episodes differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
