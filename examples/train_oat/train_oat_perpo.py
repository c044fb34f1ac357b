"""PERPO training on gymverse environments, with GymVerse's command line (the same as ``gymverse train``).

With OAT installed (GPU clusters) this runs the OAT backend; otherwise the native trainer, which
runs anywhere. Without arguments it is the CPU demo: the built-in tiny model learns two games
(a short warm start from the games' solvers, then PERPO with a curriculum); its training curves
are in the run folder's ``figures/``.
"""

import sys
from pathlib import Path

from gymverse.train.backend import main as train


def main(argv: list[str]) -> int:
    return train(argv, prog=Path(__file__).name)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
