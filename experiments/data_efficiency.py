"""Data-efficiency study (GenEnv): how many training episodes a static schedule needs to reach the held-out
success that difficulty-aligned data (the alpha curriculum) reaches. GenEnv reports about 3.3x less data.

The static arm draws each batch's complexity uniformly from levels 1-5 (``--curriculum uniform``: a fixed
spread of difficulties, as a static augmented dataset has); the aligned arm moves each game's level to keep
its success near 0.5 (``--curriculum alpha``). Both arms play the same games for the same number of turns and
are evaluated on the same held-out levels every few steps; the finding is read from those curves."""

import sys
from dataclasses import replace

from experiments.harness import FULL, GAMES, Arm, Budget, Study, episodes_to_reach, main, mean_curve

STATIC, ALIGNED = "static (uniform levels 1-5)", "alpha curriculum"


def data_efficiency(arms: dict, results: list[dict]) -> dict:
    """Episodes each arm needs to first reach the static arm's final held-out success (seed-averaged online
    curves), and their ratio: above 1, the aligned data needed fewer episodes."""
    static, aligned = mean_curve(results, STATIC), mean_curve(results, ALIGNED)
    if not static or not aligned:
        return {}
    start, target = static[0]["success"], static[-1]["success"]
    findings = {"target held-out success (static arm's final)": round(target, 3)}
    if target <= start:
        findings["reading"] = (
            f"the static arm ended at or below its starting held-out success ({start:.3f} -> "
            f"{target:.3f}): there is no gain to match, so no ratio"
        )
        return findings
    static_needs, aligned_needs = episodes_to_reach(static, target), episodes_to_reach(aligned, target)
    needs = {STATIC: static_needs, ALIGNED: aligned_needs}
    ratio = static_needs / aligned_needs if static_needs is not None and aligned_needs else None
    return {
        **findings,
        "episodes to reach it": {arm: None if n is None else round(n, 1) for arm, n in needs.items()},
        "data-efficiency ratio (static / aligned)": None if ratio is None else round(ratio, 2),
    }


def data_efficiency_study(budget: Budget) -> Study:
    """Data efficiency: a static uniform schedule vs the alpha curriculum, episodes to the same held-out success."""
    return Study(
        name="data_efficiency",
        claim="difficulty-aligned data needs about 3.3x less data than static data to reach the same success",
        arms=[
            Arm(STATIC, {"curriculum": "uniform"}),
            Arm(ALIGNED, {"curriculum": "alpha"}),
        ],
        flags={"env_id": "|".join(GAMES), "evolve": True, "train_difficulty": 1, "max_difficulty": 5},
        eval_levels=[1, 2, 3, 4, 5],
        curve_levels=[1, 3, 5],
        budget=replace(FULL, steps=32, eval_every=4) if budget == FULL else budget,  # longer curves, read more often
        findings=data_efficiency,
    )


if __name__ == "__main__":
    sys.exit(main(data_efficiency_study))
