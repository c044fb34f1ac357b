"""Complexity study (GymVerse): the evolving curriculum from level 1 against fixed level 1, fixed level 10 and
GenEnv's alpha curriculum, on the same games and episode budget; held-out sweep of levels 1..10. Trained on the
CPU demo's recipe (a noisy warm start that leaves RL room), so that the arms can separate."""

import sys

from experiments.harness import DEMO_RECIPE, GAMES, Arm, Budget, Study, main


def complexity_study(budget: Budget) -> Study:
    """Complexity: fixed level 1 vs fixed level 10 vs --evolve from level 1 vs the alpha curriculum."""
    return Study(
        name="complexity",
        claim="the evolving curriculum from level 1 matches fixed level 1 on easy instances and beats fixed "
        "level 10; fixed level 10 from the start learns little",
        arms=[
            Arm("fixed level 1", {"evolve": False, "train_difficulty": 1}),
            Arm("fixed level 10", {"evolve": False, "train_difficulty": 10}),
            Arm("evolve (threshold)", {"evolve": True, "curriculum": "threshold", "train_difficulty": 1}),
            Arm("alpha curriculum", {"evolve": True, "curriculum": "alpha", "train_difficulty": 1}),
        ],
        flags={"env_id": "|".join(GAMES), **DEMO_RECIPE},
        eval_levels=list(range(1, 11)),
        curve_levels=[1, 5, 10],
        budget=budget,
    )


if __name__ == "__main__":
    sys.exit(main(complexity_study))
