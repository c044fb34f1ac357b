"""Run folders, Hugging Face checkpoints and the trainer state that ``--resume`` continues from.

Layout (OAT's): ``<save_path>/<run_name>/saved_models/step_XXXXX/`` holds ``save_pretrained``
checkpoints, at most ``max_save_num`` of them; ``trainer_state.pt`` beside it holds everything
else a resumed run needs (step, optimizer, scheduler, RNG states, curriculum, log offsets) and
names the checkpoint it goes with. Both are written to a temporary name and renamed into place, so
a run killed at any moment leaves the previous state intact.
"""

import os
import random
import re
import shutil
import time
from pathlib import Path
from typing import Any

STATE_FILE = "trainer_state.pt"
MODELS_DIR = "saved_models"
_STEP_DIR = re.compile(r"^step_(\d{5,})$")


def step_dir_name(step: int) -> str:
    return f"step_{step:05d}"


def resolve_run_dir(save_path: str | os.PathLike, run_name: str, resume: bool) -> Path:
    """The folder of this run.

    A new run gets ``<save_path>/<run_name>``, or ``<run_name>_<timestamp>`` when that is taken.
    ``resume`` picks the latest existing folder of that name that holds a trainer state.
    """
    root = Path(save_path)
    if resume:
        candidates = [
            p for p in root.glob(f"{glob_escape(run_name)}*")
            if (p.name == run_name or re.fullmatch(re.escape(run_name) + r"_\d{8}-\d{6}(_\d+)?", p.name))
            and (p / STATE_FILE).is_file()
        ]
        if not candidates:
            raise FileNotFoundError(
                f"nothing to resume: no run folder named {run_name!r} with a {STATE_FILE} under {root}"
            )
        return max(candidates, key=lambda p: (p / STATE_FILE).stat().st_mtime)
    folder = root / run_name
    if folder.exists():
        stamp = time.strftime("%Y%m%d-%H%M%S")
        folder = root / f"{run_name}_{stamp}"
        suffix = 1
        while folder.exists():
            folder, suffix = root / f"{run_name}_{stamp}_{suffix}", suffix + 1
    folder.mkdir(parents=True)
    return folder


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def saved_steps(run_dir: Path) -> list[int]:
    folder = Path(run_dir) / MODELS_DIR
    if not folder.is_dir():
        return []
    return sorted(int(m.group(1)) for p in folder.iterdir() if (m := _STEP_DIR.match(p.name)))


def save_checkpoint(run_dir: Path, step: int, model: Any, tokenizer: Any) -> Path:
    """``save_pretrained`` model and tokenizer to ``saved_models/step_XXXXX``."""
    folder = Path(run_dir) / MODELS_DIR
    final = folder / step_dir_name(step)
    staging = folder / f".{step_dir_name(step)}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    model.save_pretrained(staging)
    tokenizer.save_pretrained(staging)
    shutil.rmtree(final, ignore_errors=True)
    staging.rename(final)
    return final


def prune_checkpoints(run_dir: Path, max_save_num: int) -> None:
    """Keep the newest ``max_save_num`` checkpoints (call it after the state naming the newest is saved)."""
    for old in saved_steps(run_dir)[:-max_save_num]:
        shutil.rmtree(Path(run_dir) / MODELS_DIR / step_dir_name(old), ignore_errors=True)


def rng_states(extra_generators: dict[str, Any] | None = None) -> dict[str, Any]:
    import numpy as np
    import torch

    states = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    for name, generator in (extra_generators or {}).items():
        states[name] = generator.get_state()
    return states


def restore_rng_states(states: dict[str, Any], extra_generators: dict[str, Any] | None = None) -> None:
    import numpy as np
    import torch

    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(states["torch"])
    for name, generator in (extra_generators or {}).items():
        generator.set_state(states[name])


def save_trainer_state(run_dir: Path, state: dict[str, Any]) -> Path:
    import torch

    path = Path(run_dir) / STATE_FILE
    staging = path.with_suffix(".tmp")
    torch.save(state, staging)
    os.replace(staging, path)
    return path


def load_trainer_state(run_dir: Path) -> dict[str, Any]:
    import torch

    return torch.load(Path(run_dir) / STATE_FILE, weights_only=False)
