"""Run folders, Hugging Face checkpoints and the trainer state that ``--resume`` continues from.

Layout (OAT's): ``<save_path>/<run_name>/saved_models/step_XXXXX/`` holds ``save_pretrained``
checkpoints, at most ``max_save_num`` of them; ``trainer_state.pt`` beside it holds everything
else a resumed run needs (step, optimizer, scheduler, RNG states, curriculum, log offsets) and
names the checkpoint it goes with. Both are written to a temporary name and renamed into place (the
temporary one removed when writing fails), so a run killed at any moment, or out of disk, leaves the
previous state intact. A checkpoint written by OAT's DeepSpeed
gets ``run_state.json`` beside it (:func:`save_run_state`), which :func:`resume_point` reads back.
"""

import os
import random
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gymverse.run.settings import RunFileSettings

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
            p
            for p in root.glob(f"{glob_escape(run_name)}*")
            if (p.name == run_name or re.fullmatch(re.escape(run_name) + r"_\d{8}-\d{6}(_\d+)?", p.name))
            and (p / STATE_FILE).is_file()
        ]
        if not candidates:
            raise FileNotFoundError(
                f"--resume: nothing to resume: no run folder named {run_name!r} (--wb_run_name) with a {STATE_FILE} "
                f"under {root} (--save_path)"
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
    try:
        staging.mkdir(parents=True)
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
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
    try:
        torch.save(state, staging)
        os.replace(staging, path)
    except BaseException:
        staging.unlink(missing_ok=True)
        raise
    return path


def run_seed(args: RunFileSettings, state: dict[str, Any] | None) -> int:
    """The run's seed: the saved one when resuming, else drawn from the clock with ``--rnd_seed``, else ``--seed``."""
    if state:
        return state["seed"]
    return int(time.time() * 1000) % 2**31 if args.rnd_seed else args.seed


def load_trainer_state(run_dir: Path) -> dict[str, Any]:
    import torch

    return torch.load(Path(run_dir) / STATE_FILE, weights_only=False)


# -- what a checkpoint written by another engine (OAT's DeepSpeed) needs beside it to resume a run -----------
RUN_STATE_FILE = "run_state.json"


def save_run_state(checkpoint_dir: str | os.PathLike, step: int, query_step: int, curriculum: dict[str, Any]) -> Path:
    """Write the run's position into the checkpoint folder it belongs to, so that the two never disagree."""
    import json

    path = Path(checkpoint_dir) / RUN_STATE_FILE
    staging = path.with_suffix(".tmp")
    staging.write_text(json.dumps({"step": step, "query_step": query_step, "curriculum": curriculum}, indent=1))
    os.replace(staging, path)
    return path


@dataclass(frozen=True)
class ResumePoint:
    """Where a resumed run continues: its folder, the checkpoint, and the step, query count and curriculum
    saved with that checkpoint."""

    run_dir: Path
    checkpoint: Path
    step: int
    query_step: int
    curriculum: dict[str, Any]


def resume_point(checkpoints_dir: str | os.PathLike, tag: str | None = None) -> ResumePoint:
    """The checkpoint ``--resume_dir`` (a run's ``checkpoints`` folder) and ``--resume_tag`` name, as
    DeepSpeed picks it (the tag in its ``latest`` file when no tag is given), with its run state."""
    import json

    from gymverse.errors import BadInput

    folder = Path(checkpoints_dir)
    if tag is None and (folder / "latest").is_file():
        tag = (folder / "latest").read_text().strip()
    if tag is None:
        raise BadInput(f"--resume_dir {folder} holds no checkpoint (no 'latest' file); give --resume_tag step_XXXXX")
    checkpoint = folder / tag
    state_path = checkpoint / RUN_STATE_FILE
    if not state_path.is_file():
        raise BadInput(
            f"--resume_dir {folder} --resume_tag {tag}: no {RUN_STATE_FILE} beside the checkpoint, so the run's step, "
            "query count and curriculum are unknown; resume from a checkpoint saved with --save_ckpt by gymverse"
        )
    state = json.loads(state_path.read_text())
    run_dir = folder.parent if folder.name == "checkpoints" else folder
    return ResumePoint(run_dir, checkpoint, state["step"], state["query_step"], state["curriculum"])
