"""PERPO training on gymverse environments, with GymVerse's command line (the same as ``gymverse train``).

With OAT installed (GPU clusters) this runs the OAT backend; otherwise the native trainer, which
runs anywhere. Without arguments it is the CPU demo: the built-in tiny model learns two games
(a short warm start from the games' solvers, then PERPO with a curriculum), and the training
curves are copied to fig/ for the README.
"""

import shutil
import sys
from pathlib import Path

from gymverse.run.config import RunConfig
from gymverse.training import main as train

DEMO_FIGURE = Path(__file__).resolve().parents[2] / "fig" / "demo_training_curves.png"


def main(argv: list[str]) -> int:
    status = train(argv, prog=Path(__file__).name)
    if status == 0 and not argv and DEMO_FIGURE.parent.is_dir():
        demo = RunConfig()
        runs = Path(demo.save_path).glob(f"{demo.wb_run_name}*/figures/training_curves.png")
        figure = max(runs, key=lambda path: path.stat().st_mtime, default=None)
        if figure is not None:
            shutil.copyfile(figure, DEMO_FIGURE)
            print(f"Copied the training curves to {DEMO_FIGURE}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
