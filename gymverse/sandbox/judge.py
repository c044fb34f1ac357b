"""Judging files of games that are not ours: each file listed, each game checked or audited, in the sandbox."""

import contextlib
import dataclasses
import re
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import gymverse
from gymverse.env.checker import CheckReport
from gymverse.env.registry import env_files, folder_env_ids
from gymverse.errors import BadInput
from gymverse.evaluation.audit import AuditConfig, EnvAudit, audit_env, unmeasured
from gymverse.evaluation.targets import EnvTarget, GameFile, resolve_env_ids, target_for
from gymverse.sandbox.client import Sandbox
from gymverse.sandbox.jobs import check_game, list_games
from gymverse.sandbox.server import Limits, Outcome

OURS_AND_PYTHONS = tuple({sysconfig.get_paths()[key] for key in ("stdlib", "purelib", "platlib")}
                         | {str(Path(gymverse.__file__).parent)})
CHECK_LEVELS = list(range(1, 11))
CHECK_SEEDS = 3
AUDIT_LIMITS = Limits(seconds=600, memory_mb=1024)  # one game's whole audit
IMPORT_SECONDS = 30.0  # the most a file's import may take, whatever a game's job may


def import_limits(limits: Limits) -> Limits:
    return dataclasses.replace(limits, seconds=min(limits.seconds, IMPORT_SECONDS))


def describe(outcome: Outcome) -> str:
    """How a job that did not finish ended, in one line a user can act on."""
    first = outcome.detail.splitlines()[0] if outcome.detail else ""
    what = {"raised": "raised", "exit": "exited", "timeout": "hung", "memory": "ran out of memory",
            "signal": "crashed"}[outcome.verdict]
    where = stuck_at(outcome.output) if outcome.verdict == "timeout" else ""
    return f"{what}: {first}" + (f" ({where})" if where else "")


def stuck_at(output: str) -> str:
    """``in FUNCTION, FILE:LINE``: where a stuck job was when it was killed (from the stack it wrote).

    The innermost frame in code that is not Python's, an installed package's or gymverse's, if any.
    """
    if "most recent call first" not in output:
        return ""
    lines = output.rsplit("most recent call first):", 1)[1].splitlines()
    frames = [m for m in (re.match(r'\s*File "(.+)", line (\d+) in (\S+)', line) for line in lines) if m]
    theirs = [m for m in frames if not m[1].startswith(OURS_AND_PYTHONS)]
    frame = (theirs or frames or [None])[0]
    return f"in {frame[3]}, {Path(frame[1]).name}:{frame[2]}" if frame else ""


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
        return [self.error] if self.error else self.report.problems()

    @property
    def broken(self) -> bool:
        """The game could not even be built."""
        return bool(self.report) and any(r.name == "construct" for r in self.report.failures())


@dataclass
class FileVerdict:
    file: str
    games: list[GameVerdict] = field(default_factory=list)
    error: str = ""  # the file could not be imported: how that ended

    @property
    def accepted(self) -> bool:
        return not self.error and all(game.accepted for game in self.games)


def list_files(
    files: list[Path], sandbox: Sandbox, limits: Limits | None = None, on_job: Callable[[str], None] | None = None,
) -> dict[Path, dict[str, str] | str]:
    """Each file imported in its own child: ``{file: {class name: domain}}``, or for a file that did
    not import, how that ended (one line). Files come back resolved, in the order given."""
    listed: dict[Path, dict[str, str] | str] = {}
    for file in (Path(f).resolve() for f in files):
        if on_job:
            on_job(f"importing {file.name}")
        outcome = sandbox.run(list_games, str(file), limits=import_limits(limits or sandbox.limits))
        listed[file] = dict(outcome.value) if outcome.ok else describe(outcome)
    return listed


def _games(listed: dict[Path, dict[str, str] | str]) -> dict[Path, dict[str, str]]:
    return {file: games for file, games in listed.items() if isinstance(games, dict)}


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
        listed = list_files(files, sandbox, limits, on_job)
        verdicts = {file: FileVerdict(str(file), error=games if isinstance(games, str) else "")
                    for file, games in listed.items()}
        names = {file: list(games) for file, games in _games(listed).items()}
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


def folder_targets(folder: str | Path, sandbox: Sandbox, log: Callable[[str], None] = print) -> list[EnvTarget]:
    """The games of an env folder as audit targets, each file listed in its own child of ``sandbox``.

    Ids are those ``register_env_dir`` gives; files that do not import are reported through ``log``.
    """
    folder = Path(folder)
    listed = list_files(env_files(folder), sandbox)
    for file, error in listed.items():
        if isinstance(error, str):
            log(f"skipped {file}: {error}")
    games = _games(listed)
    ids = folder_env_ids(folder.name, {file: list(names) for file, names in games.items()})
    return [EnvTarget(env_id, games[file][name], GameFile(str(file), name), str(file))
            for (file, name), env_id in ids.items()]


def select_targets(
    ids: list[str], all_builtin: bool = False, folder: Path | None = None, sandbox: Sandbox | None = None,
    log: Callable[[str], None] = print,
) -> list[EnvTarget]:
    """Targets for ``ids``, every built-in game with ``all_builtin``, and every game in ``folder``.

    With a ``sandbox``, the folder's games are listed (and later played) in it; without one they are
    imported into this process and registered, as ``resolve_env_ids`` does.
    """
    if folder is None or sandbox is None:
        return [target_for(env_id) for env_id in resolve_env_ids(ids, all_builtin, folder, log)]
    found = folder_targets(folder, sandbox, log)
    if not found:
        raise BadInput(f"no games found in {folder}")
    named = resolve_env_ids(ids, all_builtin, log=log) if ids or all_builtin else []
    return [target_for(env_id) for env_id in named] + found


@contextlib.contextmanager
def sandbox_for(folder: Path | None, in_process: bool = False, limits: Limits = AUDIT_LIMITS) -> Iterator[Sandbox | None]:
    """A sandbox for the games of ``folder`` (closed afterwards), or None: no folder, or ``in_process``."""
    if folder is None or in_process:
        yield None
        return
    with Sandbox(limits) as sandbox:
        yield sandbox


def audit_in(sandbox: Sandbox | None) -> Callable[[EnvTarget, AuditConfig], EnvAudit]:
    """For ``run_audit(..., audit_one=audit_in(sandbox))``: folder games are audited in the sandbox.

    A game whose audit the sandbox stopped (a hang, an exit, memory) gets that as its problem.
    Without a sandbox every game is audited in this process.
    """
    if sandbox is None:
        return audit_env

    def audit_one(target: EnvTarget, config: AuditConfig) -> EnvAudit:
        if not target.sandboxed:
            return audit_env(target, config)
        outcome = sandbox.run(audit_env, target, config)
        if outcome.ok:
            return outcome.value
        reason = {"timeout": "hang", "exit": "exit", "memory": "memory"}.get(outcome.verdict, "crash")
        return unmeasured(target, config, reason, f"the sandbox stopped its audit: {describe(outcome)}")

    return audit_one
