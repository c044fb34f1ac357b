"""Scripted players made of a game's own hooks: a random move and the epsilon-solver (for games with a solver).

Every random choice comes from the ``random.Random`` the caller passes, never from the module-level
``random`` that games (GymVerse's among them) draw from, so playing never disturbs a game's stream.
The env checker, the audit, the baseline policies and the tests all play through these two functions.
"""

import random
from typing import Any


def random_move(env: Any, rng: random.Random) -> str:
    """A random move: the game's ``random_action(rng)``, else GEM's ``sample_random_action``, else an empty box.

    ``sample_random_action`` draws from the module-level ``random``; it runs on a state seeded from
    ``rng`` and the game's state is put back afterwards.
    """
    game = env.unwrapped
    if hasattr(game, "random_action"):
        return game.random_action(rng)
    saved = random.getstate()
    random.seed(rng.getrandbits(64))
    try:
        return env.sample_random_action()
    except NotImplementedError:
        return "\\boxed{}"
    finally:
        random.setstate(saved)


def epsilon_solver_move(env: Any, rng: random.Random, epsilon: float) -> str:
    """The solver's move (``oracle_action()``), or with probability ``epsilon`` a :func:`random_move`."""
    if rng.random() < epsilon:
        return random_move(env, rng)
    return env.unwrapped.oracle_action()


def has_solver(env: Any) -> bool:
    """Whether a game, reset, has a reference solver: ``oracle_action()`` exists and answers.

    GymVerse's games and most games written elsewhere have none."""
    try:
        env.unwrapped.oracle_action()
    except (AttributeError, NotImplementedError):
        return False
    return True
