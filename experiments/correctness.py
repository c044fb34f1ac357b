"""Correctness study (GymVerse): training on correct games against a mix of correct games and their buggy
twins (gymverse.wrappers.BuggyTwin: unwinnable instances, rewards that contradict success, lying
feedback), the same budget; evaluated on the correct games."""

import sys

from experiments.harness import GAMES, Arm, Budget, Study, main

TWINS = [f"buggy:{game}" for game in GAMES]


def correctness_study(budget: Budget) -> Study:
    """Correctness: correct games only vs correct games + their buggy twins, evaluated on the correct ones."""
    correct = "|".join(GAMES)
    return Study(
        name="correctness",
        claim="training on correct environments beats a mix with incorrect ones",
        arms=[
            Arm("correct only", {"env_id": correct}, warm_env_id=correct),
            Arm("correct + buggy twins", {"env_id": "|".join(GAMES + TWINS)}, warm_env_id=correct),
        ],
        flags={"evolve": True},
        budget=budget,
    )


if __name__ == "__main__":
    sys.exit(main(correctness_study))
