"""The files a training run leaves in its folder (``RunFiles``), with GymVerse's names and fields.

* ``actor_env_metrics.jsonl``: one line per step and environment (step, env_id, mean_episode_len,
  mean_episode_success, complexity, ...);
* ``episode_details.jsonl``: one line per finished episode (step, env_id, episode_length,
  episode_success, episode_return, complexity, ...);
* ``eval_env_metrics.jsonl`` and ``eval_results/<step>_<env>.json``: online evaluation;
* ``trajectories/step_XXXXX.json``: the sampled episodes, turn by turn.

Episodes are ``gymverse.episodes.Episode`` objects (anything with the same attributes works).
Every record has the same keys on every rank, plus ``actor_id`` when the files belong to one actor.
``offsets``/``truncate`` let a resumed run cut the logs back to its last saved state, so that no
line is written twice and none is lost.
"""

import json
import os
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

LOGS = ("actor_env_metrics.jsonl", "episode_details.jsonl", "eval_env_metrics.jsonl")


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


def _file_safe(env_id: str) -> str:
    return env_id.replace("/", "_")


TOKEN_FIELDS = ("prompt_ids", "response_ids", "logprobs")


def episode_record(episode: Any) -> dict[str, Any]:
    """An episode as plain text data, turn by turn (token ids and log-probabilities left out)."""
    record = asdict(episode) if is_dataclass(episode) and not isinstance(episode, type) else dict(vars(episode))
    record["turns"] = [
        {
            k: v
            for k, v in (asdict(t) if is_dataclass(t) and not isinstance(t, type) else dict(t)).items()
            if k not in TOKEN_FIELDS
        }
        for t in record.get("turns", [])
    ]
    return record


class RunFiles:
    """A run folder's logs; ``extra_logs`` are further JSONL logs a loop writes with :meth:`append`
    (cut back on resume like the others)."""

    def __init__(self, run_dir: str | os.PathLike, actor_id: int | None = None, extra_logs: Sequence[str] = ()) -> None:
        self.run_dir = Path(run_dir)
        self.actor_id = actor_id
        self.logs = LOGS + tuple(extra_logs)
        self.run_dir.mkdir(parents=True, exist_ok=True)

    # -- writing --------------------------------------------------------------------------------
    def append(self, name: str, record: dict[str, Any]) -> None:
        if self.actor_id is not None:
            record["actor_id"] = self.actor_id
        with open(self.run_dir / name, "a", encoding="utf-8") as file:
            file.write(json.dumps(record) + "\n")

    def log_env_metrics(
        self,
        step: int,
        env_id: str,
        episodes: Sequence[Any],
        complexity: int | None,
        next_complexity: int | None = None,
    ) -> dict[str, Any]:
        """One step's summary for one environment; ``complexity`` is the level its episodes were played at."""
        record = {
            "step": step,
            "env_id": env_id,
            "mean_episode_len": _mean([e.length for e in episodes]),
            "mean_episode_success": _mean([float(e.success) for e in episodes]),
            "mean_episode_return": _mean([e.episode_return for e in episodes]),
            "num_episodes": len(episodes),
            "complexity": complexity,
            "next_complexity": complexity if next_complexity is None else next_complexity,
        }
        self.append("actor_env_metrics.jsonl", record)
        return record

    def log_episodes(self, step: int, episodes: Iterable[Any]) -> None:
        for episode in episodes:
            self.append(
                "episode_details.jsonl",
                {
                    "step": step,
                    "env_id": episode.env_id,
                    "episode_length": episode.length,
                    "episode_success": bool(episode.success),
                    "episode_return": float(episode.episode_return),
                    "complexity": episode.complexity,
                    "ended_by": episode.ended_by,
                },
            )

    def log_eval(
        self,
        step: int,
        env_id: str,
        episodes_by_complexity: Mapping[int, Sequence[Any]],
    ) -> list[dict[str, Any]]:
        """One evaluation line per complexity, and every evaluated episode in ``eval_results/<step>_<env>.json``."""
        records = []
        for complexity, episodes in sorted(episodes_by_complexity.items()):
            record = {
                "step": step,
                "env_id": env_id,
                "complexity": complexity,
                "accuracy": _mean([float(e.success) for e in episodes]),
                "mean_episode_len": _mean([e.length for e in episodes]),
                "mean_episode_return": _mean([e.episode_return for e in episodes]),
                "num_episodes": len(episodes),
            }
            self.append("eval_env_metrics.jsonl", record)
            records.append(record)
        folder = self.run_dir / "eval_results"
        folder.mkdir(exist_ok=True)
        dump = [episode_record(e) for level in sorted(episodes_by_complexity) for e in episodes_by_complexity[level]]
        (folder / f"{step}_{_file_safe(env_id)}.json").write_text(json.dumps(dump, indent=1))
        return records

    def save_trajectories(self, step: int, episodes: Sequence[Any]) -> Path:
        folder = self.run_dir / "trajectories"
        folder.mkdir(exist_ok=True)
        prefix = "" if self.actor_id is None else f"actor{self.actor_id}_"
        path = folder / f"{prefix}step_{step:05d}.json"
        path.write_text(json.dumps([episode_record(e) for e in episodes], indent=1))
        return path

    # -- reading and resuming -------------------------------------------------------------------
    def read(self, name: str) -> list[dict[str, Any]]:
        path = self.run_dir / name
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def offsets(self) -> dict[str, int]:
        """The current size in bytes of each log (what a trainer state records)."""
        return {
            name: (self.run_dir / name).stat().st_size if (self.run_dir / name).exists() else 0 for name in self.logs
        }

    def keep_through(self, step: int) -> None:
        """Drop every log line of a step after ``step`` (a resumed run plays those steps again)."""
        for name in self.logs:
            if (self.run_dir / name).exists():
                kept = [r for r in self.read(name) if r["step"] <= step]
                (self.run_dir / name).write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")

    def truncate(self, offsets: dict[str, int]) -> None:
        """Cut each log back to ``offsets`` (lines written after the saved state are dropped)."""
        for name in self.logs:
            path = self.run_dir / name
            if path.exists():
                with open(path, "r+b") as file:
                    file.truncate(offsets.get(name, 0))
