"""The closing table of a run: what RL added to the model it started from.

The model RL started from (the warm start) and the trained one play the same games, with the same draws, at
``--train_difficulty`` and at the level the curriculum reached on each game, both as the agent plays in training
(sampled at ``--temperature`` and ``--top_p``) and greedily, ``--before_after_n`` episodes per cell. Playing the
same instances and draws before and after makes the gain a paired difference: what is left is the models'.
The rows are printed and saved as ``results.json`` in the run folder, beside the training-curve figure.
"""

import json
import os
import signal
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gymverse.run.config import RunConfig
from gymverse.run.eval_plan import copies_for
from gymverse.run.online_eval import evaluation_copy
from gymverse.run.settings import GenerationSettings
from gymverse.seeds import Purpose, derive_seed

MODES = ("sampled", "greedy")


def curriculum_path(metrics: Sequence[dict[str, Any]], env_id: str) -> list[tuple[int, int]]:
    """``(step, level)`` of each move of ``env_id``'s curriculum, from its ``actor_env_metrics`` records;
    the first entry is the start (step 0)."""
    rows = sorted((r for r in metrics if r["env_id"] == env_id), key=lambda r: r["step"])
    if not rows:
        return []
    path = [(0, rows[0]["complexity"])]
    for row in rows:
        if row["next_complexity"] != path[-1][1]:
            path.append((row["step"], row["next_complexity"]))
    return path


def path_text(path: Sequence[tuple[int, int]]) -> str:
    """``1 -> 2 (step 7) -> 3 (step 13)``."""
    if not path:
        return "-"
    return " -> ".join([str(path[0][1])] + [f"{level} (step {step})" for step, level in path[1:]])


def success_rate(policy: Any, env_id: str, level: int, episodes: int, config: RunConfig, seed: int, k: int) -> float:
    """Share of ``episodes`` games of ``env_id`` at ``level`` that ``policy`` wins; game ``n`` and its draws
    depend only on the run's seed, the game's index ``k``, the level and ``n``."""
    from gymverse.env.groups import make_env_group
    from gymverse.episodes import collect_episodes
    from gymverse.run.config import wrappers_spec

    group = make_env_group(
        env_id,
        copies_for(episodes),
        wrappers_spec(config.wrappers),
        complexity=level,
        seed=derive_seed(seed, Purpose.CLOSING_ENVS, k, level),
        tokenizer=policy.tokenizer,
    )
    played = collect_episodes(
        policy,
        group,
        env_id,
        episodes,
        template=config.prompt_template,
        max_model_len=config.max_model_len,
        seed=derive_seed(seed, Purpose.CLOSING_GAMES, k, level),
        sample_seeds=[derive_seed(seed, Purpose.CLOSING_DRAWS, k, level, n) for n in range(episodes)],
    )
    return sum(e.success for e in played) / episodes


def player(policy: Any, mode: str, config: GenerationSettings, seed: int) -> Any:
    """A copy of ``policy`` that plays as in training (``sampled``) or greedily, with a generator of its own."""
    return evaluation_copy(
        policy,
        derive_seed(seed, Purpose.CLOSING_SAMPLER),
        temperature=config.temperature if mode == "sampled" else 0.0,
        top_p=config.top_p,
        generate_max_length=config.generate_max_length,
    )


def before_after(
    before: Any,
    after: Any,
    config: RunConfig,
    episodes: int,
    seed: int,
    paths: dict[str, list[tuple[int, int]]],
    progress: bool = True,
    jobs: int = 1,
) -> list[dict[str, Any]]:
    """One row per game and level (``--train_difficulty`` and the level its curriculum reached): success of
    ``before`` and ``after`` in each of :data:`MODES` over ``episodes`` episodes (--before_after_n). ``jobs`` > 1
    plays the cells in that many forked processes (a cell's games and draws are its own, so the rows are the same)."""
    from tqdm import tqdm

    rows: list[dict[str, Any]] = []
    cells = []  # (row, env_id, k, level, mode, when)
    for k, (env_id, path) in enumerate(paths.items()):
        start, end = (path[0][1], path[-1][1]) if path else (config.train_difficulty, config.train_difficulty)
        for level in sorted({start, end}):
            cells += [(len(rows), env_id, k, level, mode, when) for mode in MODES for when in ("before", "after")]
            rows.append(
                {
                    "env_id": env_id,
                    "level": level,
                    "episodes": episodes,
                    "curriculum_start": start,
                    "curriculum_end": end,
                    "curriculum_path": [list(move) for move in path],
                }
            )
    cells.sort(key=lambda cell: -cell[3])  # the higher levels' long games first, so no worker is left with one
    with (
        tqdm(total=len(cells), desc="before/after", disable=not progress, dynamic_ncols=True) as bar,
        cell_player(before, after, config, episodes, seed, jobs) as play,
    ):
        for (row, _, _, _, mode, when), success in zip(cells, play(cells)):
            rows[row][f"{mode}_{when}"] = success
            bar.update()
    return rows


def table_workers(jobs: int, device: str, jailed: bool) -> int:
    """Processes that play the closing table: ``jobs``, or one per core when 0, on a CPU; one (this process) on
    another device, which a fork does not carry over, and for jailed games, whose pipes and watch threads a fork
    would share with the copy."""
    if device != "cpu" or jailed:
        return 1
    return jobs or os.cpu_count() or 1


@contextmanager
def cell_player(before: Any, after: Any, config: RunConfig, episodes: int, seed: int, jobs: int) -> Iterator[Any]:
    """A function from cells to their success rates, in order: played here, or by ``jobs`` forked workers that
    inherit both models (nothing is pickled but the cells and the rates)."""
    if jobs <= 1:
        yield lambda cells: (cell_success(cell, before, after, config, episodes, seed) for cell in cells)
        return
    import multiprocessing

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # a fast tokenizer would warn in each fork
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs, initializer=inherit, initargs=(before, after, config, episodes, seed)) as pool:
        yield lambda cells: pool.imap(worker_cell_success, cells)


def cell_success(
    cell: tuple[int, str, int, int, str, str], before: Any, after: Any, config: RunConfig, episodes: int, seed: int
) -> float:
    _, env_id, k, level, mode, when = cell
    policy = player(before if when == "before" else after, mode, config, seed)
    return success_rate(policy, env_id, level, episodes, config, seed, k)


_INHERITED: tuple[Any, ...] = ()  # a worker's (before, after, config, episodes, seed), from its parent's memory


def inherit(*playing: Any) -> None:
    """A worker's start: the models it inherited, and Ctrl-C left to the parent (which ends the pool)."""
    global _INHERITED
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _INHERITED = playing


def worker_cell_success(cell: tuple[int, str, int, int, str, str]) -> float:
    return cell_success(cell, *_INHERITED)


def save_results(run_dir: str | Path, rows: list[dict[str, Any]]) -> Path:
    path = Path(run_dir) / "results.json"
    path.write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    return path


def print_before_after(rows: list[dict[str, Any]]) -> None:
    """The table of :func:`before_after`'s rows, gains included."""
    from rich.table import Table

    from gymverse.console import console

    if not rows:
        return
    table = Table(title=f"Success before and after PERPO ({rows[0]['episodes']} episodes per cell, the same games)")
    for column in ("game", "level", "sampled before", "after", "gain", "greedy before", "after", "gain", "curriculum"):
        table.add_column(column)
    for row in rows:
        cells = []
        for mode in MODES:
            before, after = row[f"{mode}_before"], row[f"{mode}_after"]
            cells += [f"{before:.2f}", f"{after:.2f}", f"{after - before:+.2f}"]
        course = path_text([tuple(move) for move in row["curriculum_path"]])
        table.add_row(row["env_id"].split(":")[-1], str(row["level"]), *cells, course)
    console.print(table)
