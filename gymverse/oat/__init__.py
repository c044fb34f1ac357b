"""PERPO on OAT (oat-llm 0.2.4): vLLM actors play the games, DeepSpeed learners train, launchpad runs them.

Importing this package does not import OAT (which needs GPUs and Python 3.10); :func:`main` does.
The logic the OAT classes use lives in small modules here that import without OAT
(``env_table``, ``curriculum_sync``, ``ledger``, ``transitions``, ``schedule``, ``eval_plan``,
``settings``, ``actor_policy``); ``actor``, ``learner``, ``records``, ``args`` and ``launch`` are
the glue, checked against OAT's sources by ``gymverse.oat_contract``.
"""


def main(argv: list[str] | None = None) -> int:
    """Parse OAT's and GymVerse's flags from ``argv`` and run the actor-learner program."""
    from gymverse.oat.launch import main as launch

    return launch(argv)
