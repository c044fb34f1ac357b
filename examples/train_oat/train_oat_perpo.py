"""PERPO training on gymverse environments, with GymVerse's command line.

With OAT installed (GPU clusters) this runs the OAT backend; otherwise the native trainer, which
runs anywhere. Without arguments it is the CPU demo: the built-in tiny model learns two games
(a short warm start from the games' solvers, then PERPO with a curriculum), and the training
curves are copied to fig/ for the README.
"""

import importlib.util
import shutil
import sys
from pathlib import Path

DEMO_FIGURE = Path(__file__).resolve().parents[2] / "fig" / "demo_training_curves.png"


def main(argv: list[str]) -> int:
    if importlib.util.find_spec("oat") is not None:
        from gymverse.oat import main as oat_main

        return oat_main(argv)
    print("OAT not installed: running the native trainer")
    from gymverse.train.cli import train_from_argv

    run_dir = train_from_argv(argv)
    if run_dir is None:
        return 2
    figure = run_dir / "figures" / "training_curves.png"
    if not argv and figure.is_file() and DEMO_FIGURE.parent.is_dir():
        shutil.copyfile(figure, DEMO_FIGURE)
        print(f"Copied the training curves to {DEMO_FIGURE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
