"""Random draws for building game instances, cheaper than their ``random.Random`` counterparts.

``int(rng.random() * n)`` draws uniformly from ``range(n)`` several times faster than ``rng.randrange(n)``
or ``rng.choice`` (which check their arguments and draw bits in a loop); its bias is below 2**-40 for
the sizes games use. :func:`between` and :func:`pick` are that idiom by name; a game's innermost
loops may write it inline, with ``random = rng.random`` bound once.
"""

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def between(rng: random.Random, low: int, high: int) -> int:
    """``rng.randint(low, high)``, only cheaper."""
    return low + int(rng.random() * (high - low + 1))


def pick(rng: random.Random, items: Sequence[T]) -> T:
    """``rng.choice(items)``, only cheaper."""
    return items[int(rng.random() * len(items))]


def distinct_draws(rng: random.Random, population: Sequence[T], k: int) -> list[T]:
    """``rng.sample(population, k)``: ``k`` different members in random order, every order equally likely.

    While ``k`` is at most half the population, members are drawn one at a time and repeats skipped,
    which takes a few cheap ``rng.random()`` calls instead of ``sample``'s bookkeeping; beyond that,
    repeats would be frequent and ``sample`` itself is used.
    """
    size = len(population)
    if 2 * k > size:
        return rng.sample(population, k)
    draw, picked = rng.random, dict[int, None]()  # dict keys keep the order of the draws
    while len(picked) < k:
        picked[int(draw() * size)] = None
    return [population[i] for i in picked]
