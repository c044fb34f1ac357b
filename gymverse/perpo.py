"""PERPO's maths as pure functions: turn returns, per-environment normalization, the clipped loss.

Progressive Environment Relative Policy Optimization scores every turn of an episode by its
discounted return ``G_t = r_t + gamma * G_{t+1}`` and normalizes returns *per environment*:
``A = (G - mean_e) / (std_e + eps)`` over all turns of environment ``e`` in the batch (across
ranks in distributed runs: each rank computes :func:`env_moments`, they are summed with
:func:`merge_moments`). The std is the population std, as GymVerse computes it from global sums.
``A`` weighs every token of the turn's response in a PPO-clip loss whose per-sequence token sum
is divided by a constant (the generation length limit, as in Dr. GRPO), optionally plus a KL
penalty to a frozen reference model.

Both trainers (native and OAT) call these functions; nothing here knows about models or games.
"""

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import torch

Moments = dict[str, tuple[int, float, float]]  # env id -> (count, sum, sum of squares)


def discounted_returns(rewards: Sequence[float], gamma: float) -> list[float]:
    """``G_t = r_t + gamma * G_{t+1}`` for each turn of one episode, last turn first computed."""
    returns = [0.0] * len(rewards)
    future = 0.0
    for t in reversed(range(len(rewards))):
        future = float(rewards[t]) + gamma * future
        returns[t] = future
    return returns


def env_moments(values: Sequence[float] | np.ndarray, env_ids: Sequence[str]) -> Moments:
    """Count, sum and sum of squares of ``values`` grouped by environment."""
    if len(values) != len(env_ids):
        raise ValueError(f"{len(values)} values but {len(env_ids)} env ids")
    moments: Moments = {}
    for value, env_id in zip(values, env_ids):
        count, total, squares = moments.get(env_id, (0, 0.0, 0.0))
        moments[env_id] = (count + 1, total + float(value), squares + float(value) ** 2)
    return moments


def merge_moments(parts: Iterable[Mapping[str, tuple[int, float, float]]]) -> Moments:
    """Sum per-environment moments from several ranks or actors."""
    merged: Moments = {}
    for part in parts:
        for env_id, (count, total, squares) in part.items():
            c, t, s = merged.get(env_id, (0, 0.0, 0.0))
            merged[env_id] = (c + count, t + total, s + squares)
    return merged


def mean_std(count: int, total: float, squares: float) -> tuple[float, float]:
    """Mean and population std from moments (the variance is clamped at 0 against rounding)."""
    mean = total / count
    return mean, max(squares / count - mean * mean, 0.0) ** 0.5


def normalize_per_env(
    values: Sequence[float] | np.ndarray,
    env_ids: Sequence[str],
    moments: Mapping | None = None,
    eps: float = 1e-9,
) -> np.ndarray:
    """``(G - mean_e) / (std_e + eps)`` for each value, with ``e`` its environment.

    ``moments`` are the batch statistics (e.g. merged over ranks); None computes them from ``values``.
    """
    moments = env_moments(values, env_ids) if moments is None else moments
    stats = {}
    for env_id in set(env_ids):
        if env_id not in moments:
            raise KeyError(f"no moments for environment {env_id!r}")
        stats[env_id] = mean_std(*moments[env_id])
    out = np.empty(len(values), dtype=np.float64)
    for i, (value, env_id) in enumerate(zip(values, env_ids)):
        mean, std = stats[env_id]
        out[i] = (float(value) - mean) / (std + eps)
    return out


def aggregate_tokens(values: torch.Tensor, mask: torch.Tensor, normalizer: float | None = None) -> torch.Tensor:
    """Mean over sequences of each sequence's masked token sum divided by ``normalizer``.

    ``normalizer`` None divides by each sequence's own token count (a per-sequence mean).
    """
    mask = mask.to(values.dtype)
    sums = (values * mask).sum(dim=-1)
    denominator = mask.sum(dim=-1).clamp(min=1.0) if normalizer is None else float(normalizer)
    return (sums / denominator).mean()


def ppo_clip_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    clip_eps: float = 0.2,
    normalizer: float | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """PPO's clipped surrogate, to minimize: ``-min(ratio * A, clip(ratio, 1 +- eps) * A)`` per token.

    Shapes: ``logprobs``, ``old_logprobs``, ``mask`` are (batch, tokens); ``advantages`` is (batch,)
    (one value per response, applied to each of its tokens) or (batch, tokens). Tokens are
    aggregated by :func:`aggregate_tokens` with ``normalizer``.
    """
    if advantages.dim() == 1:
        advantages = advantages[:, None].expand_as(logprobs)
    log_ratio = logprobs - old_logprobs
    ratio = torch.exp(log_ratio)
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * advantages
    loss = aggregate_tokens(-torch.minimum(unclipped, clipped), mask, normalizer)
    with torch.no_grad():
        live = mask.bool()
        count = max(int(live.sum()), 1)
        stats = {
            "clip_fraction": float(((clipped < unclipped) & live).sum()) / count,
            "approx_kl": float(((ratio - 1) - log_ratio)[live].sum()) / count,
            "ratio_mean": float(ratio[live].sum()) / count,
        }
    return loss, stats


KL_ESTIMATORS = ("low_var_kl", "kl", "abs", "mse")


def kl_penalty(
    logprobs: torch.Tensor, ref_logprobs: torch.Tensor, mask: torch.Tensor, estimator: str = "low_var_kl"
) -> torch.Tensor:
    """Per-token estimate of KL(policy || reference), zero where ``mask`` is 0, by veRL's estimators:

    * ``low_var_kl`` (k3): ``exp(d) - d - 1`` with ``d = ref - policy``, non-negative, unbiased for samples drawn
      from the policy, clipped to [-10, 10] as veRL clips it;
    * ``kl`` (k1): ``policy - ref``; ``abs``: ``|policy - ref|``; ``mse`` (k2): ``(policy - ref)^2 / 2``.

    Aggregate it like the loss: ``aggregate_tokens(kl, mask, normalizer)``.
    """
    log_ratio = logprobs - ref_logprobs
    if estimator == "low_var_kl":
        kl = torch.clamp(torch.exp(-log_ratio) + log_ratio - 1.0, -10.0, 10.0)
    elif estimator == "kl":
        kl = log_ratio
    elif estimator == "abs":
        kl = log_ratio.abs()
    elif estimator == "mse":
        kl = 0.5 * log_ratio.square()
    else:
        raise ValueError(f"unknown KL estimator {estimator!r}; one of {', '.join(KL_ESTIMATORS)}")
    return kl * mask.to(logprobs.dtype)
