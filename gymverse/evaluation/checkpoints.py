"""Finding the checkpoints to evaluate: a list file, or the model folders a training run saved."""

import re
from pathlib import Path

from gymverse.errors import BadInput


def read_checkpoint_list(path: Path) -> list[Path]:
    """One checkpoint per line (a model folder, or a policy spec such as ``tiny``); ``#`` starts a comment."""
    path = Path(path)
    if not path.is_file():
        raise BadInput(f"--checkpoints {path}: no such file")
    entries = [line.split("#", 1)[0].strip() for line in path.read_text().splitlines()]
    entries = [e for e in entries if e]
    if not entries:
        raise BadInput(f"--checkpoints {path} names no checkpoint (one folder or policy spec per line)")
    return [Path(e).expanduser() for e in entries]


def step_number(folder: Path) -> int:
    numbers = re.findall(r"\d+", folder.name)
    return int(numbers[-1]) if numbers else -1


def is_model_folder(folder: Path) -> bool:
    """A Hugging Face model folder: ``config.json`` beside weights (a run folder's own config.json is not one)."""
    weights = ("*.safetensors", "pytorch_model*.bin", "*.safetensors.index.json")
    return (folder / "config.json").is_file() and any(any(folder.glob(w)) for w in weights)


def find_checkpoints(run_dir: Path) -> list[Path]:
    """Every Hugging Face model folder under ``run_dir``, by training step."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise BadInput(f"--run-dir {run_dir}: no such folder")
    folders = [p.parent for p in run_dir.rglob("config.json") if is_model_folder(p.parent)]
    if not folders:
        raise BadInput(f"--run-dir {run_dir} holds no saved model (no folder with config.json and weights)")
    return sorted(folders, key=lambda p: (step_number(p), str(p)))


def checkpoint_name(spec: Path, taken: set[str]) -> str:
    """A short, unique folder name for a checkpoint's results: its folder name, with its parent's if taken."""
    parts = [re.sub(r"[^A-Za-z0-9_.-]+", "_", part) for part in Path(spec).parts if part not in ("/", "")]
    name = parts[-1]
    if name in taken and len(parts) > 1:
        name = f"{parts[-2]}_{name}"
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name}-{n}", n + 1
    taken.add(unique)
    return unique
