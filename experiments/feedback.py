"""Feedback-design study (GymVerse): the same games with the step feedback kept (process), reduced to
valid/invalid and won/lost (plain) or removed (none) by gymverse.wrappers.FeedbackDesign; each arm
warm-starts and trains on its own design and plays with its history (concat_with_action); all are
evaluated on the original games (process feedback), one yardstick for every design."""

import sys

from experiments.harness import GAMES, Arm, Budget, Study, main
from gymverse.wrappers import FEEDBACK_DESIGNS


def feedback_study(budget: Budget) -> Study:
    """Feedback design: process vs plain vs no feedback, evaluated on the original games."""
    return Study(
        name="feedback",
        claim="rich process feedback beats plain outcome feedback, which beats none",
        arms=[
            Arm(design, {"env_id": "|".join(f"feedback-{design}:{game}" for game in GAMES)})
            for design in FEEDBACK_DESIGNS
        ],
        # An episode whose history outgrows the context is a failure to learn from, not one to drop.
        flags={"evolve": True, "wrappers": "concat_with_action", "max_model_len": 768, "keep_generation_failed": True},
        budget=budget,
    )


if __name__ == "__main__":
    sys.exit(main(feedback_study))
