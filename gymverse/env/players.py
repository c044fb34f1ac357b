"""Scripted players made of a game's own hooks: a random move and the epsilon-solver (for games with a solver).

Every random choice comes from the ``random.Random`` the caller passes, never from the module-level
``random`` that games (GymVerse's among them) draw from, so playing never disturbs a game's stream.
The env checker, the audit, the baseline policies and the tests all play through these functions.

:class:`Moves` are players that need nothing from this process to choose: random moves, a fixed reply and a
script. A jailed game plays a run of them inside its jail in one request (a round trip per step would cost
more than the game itself); any other game is asked for them one step at a time.
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


class Moves:
    """A player whose choice needs nothing from this process: called like any chooser, ``moves(env)``, or
    described by :meth:`spec` for a jail to choose the same kind of move itself."""

    def __call__(self, env: Any) -> Any:
        raise NotImplementedError

    def spec(self) -> dict:
        """What a jail needs to choose the next moves: ``{"random": seed}``, ``{"solver": epsilon, "random": seed}``,
        ``{"repeat": reply}`` or ``{"script": replies}``."""
        raise NotImplementedError

    def take(self, chosen: Any) -> Any:
        """The move to record for one the jail reports it made: its own for a random player, this side's for
        a scripted one (the jail cannot change what was sent)."""
        return chosen


class RandomMoves(Moves):
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, env: Any) -> str:
        return random_move(env, self.rng)

    def spec(self) -> dict:
        return {"random": self.rng.getrandbits(64)}


class SolverMoves(Moves):
    """The epsilon-solver (:func:`epsilon_solver_move`) drawing from ``rng``; ``epsilon=0`` is the solver itself."""

    def __init__(self, rng: random.Random, epsilon: float = 0.0) -> None:
        self.rng = rng
        self.epsilon = epsilon

    def __call__(self, env: Any) -> str:
        return epsilon_solver_move(env, self.rng, self.epsilon)

    def spec(self) -> dict:
        return {"solver": self.epsilon, "random": self.rng.getrandbits(64)}


class RepeatedMove(Moves):
    def __init__(self, reply: str) -> None:
        self.reply = reply

    def __call__(self, env: Any) -> str:
        return self.reply

    def spec(self) -> dict:
        return {"repeat": self.reply}

    def take(self, chosen: Any) -> str:
        return self.reply


class ScriptedMoves(Moves):
    """The replies of ``script`` in order (a replay); the episode must not outlast them."""

    def __init__(self, script: list[Any]) -> None:
        self.script = script
        self.position = 0

    def __call__(self, env: Any) -> Any:
        self.position += 1
        return self.script[self.position - 1]

    def spec(self) -> dict:
        return {"script": self.script[self.position :]}

    def take(self, chosen: Any) -> Any:
        return self(None)
