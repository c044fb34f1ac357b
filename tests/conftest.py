"""Shared by all tests: reproducible Hypothesis examples, the built-in tiny model and a one-layer micro model."""

import os

import pytest
from hypothesis import settings

# The same examples on every run, so that a CI verdict can be reproduced;
# `HYPOTHESIS_PROFILE=explore pytest` searches afresh on each run.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory):
    """The built-in tiny model, built into a fresh cache (the same path `--pretrain tiny` takes)."""
    from gymverse.policy.tiny import resolve_pretrain

    return resolve_pretrain("tiny", cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="session")
def tokenizer(tiny_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_dir)


@pytest.fixture(scope="session")
def micro_model(tmp_path_factory):
    """A one-layer model with the tiny model's byte tokenizer: fast enough for end-to-end runs."""
    from gymverse.policy.tiny import TINY_ARCHITECTURE, build_tiny_model

    micro = dict(TINY_ARCHITECTURE, hidden_size=32, intermediate_size=64, num_hidden_layers=1)
    micro.update(num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048)
    return build_tiny_model(tmp_path_factory.mktemp("micro"), architecture=micro)


@pytest.fixture(scope="session")
def embedder():
    """The audit's sentence embedder (its weights ship inside the package)."""
    from gymverse.evaluation.audit.diversity import load_embedder

    return load_embedder()


GYMVERSE_LAYOUT = os.path.join(os.path.dirname(__file__), "fixtures", "gymverse_layout")


@pytest.fixture(autouse=True)
def isolated_registry():
    """Each test leaves GEM's registry as it found it, so that an id one test registers from its own folder
    (``example:RunicPotionGame``) is never the one another test finds."""
    from gem.envs.registration import ENV_REGISTRY

    import gymverse  # noqa: F401  (the built-in games and plugins are registered at import, before the snapshot)

    before = dict(ENV_REGISTRY)
    yield
    ENV_REGISTRY.clear()
    ENV_REGISTRY.update(before)


@pytest.fixture
def gymverse_folder(tmp_path):
    """A copy of GymVerse's layout (tests/fixtures/gymverse_layout): the game folder ``.../gem/envs/example``."""
    import shutil

    root = shutil.copytree(GYMVERSE_LAYOUT, tmp_path / "GymVerse")
    return root / "gem" / "envs" / "example"
