"""Scale study (GymVerse): train on 1, 2, 4 and 8 distinct games with the same number of training turns,
evaluate on games none of them trained on. Every arm starts from the same warm start (solver demonstrations
of the first two games), so the arms differ only in the games PERPO plays."""

import sys

from experiments.harness import Arm, Budget, Study, main

# Games whose level-1 prompt fits the tiny model's context, in the order the arms add them.
POOL = [
    "gymverse:GridCourier",
    "gymverse:MailSorter",
    "gymverse:LightsOut",
    "gymverse:PeakFinder",
    "gymverse:TakeAwayDuel",
    "gymverse:HotColdTreasure",
    "gymverse:CodeLock",
    "gymverse:ShortestPath",
]
HELD_OUT = ["gymverse:Battleship", "gymverse:HornClauseProof"]


def scale_study(budget: Budget) -> Study:
    """Scale: 1, 2, 4, 8 training games (same budget), evaluated on unseen games."""
    return Study(
        name="scale",
        claim="more distinct training environments generalize better to unseen ones",
        arms=[
            Arm(f"{n} game{'s' if n > 1 else ''}", {"env_id": "|".join(POOL[:n])}, warm_env_id="|".join(POOL[:2]))
            for n in (1, 2, 4, 8)
        ],
        flags={"evolve": True, "max_model_len": 640},
        eval_env_ids=HELD_OUT,
        eval_levels=[1],
        curve_levels=[1],
        budget=budget,
    )


if __name__ == "__main__":
    sys.exit(main(scale_study))
