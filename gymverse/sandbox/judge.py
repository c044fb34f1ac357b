"""Judging files of games that are not ours: each file listed, each game checked, in the sandbox."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from gymverse.env.checker import CheckReport
from gymverse.env.registry import env_files, folder_env_ids
from gymverse.sandbox.client import Sandbox
from gymverse.sandbox.jobs import check_game, list_games
from gymverse.sandbox.server import Limits, Outcome

CHECK_LEVELS = list(range(1, 11))
CHECK_SEEDS = 3


def describe(outcome: Outcome) -> str:
    """How a job that did not finish ended, in one line a user can act on."""
    first = outcome.detail.splitlines()[0] if outcome.detail else ""
    what = {"raised": "raised", "exit": "exited", "timeout": "hung", "memory": "ran out of memory",
            "signal": "crashed"}[outcome.verdict]
    return f"{what}: {first}" if first else what


@dataclass
class GameVerdict:
    env_id: str
    file: str
    class_name: str
    report: CheckReport | None = None  # the checker's report, when the check ran to its end
    error: str = ""  # why the check itself did not finish (a hang, an exit, memory)
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        return "FAIL" if self.error else self.report.verdict

    @property
    def accepted(self) -> bool:
        return self.verdict != "FAIL"

    def problems(self) -> list[str]:
        """Errors (what refuses the game) first, then warnings, one line each."""
        if self.error:
            return [self.error]
        return ([f"{r.name}: {r.detail}" for r in self.report.failures()]
                + [f"warning: {r.warning}" for r in self.report.warnings()])


@dataclass
class FileVerdict:
    file: str
    games: list[GameVerdict] = field(default_factory=list)
    error: str = ""  # the file could not be imported: how that ended

    @property
    def accepted(self) -> bool:
        return not self.error and all(game.accepted for game in self.games)


def judge_files(
    files: list[Path], prefix: str, sandbox: Sandbox | None = None, levels: list[int] = CHECK_LEVELS,
    seeds: int = CHECK_SEEDS, limits: Limits | None = None, on_job: Callable[[str], None] | None = None,
) -> list[FileVerdict]:
    """Import every file and check every game in it, each in its own sandboxed child.

    Games get the ids ``register_env_dir`` gives them. ``on_job(label)`` is called as each job
    starts (for progress display). Without ``sandbox`` a fresh one is started and closed.
    """
    own = sandbox is None
    sandbox = sandbox or Sandbox()
    try:
        verdicts, names = {}, {}
        for file in (Path(f).resolve() for f in files):
            if on_job:
                on_job(f"importing {file.name}")
            outcome = sandbox.run(list_games, str(file), limits=limits)
            verdicts[file] = FileVerdict(str(file), error="" if outcome.ok else describe(outcome))
            if outcome.ok:
                names[file] = outcome.value
        for (file, class_name), env_id in folder_env_ids(prefix, names).items():
            if on_job:
                on_job(f"checking {env_id}")
            outcome = sandbox.run(check_game, str(file), class_name, env_id, list(levels), seeds, limits=limits)
            game = GameVerdict(env_id, str(file), class_name, seconds=outcome.seconds)
            if outcome.ok:
                game.report = outcome.value
            else:
                game.error = describe(outcome)
            verdicts[file].games.append(game)
        return list(verdicts.values())
    finally:
        if own:
            sandbox.close()


def judge_folder(folder: str | Path, prefix: str | None = None, **options) -> list[FileVerdict]:
    """:func:`judge_files` on an env folder's files; ``prefix`` defaults to the folder's name."""
    folder = Path(folder)
    return judge_files(env_files(folder), prefix or folder.name, **options)


def judge_file(path: str | Path, prefix: str = "sandbox", **options) -> FileVerdict:
    """:func:`judge_files` on one file (a synthesized candidate, say): its games are ``prefix:ClassName``."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return judge_files([path], prefix, **options)[0]


def vet(folder: Path, prefix: str) -> dict[str, str]:
    """For ``register_env_dir(..., vet=vet)``: what the sandboxed checker refuses (file or id -> why)."""
    refused = {}
    for verdict in judge_folder(folder, prefix):
        if verdict.error:
            refused[verdict.file] = verdict.error
        for game in verdict.games:
            if not game.accepted:
                refused[game.env_id] = "; ".join(game.problems())
    return refused
