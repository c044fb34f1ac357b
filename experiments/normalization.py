"""Normalization study (GymVerse's PERPO): returns normalized per environment against one normalization over
the whole batch and against per-group normalization (GRPO's), on two games whose returns differ in scale and
difficulty: GridCourier paying ten times its rewards, beside MailSorter as it is.

Every step plays both games (``--env_sampling mixed``), so a batch mixes their returns; every arm resets its
copies in blocks of four from one seed, so the arms play the same instances and differ only in how returns
become advantages."""

import sys

from experiments.harness import GAMES, Arm, Budget, Study, main

SCALED = ["reward-x10:gymverse:GridCourier", "gymverse:MailSorter"]


def normalization_study(budget: Budget) -> Study:
    """Normalization: per environment (PERPO) vs over the batch vs per group (GRPO), mixed reward scales."""
    return Study(
        name="normalization",
        claim="normalizing returns per environment keeps a game with small returns learning beside one with "
        "large returns, where one normalization over the batch lets the large one dominate",
        arms=[
            Arm("per environment (PERPO)", {"norm_scope": "env"}),
            Arm("whole batch", {"norm_scope": "batch"}),
            Arm("per group (GRPO)", {"norm_scope": "group"}),
        ],
        flags={"env_id": "|".join(SCALED), "env_sampling": "mixed", "group_size": 4, "evolve": True},
        eval_env_ids=list(GAMES),
        eval_levels=[1, 2, 3, 4, 5, 6],
        curve_levels=[1, 3],
        table_by="envs",
        budget=budget,
    )


if __name__ == "__main__":
    sys.exit(main(normalization_study))
