"""PERPO training from a command line (``gymverse train``, ``examples/train_oat/train_oat_perpo.py``):
the OAT backend when oat-llm is installed, else the native trainer, with the same flags and defaults.
This is the one place the native trainer's package reaches ``gymverse.oat``, to hand the run over."""

import importlib.util


def oat_installed() -> bool:
    return importlib.util.find_spec("oat") is not None


def main(argv: list[str], prog: str = "gymverse train") -> int:
    """Train with ``argv``'s flags; the exit status (2: bad input, 130: stopped by Ctrl-C)."""
    if oat_installed():
        from gymverse.oat import main as oat_main

        return oat_main(argv)
    from gymverse.train.cli import main as native_main

    return native_main(argv, prog)
