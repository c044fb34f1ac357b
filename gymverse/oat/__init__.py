"""PERPO on OAT (oat-llm 0.2.4): vLLM actors play the games, DeepSpeed learners train, launchpad runs them.

Importing this package does not import OAT (which needs GPUs and Python 3.10); :func:`main` does.
It stands on the run core (``gymverse.run``: configuration, step plan, curriculum driver, run files,
figures) like the native trainer, and keeps only what OAT needs: small modules that import without
OAT (``ledger``, ``transitions``, ``eval_plan``, ``settings``, ``actor_policy``), and the glue
(``actor``, ``learner``, ``records``, ``args``, ``launch``), checked against OAT's sources by
``tools/oat_contract.py``.
"""


def main(argv: list[str] | None = None) -> int:
    """Parse OAT's and GymVerse's flags from ``argv`` and run the actor-learner program."""
    from gymverse.oat.launch import main as launch

    return launch(argv)
