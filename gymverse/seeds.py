"""Every seed a run derives: one mixing helper, keyed by the run's seed, a named purpose and coordinates.

A run has one seed (``--seed``, or drawn once with ``--rnd_seed``). Whatever is random in it takes a seed derived
from that one and from what the draw is for: the games of a step, the turns a step trains on, the warm start's
demonstrations, the evaluation's games and draws. So a resumed run draws what an uninterrupted one would have,
and a change to one kind of draw leaves the others as they were.

* :func:`derive_seed` (run-wide purposes, :class:`Purpose`) and :func:`step_seed` (purposes within one step or
  epoch, :class:`StepPurpose`) mix integers with NumPy's ``SeedSequence``;
* :func:`train_envs_seed` and :func:`train_games_seed` seed the training games by their coordinates alone;
* :func:`actor_envs_seed` and :func:`actor_seed` are the OAT actors' (arithmetic on the run's seed);
* :func:`keyed_rng` and :func:`coordinate_seed` key a stream by text (the evaluation sweep, the audit, the
  uniform curriculum), independent of any run.

The numbers behind the purposes are the tags the README's runs were measured with: changing one changes that
purpose's draws, and with them the measured numbers.
"""

import random
from enum import IntEnum, unique


@unique
class Purpose(IntEnum):
    """Run-wide purposes: ``derive_seed(seed, purpose, *coordinates)``, the coordinates in brackets."""

    EVAL_ENVS = 3  # online evaluation: environment k's game copies (k)
    EVAL_GAMES = 4  # online evaluation: the games of environment k at a level (k, level)
    EVAL_SAMPLER = 5  # online evaluation: the evaluated copy's generator
    EVAL_DRAWS = 6  # online evaluation: the replies of episode n (k, level, n)
    WARM_START = 7  # the warm start's demonstrations
    CLOSING_ENVS = 11  # closing table: environment k's game copies (k, level)
    CLOSING_GAMES = 12  # closing table: the games of environment k at a level (k, level)
    CLOSING_DRAWS = 13  # closing table: the replies of episode n (k, level, n)
    CLOSING_SAMPLER = 14  # closing table: the players' generators
    ENV_POLICY = 21  # GenEnv: the environment policy's sampling
    ENV_WARM_START = 22  # GenEnv: the specs the environment policy is warm-started on


@unique
class StepPurpose(IntEnum):
    """Purposes within one step (or epoch): ``step_seed(seed, step, purpose, *coordinates)``."""

    DATASET_ORDER = 5  # GenEnv datasets: the order of an epoch's rows (keyed by the epoch)
    UNIFORM_SPECS = 11  # GenEnv games: the uniform writer's specs
    SPEC_RESET = 12  # GenEnv games: the reset seed of task i whose spec names none (i)
    ENV_UPDATE = 97  # GenEnv: the order of the environment policy's update batches
    BATCH = 98  # the turns a step trains on, drawn from those it played
    AGENT_UPDATE = 99  # the order of the agent's update batches


def _mix(*parts: int) -> int:
    import numpy as np

    return int(np.random.SeedSequence([p % 2**32 for p in parts]).generate_state(1)[0] % 2**31)


def derive_seed(seed: int, purpose: Purpose, *coordinates: int) -> int:
    """The seed of ``purpose`` in the run seeded ``seed``, at ``coordinates`` (see :class:`Purpose`)."""
    return _mix(seed, purpose, *coordinates)


def step_seed(seed: int, step: int, purpose: StepPurpose, *coordinates: int) -> int:
    """The seed of ``purpose`` in step (or epoch) ``step`` of the run seeded ``seed``."""
    return _mix(seed, step, purpose, *coordinates)


def train_envs_seed(seed: int, k: int) -> int:
    """The seed training environment ``k``'s game copies are built with."""
    return _mix(seed, k)


def train_games_seed(seed: int, step: int, k: int, call: int) -> int:
    """The reset seed of training environment ``k``'s copies at the ``call``-th play of step ``step``."""
    return _mix(seed, step, k, call)


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
