"""What the environment policy is paid for a task, given the agent's success rate ``p`` on it.

Three selectable rewards, each a pure function of ``p`` (the agent's success over its ``n`` attempts):

* ``gaussian``: GenEnv's ``R_env = exp(-beta (p - alpha)^2)``, 1 at the target rate ``alpha``;
* ``learnability``: Absolute Zero's proposer reward ``1 - p`` for ``0 < p < 1``, else 0;
* ``uncertainty``: R-Zero's challenger reward ``1 - 2 |p - 0.5|`` (without its repetition penalty).

Two filters come from GenEnv: the paper's band (a task with ``|p - alpha| > k_min`` is logged but does not
update the environment policy) and the released code's ``filtering_k`` (before generating, drop the
easiest and the hardest fraction of the prompts).
"""

import math
from collections.abc import Callable, Sequence

from gymverse.curriculum import alpha_reward, is_informative
from gymverse.errors import BadInput


def learnability_reward(success_rate: float) -> float:
    """``1 - p`` when the agent sometimes but not always succeeds, 0 when it always or never does."""
    return 1.0 - success_rate if 0.0 < success_rate < 1.0 else 0.0


def uncertainty_reward(success_rate: float) -> float:
    """``1 - 2 |p - 0.5|``: 1 at even odds, 0 when the agent always or never succeeds."""
    return 1.0 - 2.0 * abs(success_rate - 0.5)


ENV_REWARDS = ("gaussian", "learnability", "uncertainty")


def env_reward_fn(name: str, alpha: float = 0.5, beta: float = 10.0) -> Callable[[float], float]:
    """The environment reward ``name`` (one of :data:`ENV_REWARDS`) as a function of ``p``."""
    if name == "gaussian":
        if beta <= 0:
            raise BadInput(f"--beta must be > 0 for the gaussian environment reward, got {beta}")
        return lambda p: alpha_reward(p, alpha, beta)
    if name == "learnability":
        return learnability_reward
    if name == "uncertainty":
        return uncertainty_reward
    raise BadInput(f"--env_reward {name!r} is not one of {', '.join(ENV_REWARDS)}")


def within_band(success_rate: float, alpha: float = 0.5, k_min: float = 0.1) -> bool:
    """The paper's band: only tasks with ``|p - alpha| <= k_min`` update the environment policy."""
    return not is_informative(success_rate, alpha, k_min)


def filter_prompts(success_rates: Sequence[float], filtering_k: float) -> list[int]:
    """Indices of the prompts GenEnv's ``filtering_k`` keeps, in their original order.

    The prompts are ranked by success rate; the ``floor(k * n)`` easiest (highest success) and as
    many hardest are dropped. Ties are broken by position, so the result is deterministic.
    """
    if not 0.0 <= filtering_k < 0.5:
        raise BadInput(f"genenv.filtering_k must lie in [0, 0.5), got {filtering_k}")
    drop = math.floor(filtering_k * len(success_rates) + 1e-9)
    ranked = sorted(range(len(success_rates)), key=lambda i: (success_rates[i], i))
    kept = ranked[drop : len(ranked) - drop]
    return sorted(kept)
