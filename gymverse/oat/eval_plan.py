"""Online evaluation: which actor plays which share, and the metrics every rank logs.

Rank 0 hands each (environment, complexity) pair's ``--eval_n`` episodes out to the actors in
shares, one round per pair; the metric keys are fixed by the flags, so all ranks log the same keys
whatever was played.
"""

from collections.abc import Mapping, Sequence


def split_evenly(total: int, parts: int) -> list[int]:
    """``total`` items shared by ``parts`` workers, the first ones taking one more when it does not divide."""
    if parts < 1:
        raise ValueError(f"need at least one worker, got {parts}")
    return [total // parts + (i < total % parts) for i in range(parts)]


def eval_rounds(
    env_ids: Sequence[str],
    levels: Sequence[int],
    episodes: int,
    num_actors: int,
) -> list[list[tuple[int, str, int, int]]]:
    """Per (environment, complexity) pair, one round of (actor index, env id, complexity, episodes)
    shares: each actor appears at most once in a round, and the shares of a round add up to ``episodes``."""
    return [
        [(actor, env_id, level, count) for actor, count in enumerate(split_evenly(episodes, num_actors)) if count]
        for env_id in env_ids
        for level in levels
    ]


def metric_keys(env_ids: Sequence[str], levels: Sequence[int]) -> list[str]:
    keys = [
        f"eval/{env_id}/c{level}/{name}"
        for env_id in env_ids
        for level in levels
        for name in ("accuracy", "mean_episode_len")
    ]
    return keys + ["eval/average/accuracy"]


def eval_metrics(records: Sequence[Mapping], env_ids: Sequence[str], levels: Sequence[int]) -> dict[str, float]:
    """Metrics under :func:`metric_keys` from ``RunFiles.log_eval`` records (missing pairs count 0)."""
    metrics = dict.fromkeys(metric_keys(env_ids, levels), 0.0)
    for record in records:
        prefix = f"eval/{record['env_id']}/c{record['complexity']}"
        if f"{prefix}/accuracy" not in metrics:
            raise KeyError(f"evaluation record for {prefix} is outside the evaluation plan")
        metrics[f"{prefix}/accuracy"] = float(record["accuracy"])
        metrics[f"{prefix}/mean_episode_len"] = float(record["mean_episode_len"])
    accuracies = [metrics[f"eval/{e}/c{c}/accuracy"] for e in env_ids for c in levels]
    metrics["eval/average/accuracy"] = sum(accuracies) / len(accuracies) if accuracies else 0.0
    return metrics
