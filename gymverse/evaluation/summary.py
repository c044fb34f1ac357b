"""From attempt records to the numbers a sweep reports, per level, env, domain and overall."""

from collections import defaultdict
from typing import Iterable

from gymverse.evaluation.metrics import difficulty_band, linear_slope, pass_at_k, spearman


def summarize(attempts: list[dict], ks: Iterable[int]) -> dict:
    """Success rate, unbiased pass@k (mean over instances), mean return and turns, format-error rate.

    pass@k averages only the instances with at least ``k`` attempts.
    """
    if not attempts:
        return {"attempts": 0, "instances": 0}
    per_instance: dict[tuple, list[bool]] = defaultdict(list)
    for a in attempts:
        per_instance[a["env_id"], a["level"], a["instance"]].append(a["success"])
    turns = sum(a["turns"] for a in attempts)
    stats = {
        "attempts": len(attempts),
        "instances": len(per_instance),
        "success_rate": sum(a["success"] for a in attempts) / len(attempts),
    }
    for k in ks:
        values = [pass_at_k(len(s), sum(s), k) for s in per_instance.values() if len(s) >= k]
        stats[f"pass@{k}"] = sum(values) / len(values) if values else float("nan")
    stats.update(
        mean_return=sum(a["return"] for a in attempts) / len(attempts),
        mean_turns=turns / len(attempts),
        format_error_rate=sum(a["format_errors"] for a in attempts) / turns if turns else 0.0,
        context_overflow_rate=sum(a["ended_by"] == "context_overflow" for a in attempts) / len(attempts),
    )
    return stats


def level_trend(levels: dict[int, dict]) -> dict:
    """Spearman correlation and least-squares slope of success against complexity."""
    xs = sorted(levels)
    ys = [levels[x]["success_rate"] for x in xs]
    if len(xs) < 2:
        return {"spearman": float("nan"), "slope": float("nan")}
    return {"spearman": spearman(xs, ys), "slope": linear_slope(xs, ys)}


def sweep_summary(attempts: list[dict], ks: list[int]) -> dict:
    """The whole report: overall, per domain, per level across envs, per env with its levels."""

    def group(field: str) -> dict:
        return {key: summarize(rows, ks) for key, rows in sorted(_by(attempts, field).items())}

    envs = {}
    for env_id, env_attempts in sorted(_by(attempts, "env_id").items()):
        levels = {level: summarize(rows, ks) for level, rows in sorted(_by(env_attempts, "level").items())}
        for stats in levels.values():
            stats["band"] = difficulty_band(stats["success_rate"])
        envs[env_id] = {
            "domain": env_attempts[0]["domain"],
            **summarize(env_attempts, ks),
            **level_trend(levels),
            "levels": levels,
        }
    return {
        "overall": summarize(attempts, ks),
        "domains": group("domain"),
        "levels": group("level"),
        "envs": envs,
    }


def _by(rows: list[dict], field: str) -> dict:
    out: dict = defaultdict(list)
    for row in rows:
        out[row[field]].append(row)
    return out
