"""From the tasks the environment policy wrote to its training batch and the step's records.

Each written task earns ``R_env(p)`` when it is valid (``p``: the agent's success over its attempts) and
``--invalid_reward`` when it is not. With ``--band_filter`` a valid task outside ``|p - alpha| <= k_min`` is
logged but left out of the update. Advantages are the rewards normalized over the tasks written from the
same environment prompt (GRPO's groups), so a prompt whose tasks all score alike teaches nothing.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gymverse.episodes import Turn
from gymverse.genenv.rewards import within_band
from gymverse.perpo import normalize_per_env
from gymverse.policy.base import Generation
from gymverse.run.plan import TurnSample

P_BINS = (0.0, 0.2, 0.4, 0.6, 0.8)  # lower edges of the histogram of p; the last bin includes 1.0


@dataclass
class WrittenTask:
    group: str  # the environment prompt it was written from
    prompt: str  # that prompt, as the environment policy saw it
    generation: Generation
    task: Any = None  # what was read from the reply (a spec, a new row), None when invalid
    reason: str | None = None  # why the reply is not a valid task
    p: float | None = None  # the agent's success on it, once attempted
    reward: float = 0.0
    in_band: bool = False
    trained: bool = False

    @property
    def valid(self) -> bool:
        return self.reason is None


def score(
    tasks: Sequence[WrittenTask],
    reward_fn: Callable[[float], float],
    invalid_reward: float,
    alpha: float,
    k_min: float,
    band_filter: bool,
) -> list[TurnSample]:
    """Set every task's reward, band and whether it trains; the environment policy's samples."""
    samples = []
    for task in tasks:
        if task.valid:
            assert task.p is not None, "a valid task is attempted before it is scored"
            task.reward, task.in_band = reward_fn(task.p), within_band(task.p, alpha, k_min)
        else:
            task.reward, task.in_band = invalid_reward, False
        task.trained = bool(task.generation.response_ids) and not (band_filter and task.valid and not task.in_band)
        if task.trained:
            g = task.generation
            turn = Turn(
                task.prompt,
                g.text,
                list(g.prompt_ids),
                list(g.response_ids),
                list(g.logprobs),
                task.reward,
                g.truncated,
            )
            samples.append(TurnSample(task.group, turn, task.reward))
    return samples


def group_advantages(samples: Sequence[TurnSample]) -> list[float]:
    """Rewards normalized over the samples of the same group (environment prompt, or agent prompt)."""
    if not samples:
        return []
    return normalize_per_env([s.ret for s in samples], [s.env_id for s in samples]).tolist()


def p_histogram(rates: Sequence[float]) -> list[int]:
    counts = [0] * len(P_BINS)
    for p in rates:
        counts[max(k for k, edge in enumerate(P_BINS) if p >= edge - 1e-12)] += 1
    return counts


def summary(tasks: Sequence[WrittenTask]) -> dict[str, Any]:
    """The environment side of a step's ``genenv_metrics.jsonl`` line."""
    valid = [t for t in tasks if t.valid]
    rates = [t.p for t in valid if t.p is not None]
    reasons = Counter(t.reason for t in tasks if not t.valid)
    return {
        "tasks": len(tasks),
        "valid_rate": len(valid) / len(tasks) if tasks else 0.0,
        "mean_r_env": sum(t.reward for t in tasks) / len(tasks) if tasks else 0.0,
        "mean_r_env_valid": sum(t.reward for t in valid) / len(valid) if valid else 0.0,
        "mean_p": sum(rates) / len(rates) if rates else None,
        "p_histogram": p_histogram(rates),
        "band_fraction": sum(t.in_band for t in valid) / len(valid) if valid else 0.0,
        "env_trained_tasks": sum(t.trained for t in tasks),
        "invalid_reasons": dict(reasons.most_common(5)),
    }


def task_record(step: int, task: WrittenTask, task_json: Any) -> dict[str, Any]:
    """One line of ``generated_tasks.jsonl``."""
    return {
        "step": step,
        "group": task.group,
        "reply": task.generation.text[:2000],
        "valid": task.valid,
        "reason": task.reason,
        "task": task_json,
        "p": task.p,
        "r_env": task.reward,
        "in_band": task.in_band,
        "trained": task.trained,
    }
