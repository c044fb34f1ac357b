"""The numbers evaluation reports: pass@k, complexity schedules, difficulty bands and trends."""

import math
from typing import Sequence

EASY_ABOVE = 0.7  # success above this: easy
HARD_AT_OR_BELOW = 0.3  # success at or below this: hard; in between: medium


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` attempts with ``c`` successes: ``1 - C(n-c, k) / C(n, k)``.

    The chance that at least one of ``k`` attempts drawn without replacement from the ``n`` succeeds.
    """
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got n={n}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def progressive_levels(num_levels: int, first: int = 1, last: int = 10) -> list[int]:
    """GymVerse's progressive schedule: level ``i`` of ``N`` is ``first + int(i / (N - 1) * (last - first))``."""
    if num_levels < 1:
        raise ValueError(f"need at least one level, got {num_levels}")
    if num_levels == 1:
        return [first]
    return [first + int(i / (num_levels - 1) * (last - first)) for i in range(num_levels)]


def difficulty_band(success_rate: float) -> str:
    """GymVerse's split: easy above 0.7, hard at or below 0.3, medium in between."""
    if success_rate > EASY_ABOVE:
        return "easy"
    if success_rate <= HARD_AT_OR_BELOW:
        return "hard"
    return "medium"


def linear_slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ``ys`` on ``xs`` (0.0 when ``xs`` do not vary)."""
    if len(xs) != len(ys) or not xs:
        raise ValueError("need two equally long, non-empty sequences")
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return 0.0
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / spread


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman rank correlation; NaN when either side is constant (no trend can be read)."""
    from scipy.stats import spearmanr

    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return math.nan
    return float(spearmanr(xs, ys).statistic)


def difficulty_verdict(rho: float, drop: float, min_rho: float = 0.5, min_drop: float = 0.1) -> str:
    """``graded`` when success falls with complexity, ``inverted`` when it rises, ``flat`` otherwise.

    ``rho`` is the Spearman correlation of success with complexity and ``drop`` the success at the
    lowest level minus the success at the highest; both must agree for a trend to count.
    """
    if not math.isnan(rho) and rho <= -min_rho and drop >= min_drop:
        return "graded"
    if not math.isnan(rho) and rho >= min_rho and drop <= -min_drop:
        return "inverted"
    return "flat"
