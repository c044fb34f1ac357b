"""Judging files of games that are not ours: each file in its own jail, every verdict reached here.

The env checker runs in this process and plays the jailed game through :class:`ProxyEnv`; the game can
change its verdict only by how it plays. Files are judged several at a time; each verdict is written to
a journal as soon as it is reached, so an interrupted run keeps its rows and the same run again resumes.
"""

import hashlib
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from gymverse.cache import cache_dir
from gymverse.env import checker, players
from gymverse.env.checker import CheckReport, CheckResult, check_env
from gymverse.env.registry import folder_entries
from gymverse.sandbox import proxy
from gymverse.sandbox.budget import Budget
from gymverse.sandbox.folders import HOST_VERSION, NOT_A_GAME, class_names, file_digest, folder_ids, syntax_error
from gymverse.sandbox.jail import Limits
from gymverse.sandbox.proxy import JailedFile, ProxyFactory

CHECK_LEVELS = list(range(1, 11))
CHECK_SEEDS = 3
JUDGE_LIMITS = Limits(seconds=180.0, import_seconds=30.0)  # a file's own time; its import
GAMES_PER_FILE = 100  # a file that defines more classes is refused (each game costs the judge its own work)
# What decides a verdict here: a journal written by other code is not resumed.
CHECKER_VERSION = hashlib.sha256(
    b"".join(Path(module.__file__).read_bytes() for module in (checker, players, proxy))  # type: ignore[arg-type]
).hexdigest()[:12]
_live: set[JailedFile] = set()  # jails now judging, closed at once when a run is interrupted
_live_lock = threading.Lock()


def _open(file: Path, limits: Limits, budget: Budget) -> JailedFile:
    jail = JailedFile(file, limits, budget)
    with _live_lock:
        _live.add(jail)
    return jail


def _close(jail: JailedFile) -> None:
    jail.close()
    with _live_lock:
        _live.discard(jail)


@dataclass
class GameVerdict:
    env_id: str
    file: str
    class_name: str
    report: CheckReport | None = None  # the checker's report
    error: str = ""  # what the file's code did to its jail during the check (exited, hung, killed it)
    seconds: float = 0.0
    domain: str | None = None  # what the game declares

    @property
    def verdict(self) -> str:
        return "FAIL" if self.error or self.report is None else self.report.verdict

    @property
    def accepted(self) -> bool:
        return self.verdict != "FAIL"

    def problems(self) -> list[str]:
        """What the jail saw first, then the checker's failures and warnings, one line each."""
        return ([self.error] if self.error else []) + (self.report.problems() if self.report else [])

    @property
    def broken(self) -> bool:
        """The game could not even be built."""
        return self.report is not None and any(r.name == "construct" for r in self.report.failures())


@dataclass
class FileVerdict:
    file: str
    games: list[GameVerdict] = field(default_factory=list)
    error: str = ""  # the file did not import: how that ended
    digest: str = ""
    skipped: str = ""  # why the file is not judged at all (a script that defines no class)

    @property
    def accepted(self) -> bool:
        return not self.error and all(game.accepted for game in self.games)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "FileVerdict":
        games = []
        for game in data["games"]:
            report = game["report"] and CheckReport(
                game["report"]["env_id"], [CheckResult(**r) for r in game["report"]["results"]]
            )
            games.append(GameVerdict(**{**game, "report": report}))
        return cls(data["file"], games, data["error"], data["digest"], data.get("skipped", ""))


def judge_file(
    file: Path,
    ids: dict[str, str] | None = None,
    prefix: str = "sandbox",
    levels: Iterable[int] = CHECK_LEVELS,
    seeds: int = CHECK_SEEDS,
    limits: Limits = JUDGE_LIMITS,
) -> FileVerdict:
    """Import ``file`` in a jail and check each game it defines from here; ``ids`` names them by class.

    The file's import, listing and every game's check share one budget of ``limits.seconds`` of the file's
    own time; once it is spent the file is one refused row, whatever its games did before."""
    file = Path(file).resolve()
    verdict = FileVerdict(str(file), digest=file_digest(file))
    if not class_names(file) and not syntax_error(file):
        verdict.skipped = NOT_A_GAME
        return verdict
    if len(class_names(file)) > GAMES_PER_FILE:  # refused unrun
        verdict.error = too_many_games(len(class_names(file)), "classes")
        return verdict
    budget = Budget(limits.seconds)
    jail = _open(file, limits, budget)
    try:
        games = jail.listing()
        if isinstance(games, str) or len(games) > GAMES_PER_FILE:
            verdict.error = games if isinstance(games, str) else too_many_games(len(games), "game classes")
            return verdict
        for game in games:
            if budget.out():
                break
            if jail.broken:  # the previous game ended the jail: this one gets a fresh one
                _close(jail)
                jail = _open(file, limits, budget)
            budget.phase = f"the check of {game['name']}"
            start = time.monotonic()
            env_id = (ids or {}).get(game["name"]) or f"{prefix}:{game['name']}"
            make = ProxyFactory(lambda: jail, game, defer=False)  # the game as it is: the checker says if it defers
            report = check_env(make, levels=levels, seeds=seeds, env_id=env_id)
            jail.look()
            broke = jail.broken if jail.broken not in ("", "closed") else ""
            verdict.games.append(
                GameVerdict(
                    env_id, str(file), game["name"], report, broke, time.monotonic() - start, game.get("domain")
                )
            )
        if budget.out():
            verdict.games, verdict.error = [], out_of_time(jail, budget)
        return verdict
    finally:
        _close(jail)


def out_of_time(jail: JailedFile, budget: Budget) -> str:
    """The budget's reason, with where the file's code was stuck when the jail says so."""
    return jail.broken if jail.broken.startswith(budget.reason()) else budget.reason()


def too_many_games(count: int, what: str) -> str:
    return f"defines {count} {what}, more than the {GAMES_PER_FILE} a file of games may define"


class Journal:
    """The verdicts of one judging run, one JSON line per file, keyed by the file's content."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows: dict[tuple[str, str], FileVerdict] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                try:
                    row = FileVerdict.from_json(json.loads(line))
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by an interruption
                self.rows[(row.file, row.digest)] = row

    def get(self, file: Path) -> FileVerdict | None:
        return self.rows.get((str(file.resolve()), file_digest(file)))

    def add(self, verdict: FileVerdict) -> None:
        self.rows[(verdict.file, verdict.digest)] = verdict
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a") as out:
            out.write(json.dumps(verdict.to_json()) + "\n")


def journal_for(folder: Path, prefix: str, levels: list[int], seeds: int) -> Journal:
    key = json.dumps([str(folder.resolve()), prefix, levels, seeds, HOST_VERSION, CHECKER_VERSION])
    return Journal(cache_dir() / "judged" / f"{hashlib.sha256(key.encode()).hexdigest()[:16]}.jsonl")


@dataclass
class FolderJudgement:
    verdicts: list[FileVerdict]  # one per readable file, in the folder's order
    bad: dict[str, str]  # entries that could not be read: entry -> why
    resumed: int = 0  # verdicts taken from an earlier run's journal


def judge_folder(
    folder: str | Path,
    prefix: str | None = None,
    levels: Iterable[int] = CHECK_LEVELS,
    seeds: int = CHECK_SEEDS,
    limits: Limits = JUDGE_LIMITS,
    workers: int | None = None,
    resume: bool = True,
    on_verdict: Callable[[FileVerdict], None] | None = None,
) -> FolderJudgement:
    """Judge every file of ``folder`` (ids as ``register_env_dir`` gives them), ``workers`` jails at a time.

    ``on_verdict`` sees each file's verdict as it is reached (resumed ones first). With ``resume``, files
    judged by an earlier run of the same judgement (same folder, settings and file content) are not judged again.
    """
    folder = Path(folder)
    prefix = prefix or folder.name
    levels = list(levels)
    entries = folder_entries(folder)
    ids = folder_ids(folder, prefix, entries.files)
    journal = journal_for(folder, prefix, levels, seeds) if resume else None
    done: dict[Path, FileVerdict] = {}
    for file in entries.files:
        if journal and (row := journal.get(file)):
            done[file] = row
            if on_verdict:
                on_verdict(row)
    resumed = len(done)
    todo = [file for file in entries.files if file not in done]

    def judge(file: Path) -> FileVerdict:
        names = {name: env_id for (f, name), env_id in ids.items() if f == file}
        return judge_file(file, names, prefix, levels, seeds, limits)

    with ThreadPoolExecutor(workers or os.cpu_count() or 2) as pool:
        futures = {pool.submit(judge, file): file for file in todo}
        try:
            for future in as_completed(futures):
                verdict = future.result()
                done[futures[future]] = verdict
                if journal:
                    journal.add(verdict)
                if on_verdict:
                    on_verdict(verdict)
        except BaseException:  # Ctrl-C: what was judged is in the journal; stop the rest now
            pool.shutdown(wait=False, cancel_futures=True)
            with _live_lock:
                for jail in list(_live):
                    jail.close()
            raise
    return FolderJudgement([done[file] for file in entries.files], entries.bad, resumed)
