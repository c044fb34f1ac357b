"""PERPO's formulas: returns, per-environment normalization, the clipped loss and its normalizer."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from gymverse.perpo import (
    aggregate_tokens,
    discounted_returns,
    env_moments,
    kl_penalty,
    merge_moments,
    normalize_per_env,
    ppo_clip_loss,
)

rewards_lists = st.lists(st.floats(-1, 1, allow_nan=False), min_size=1, max_size=12)
envs = st.sampled_from(["a", "b", "c"])
values_with_envs = st.lists(st.tuples(st.floats(-10, 10, allow_nan=False), envs), min_size=1, max_size=40)


def test_discounted_returns_by_hand():
    assert discounted_returns([0.0, 0.0, 1.0], 0.9) == pytest.approx([0.81, 0.9, 1.0])
    assert discounted_returns([-0.1, 0.0, 1.0], 0.5) == pytest.approx([-0.1 + 0.5 * 0.5, 0.5, 1.0])
    assert discounted_returns([], 0.9) == []


@given(rewards_lists, st.floats(0, 1))
def test_discounted_returns_satisfy_the_recursion(rewards, gamma):
    returns = discounted_returns(rewards, gamma)
    assert returns[-1] == pytest.approx(rewards[-1])
    for t in range(len(rewards) - 1):
        assert returns[t] == pytest.approx(rewards[t] + gamma * returns[t + 1], abs=1e-9)


@given(rewards_lists)
def test_gamma_one_sums_the_future_and_gamma_zero_keeps_the_reward(rewards):
    assert discounted_returns(rewards, 1.0) == pytest.approx([sum(rewards[t:]) for t in range(len(rewards))])
    assert discounted_returns(rewards, 0.0) == pytest.approx(rewards)


@given(values_with_envs, st.integers(0, 40))
def test_moments_of_shards_merge_into_the_moments_of_the_whole(pairs, cut):
    values, ids = zip(*pairs)
    whole = env_moments(values, ids)
    merged = merge_moments([env_moments(values[:cut], ids[:cut]), env_moments(values[cut:], ids[cut:])])
    assert merged.keys() == whole.keys()
    for env_id in whole:
        assert merged[env_id][0] == whole[env_id][0]
        assert merged[env_id][1:] == pytest.approx(whole[env_id][1:])


@given(values_with_envs)
def test_each_environment_is_standardized_on_its_own(pairs):
    values, ids = zip(*pairs)
    advantages = normalize_per_env(values, ids)
    for env_id in set(ids):
        group = np.array([v for v, e in pairs if e == env_id])
        normalized = advantages[np.array(ids) == env_id]
        assert normalized.mean() == pytest.approx(0.0, abs=1e-6)
        if group.std() > 1e-3:
            assert normalized.std() == pytest.approx(1.0, rel=1e-6)
        else:
            assert np.all(np.abs(normalized) < 1e3)  # constant returns give ~0, never inf or nan


@given(values_with_envs)
def test_mixed_batch_equals_round_robin_batches_of_one_environment(pairs):
    """Normalizing a mixed batch per env gives what one batch per env (GymVerse's round robin) gives."""
    values, ids = zip(*pairs)
    mixed = normalize_per_env(values, ids)
    for env_id in set(ids):
        rows = [i for i, e in enumerate(ids) if e == env_id]
        alone = normalize_per_env([values[i] for i in rows], [env_id] * len(rows))
        np.testing.assert_allclose(mixed[rows], alone, rtol=1e-9, atol=1e-9)


def test_one_environment_matches_plain_standardization():
    values = [1.0, 0.0, 0.0, 0.9, -0.1]
    expected = (np.array(values) - np.mean(values)) / (np.std(values) + 1e-9)
    np.testing.assert_allclose(normalize_per_env(values, ["x"] * 5), expected)


@given(values_with_envs, st.integers(0, 40))
def test_normalizing_with_merged_moments_matches_normalizing_the_whole_batch(pairs, cut):
    values, ids = zip(*pairs)
    moments = merge_moments([env_moments(values[:cut], ids[:cut]), env_moments(values[cut:], ids[cut:])])
    np.testing.assert_allclose(
        normalize_per_env(values[:cut], ids[:cut], moments),
        normalize_per_env(values, ids)[:cut],
        atol=1e-6,
    )


def test_missing_moments_are_an_error():
    with pytest.raises(KeyError, match="'b'"):
        normalize_per_env([1.0, 2.0], ["a", "b"], env_moments([1.0], ["a"]))


def _loss_and_grad(new, old, advantage, clip_eps=0.2, normalizer=None):
    logprobs = torch.tensor([[new]], dtype=torch.float64, requires_grad=True)
    loss, stats = ppo_clip_loss(
        logprobs,
        torch.tensor([[old]], dtype=torch.float64),
        torch.tensor([advantage], dtype=torch.float64),
        torch.ones(1, 1),
        clip_eps,
        normalizer,
    )
    loss.backward()
    return loss.item(), logprobs.grad.item(), stats


def test_loss_pushes_up_good_responses_and_down_bad_ones():
    loss, grad, _ = _loss_and_grad(-1.0, -1.0, 2.0)
    assert loss == pytest.approx(-2.0)
    assert grad < 0  # gradient descent raises the log-probability of a positive-advantage token
    loss, grad, _ = _loss_and_grad(-1.0, -1.0, -2.0)
    assert loss == pytest.approx(2.0)
    assert grad > 0


@pytest.mark.parametrize(
    "log_ratio, advantage, clipped",
    [
        (math.log(1.5), 1.0, True),  # already much more likely: no further push up
        (math.log(0.5), -1.0, True),  # already much less likely: no further push down
        (math.log(1.5), -1.0, False),  # moved the wrong way: the pessimistic bound keeps the gradient
        (math.log(0.5), 1.0, False),
        (math.log(1.1), 1.0, False),  # inside the trust region
    ],
)
def test_clipping_stops_the_gradient_only_outside_the_region_in_the_advantage_direction(log_ratio, advantage, clipped):
    loss, grad, stats = _loss_and_grad(log_ratio, 0.0, advantage, clip_eps=0.2)
    ratio = math.exp(log_ratio)
    expected = -min(ratio * advantage, min(max(ratio, 0.8), 1.2) * advantage)
    assert loss == pytest.approx(expected)
    assert (grad == 0.0) is clipped
    assert stats["clip_fraction"] == (1.0 if clipped else 0.0)


def test_constant_normalizer_divides_each_token_sum_by_the_same_number():
    logprobs = torch.zeros(2, 4)
    mask = torch.tensor([[1, 1, 1, 1], [1, 0, 0, 0]])
    advantages = torch.tensor([1.0, 1.0])
    loss, _ = ppo_clip_loss(logprobs, logprobs, advantages, mask, normalizer=8)
    assert loss.item() == pytest.approx(-(4 / 8 + 1 / 8) / 2)  # longer responses weigh more
    doubled, _ = ppo_clip_loss(logprobs, logprobs, advantages, mask, normalizer=16)
    assert doubled.item() == pytest.approx(loss.item() / 2)
    per_sequence_mean, _ = ppo_clip_loss(logprobs, logprobs, advantages, mask, normalizer=None)
    assert per_sequence_mean.item() == pytest.approx(-1.0)


def test_padding_tokens_do_not_count():
    logprobs = torch.tensor([[-1.0, -5.0]], requires_grad=True)
    old, advantages, mask = torch.tensor([[-1.0, 0.0]]), torch.tensor([1.0]), torch.tensor([[1, 0]])
    loss, _ = ppo_clip_loss(logprobs, old, advantages, mask, normalizer=4)
    loss.backward()
    assert loss.item() == pytest.approx(-0.25)
    assert logprobs.grad[0, 1].item() == 0.0


def test_per_token_advantages_are_accepted():
    logprobs = torch.zeros(1, 3)
    loss, _ = ppo_clip_loss(logprobs, logprobs, torch.tensor([[1.0, 2.0, 3.0]]), torch.ones(1, 3), normalizer=3)
    assert loss.item() == pytest.approx(-2.0)


def test_kl_penalty_is_zero_at_the_reference_positive_elsewhere_and_masked():
    ref = torch.tensor([[-1.0, -2.0, -3.0]])
    assert torch.all(kl_penalty(ref, ref, torch.ones(1, 3)) == 0)
    policy = torch.tensor([[-0.5, -2.5, -9.0]])
    kl = kl_penalty(policy, ref, torch.tensor([[1, 1, 0]]))
    assert torch.all(kl[0, :2] > 0) and kl[0, 2] == 0
    d = -1.0 - -0.5
    assert kl[0, 0].item() == pytest.approx(math.exp(d) - d - 1)
    assert aggregate_tokens(kl, torch.tensor([[1, 1, 0]]), normalizer=2).item() == pytest.approx(kl.sum().item() / 2)


def test_kl_estimators_are_verls():
    policy, ref, mask = torch.tensor([[-0.5, -2.0, -30.0]]), torch.tensor([[-1.0, -1.5, -1.0]]), torch.ones(1, 3)
    d = policy - ref
    assert torch.allclose(kl_penalty(policy, ref, mask, "kl"), d)
    assert torch.allclose(kl_penalty(policy, ref, mask, "abs"), d.abs())
    assert torch.allclose(kl_penalty(policy, ref, mask, "mse"), d**2 / 2)
    low_var = kl_penalty(policy, ref, mask, "low_var_kl")
    assert low_var[0, 0].item() == pytest.approx(math.exp(-0.5) + 0.5 - 1) and low_var[0, 2].item() == 10.0  # clipped
    with pytest.raises(ValueError, match="low_var_kl"):
        kl_penalty(policy, ref, mask, "k3")


@settings(max_examples=30)
@given(st.floats(-3, 3), st.sampled_from(["low_var_kl", "kl"]))
def test_kl_estimates_average_to_the_true_kl(shift, estimator):
    """Sampled from the policy, an estimator's mean is KL(policy || reference) (two Gaussians on a grid); k3 only
    where veRL's clip at 10 does not bite (|shift| <= 0.5 here)."""
    if estimator == "low_var_kl":
        shift = shift / 6
    grid = torch.linspace(-6, 6, 4001, dtype=torch.float64)
    policy = torch.distributions.Normal(0.0, 1.0).log_prob(grid)
    ref = torch.distributions.Normal(shift, 1.0).log_prob(grid)
    weights = policy.exp() * (grid[1] - grid[0])
    estimate = (kl_penalty(policy, ref, torch.ones_like(grid), estimator) * weights).sum().item()
    assert estimate == pytest.approx(shift**2 / 2, rel=1e-3, abs=1e-4)
