"""Every seed of a run comes from ``gymverse.seeds`` by a named purpose, and no two draws share a stream."""

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gymverse
from gymverse.seeds import Purpose, coordinate_seed, derive_seed, seed_words

PACKAGE = Path(gymverse.__file__).parent
COORDINATES = {  # how many coordinates each purpose takes (see the comments on Purpose)
    Purpose.TRAIN_ENVS: 1,
    Purpose.TRAIN_GAMES: 3,
    Purpose.EVAL_ENVS: 1,
    Purpose.EVAL_GAMES: 2,
    Purpose.EVAL_SAMPLER: 0,
    Purpose.EVAL_DRAWS: 3,
    Purpose.WARM_START: 0,
    Purpose.BATCH: 1,
    Purpose.AGENT_UPDATE: 1,
    Purpose.CLOSING_ENVS: 2,
    Purpose.CLOSING_GAMES: 2,
    Purpose.CLOSING_DRAWS: 3,
    Purpose.CLOSING_SAMPLER: 0,
    Purpose.ENV_POLICY: 0,
    Purpose.ENV_WARM_START: 0,
    Purpose.ENV_UPDATE: 1,
    Purpose.DATASET_ORDER: 1,
    Purpose.UNIFORM_SPECS: 1,
    Purpose.SPEC_RESET: 2,
}


def padded_entropy(words: list[int]) -> tuple[int, ...]:
    """What ``SeedSequence`` actually mixes: its pool reads a short entropy as if padded with zeros to 4 words."""
    return tuple(words) + (0,) * max(0, 4 - len(words))


def test_every_purpose_is_listed_with_its_coordinates():
    assert set(COORDINATES) == set(Purpose)


def test_no_two_draws_of_runs_share_a_stream():
    """Every purpose over the coordinates of a long run (steps, 8 games, 10 levels, episodes) and three seeds,
    including a negative and a 64-bit one: the mixed words differ even after SeedSequence's zero padding, and so
    do the derived seeds themselves."""
    small = range(0, 9)
    seen: dict[tuple[int, ...], tuple] = {}
    seeds: dict[int, tuple] = {}
    for seed, purpose in itertools.product((0, 42, -1, 2**40 + 42), Purpose):
        for coordinates in itertools.product(small, repeat=COORDINATES[purpose]):
            key = (seed, purpose.name, coordinates)
            entropy = padded_entropy(seed_words(seed, purpose, *coordinates))
            assert entropy not in seen, f"{key} mixes the same words as {seen[entropy]}"
            seen[entropy] = key
            if seed == 42 and len(coordinates) <= 2:
                value = derive_seed(seed, purpose, *coordinates)
                assert value not in seeds, f"{key} derives the seed of {seeds[value]}"
                seeds[value] = key
    assert len(seen) > 10_000


def test_the_padding_it_guards_against_is_real():
    """NumPy's SeedSequence does read [s, 7] and [s, 7, 0, 0] as one entropy: the reason for the count word."""
    assert np.array_equal(
        np.random.SeedSequence([42, 7]).generate_state(2), np.random.SeedSequence([42, 7, 0, 0]).generate_state(2)
    )
    assert derive_seed(42, Purpose.WARM_START) != derive_seed(42, Purpose.WARM_START, 0)


@given(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1))
def test_distinct_run_seeds_mix_distinct_words(a, b):
    if a != b:
        assert seed_words(a, Purpose.BATCH, 3) != seed_words(b, Purpose.BATCH, 3)


def test_a_coordinate_outside_the_word_range_is_refused():
    with pytest.raises(ValueError, match="coordinates"):
        derive_seed(42, Purpose.BATCH, -1)


def test_derived_seeds_keep_the_values_the_readmes_runs_were_measured_with():
    """A change here changes every measured number: the README's runs and studies would have to be re-run."""
    assert derive_seed(42, Purpose.WARM_START) == 346678866
    assert derive_seed(42, Purpose.BATCH, 5) == 1808643505
    assert derive_seed(42, Purpose.EVAL_DRAWS, 1, 4, 7) == 2086733844
    assert derive_seed(42, Purpose.TRAIN_GAMES, 5, 1, 2) == 944928477
    assert coordinate_seed(42, "gymverse:GridCourier", 3, 2) == 642719838


def test_every_call_site_names_its_purpose():
    calls = re.compile(r"\bderive_seed\(([^()]*)\)")
    checked = 0
    for path in PACKAGE.rglob("*.py"):
        if path.name == "seeds.py":
            continue
        for arguments in calls.findall(path.read_text()):
            purpose = [argument.strip() for argument in arguments.split(",")][1]
            assert purpose.startswith("Purpose."), f"{path.name}: derive_seed({arguments}) names no purpose"
            checked += 1
    assert checked >= 15
