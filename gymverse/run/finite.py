"""The guard between the games and the optimizer: no non-finite number is learned from or saved.

A game in this process (a built-in or trusted one) can pay NaN or infinity; so can an overflow in the
maths. :func:`require_finite` stops the step that meets one before the optimizer moves, naming the value
and the game it came from; the run loop turns :class:`NonFinite` into one line and keeps the last save.
Every trainer calls it: the native update (:mod:`gymverse.run.update`) and OAT's learner.
"""

import math
from typing import Iterable, Sequence


class NonFinite(ArithmeticError):
    """A reward, advantage, loss or gradient that is NaN or infinite (the message names it and its game)."""


def first_non_finite(values: Iterable[float]) -> int | None:
    """The index of the first value that is NaN or infinite, or None."""
    return next((i for i, value in enumerate(values) if not math.isfinite(value)), None)


def require_finite(what: str, values: Sequence[float], games: Sequence[str]) -> None:
    """Raise :class:`NonFinite` at the first non-finite value of ``values`` (``games[i]`` played value ``i``;
    one game name stands for all)."""
    i = first_non_finite(values)
    if i is not None:
        game = games[i] if len(games) == len(values) else ", ".join(sorted(set(games)))
        raise NonFinite(f"a non-finite {what} ({values[i]}) from {game}")
