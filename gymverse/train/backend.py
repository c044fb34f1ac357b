"""PERPO training from a command line (``gymverse train``, ``examples/train_oat/train_oat_perpo.py``) on the
backend ``--backend`` names: ``oat`` (OAT's actor-learner, needs oat-llm), ``native`` (the in-process trainer) or
``auto`` (OAT when oat-llm is installed, else native), with the same flags and defaults on both. This is the one
place the native trainer's package hands a run to ``gymverse.oat``."""

import importlib.util
from typing import get_args

from gymverse.entry import run_command
from gymverse.errors import BadInput
from gymverse.train.args import Backend


def oat_installed() -> bool:
    return importlib.util.find_spec("oat") is not None


def split_backend(argv: list[str]) -> tuple[str, list[str]]:
    """``--backend``'s value on ``argv`` (its last, as tyro reads it; ``auto`` when absent) and ``argv`` without it."""
    choice, rest, tokens = "auto", [], iter(argv)
    for token in tokens:
        name, equals, value = token.partition("=")
        if name != "--backend":
            rest.append(token)
            continue
        choice = value if equals else next(tokens, "")
        if choice not in get_args(Backend):
            raise BadInput(f"--backend must be one of {', '.join(get_args(Backend))}, got {choice!r}")
    return choice, rest


def main(argv: list[str], prog: str = "gymverse train") -> int:
    """Train with ``argv``'s flags; the exit status (2: bad input, 130: stopped by Ctrl-C)."""
    return run_command(lambda: train(argv, prog), argv)


def train(argv: list[str], prog: str) -> int:
    choice, rest = split_backend(argv)
    if choice == "oat" or (choice == "auto" and oat_installed()):
        if not oat_installed():
            raise BadInput(
                "--backend oat needs oat-llm, which is not installed here (README: Training on GPUs with OAT)"
            )
        from gymverse.oat import main as oat_main

        return oat_main(rest)
    from gymverse.train.cli import main as native_main

    return native_main(argv, prog)  # --backend stays: the native trainer's --help lists it
