"""Every seed a run derives: one mixing helper, keyed by the run's seed, a named purpose and coordinates.

A run has one seed (``--seed``, or drawn once with ``--rnd_seed``). Whatever is random in it takes a seed derived
from that one and from what the draw is for: the games of a step, the turns a step trains on, the warm start's
demonstrations, the evaluation's games and draws. So a resumed run draws what an uninterrupted one would have,
and a change to one kind of draw leaves the others as they were.

* :func:`derive_seed` mixes the run's seed, a :class:`Purpose` and that purpose's coordinates (a step, an
  environment's index, a level) with NumPy's ``SeedSequence``. The words it mixes spell the whole seed, the purpose
  and how many coordinates follow, so no two purposes, coordinates or seeds share a stream (``SeedSequence`` alone
  reads ``[s, 7]`` and ``[s, 7, 0, 0]`` as the same entropy);
* :func:`actor_envs_seed` and :func:`actor_seed` are the OAT actors' (arithmetic on the run's seed);
* :func:`keyed_rng` and :func:`coordinate_seed` key a stream by text (the evaluation sweep, the audit, the
  uniform curriculum), independent of any run.

The numbers behind the purposes are part of every measured result: changing one changes that purpose's draws, and
with them the README's numbers.
"""

import random
from enum import IntEnum, unique


@unique
class Purpose(IntEnum):
    """What a derived seed is for: ``derive_seed(seed, purpose, *coordinates)``, the coordinates in brackets."""

    TRAIN_ENVS = 1  # training environment k's game copies (k)
    TRAIN_GAMES = 2  # the reset seed of environment k's copies at the call-th play of a step (step, k, call)
    EVAL_ENVS = 3  # online evaluation: environment k's game copies (k)
    EVAL_GAMES = 4  # online evaluation: the games of environment k at a level (k, level)
    EVAL_SAMPLER = 5  # online evaluation: the evaluated copy's generator
    EVAL_DRAWS = 6  # online evaluation: the replies of episode n (k, level, n)
    WARM_START = 7  # the warm start's demonstrations
    BATCH = 8  # the turns a step trains on, drawn from those it played (step)
    AGENT_UPDATE = 9  # the order of the agent's update batches (step)
    CLOSING_ENVS = 11  # closing table: environment k's game copies (k, level)
    CLOSING_GAMES = 12  # closing table: the games of environment k at a level (k, level)
    CLOSING_DRAWS = 13  # closing table: the replies of episode n (k, level, n)
    CLOSING_SAMPLER = 14  # closing table: the players' generators
    ENV_POLICY = 21  # GenEnv: the environment policy's sampling
    ENV_WARM_START = 22  # GenEnv: the specs the environment policy is warm-started on
    ENV_UPDATE = 23  # GenEnv: the order of the environment policy's update batches (step)
    DATASET_ORDER = 24  # GenEnv datasets: the order of an epoch's rows (epoch)
    UNIFORM_SPECS = 25  # GenEnv games: the uniform writer's specs (step)
    SPEC_RESET = 26  # GenEnv games: the reset seed of task i whose spec names none (step, i)


def seed_words(seed: int, purpose: Purpose, *coordinates: int) -> list[int]:
    """The 32-bit words :func:`derive_seed` mixes: distinct arguments give distinct words, even once
    ``SeedSequence`` pads them with zeros (the count of coordinates sits before them)."""
    if any(not 0 <= c < 2**32 for c in coordinates):
        raise ValueError(f"seed coordinates are indices in [0, 2**32), got {coordinates}")
    whole = seed % 2**64  # a negative --seed too, one to one over 64-bit seeds
    return [whole % 2**32, whole // 2**32, int(purpose), len(coordinates), *coordinates]


def derive_seed(seed: int, purpose: Purpose, *coordinates: int) -> int:
    """The seed of ``purpose`` in the run seeded ``seed``, at ``coordinates`` (see :class:`Purpose`)."""
    import numpy as np

    return int(np.random.SeedSequence(seed_words(seed, purpose, *coordinates)).generate_state(1)[0] % 2**31)


def actor_envs_seed(seed: int, actor_id: int, group_index: int, num_groups: int, num_env: int) -> int:
    """Seed of the first copy of env group ``group_index`` on OAT actor ``actor_id`` (copy ``i`` gets ``+ i``):
    every copy of every group on every actor plays its own random stream."""
    return seed + (actor_id * num_groups + group_index) * num_env


def actor_seed(seed: int, actor_id: int) -> int:
    """The seed of OAT actor ``actor_id``'s own draws (which turns of its step it hands to the learners)."""
    return seed + actor_id


def keyed_rng(*coordinates: object) -> random.Random:
    """A random stream keyed by ``coordinates`` as text (``keyed_rng("repeat", 3)`` is ``Random("repeat/3")``)."""
    return random.Random("/".join(map(str, coordinates)))


def coordinate_seed(*coordinates: object) -> int:
    """A seed made of ``coordinates`` alone: the same in every run and whatever ran before."""
    return keyed_rng(*coordinates).randrange(2**31)


def instance_seed(seed: int, env_id: str, level: int, instance: int) -> int:
    """The evaluation sweep's reset seed of one instance of a game at a level; all its attempts play it."""
    return coordinate_seed(seed, env_id, level, instance)


def sampling_seed(seed: int, env_id: str, level: int, instance: int, attempt: int) -> int:
    """The seed of the policy's draws in one attempt of the evaluation sweep."""
    return coordinate_seed(seed, env_id, level, instance, attempt, "policy")
