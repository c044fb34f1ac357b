"""Random draws for building game instances, cheaper than their ``random.Random`` counterparts."""

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def distinct_draws(rng: random.Random, population: Sequence[T], k: int) -> list[T]:
    """``rng.sample(population, k)``: ``k`` different members in random order, every order equally likely.

    While ``k`` is at most half the population, members are drawn one at a time and repeats skipped,
    which takes a few cheap ``rng.random()`` calls instead of ``sample``'s bookkeeping; beyond that,
    repeats would be frequent and ``sample`` itself is used.
    """
    size = len(population)
    if 2 * k > size:
        return rng.sample(population, k)
    draw, picked = rng.random, {}  # dict keys keep the order of the draws
    while len(picked) < k:
        picked[int(draw() * size)] = None
    return [population[i] for i in picked]
