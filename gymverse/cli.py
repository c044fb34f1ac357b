"""The ``gymverse`` command line: thin wrappers that parse, call the library and print."""

import dataclasses
import sys
from pathlib import Path
from typing import Annotated, Callable

import tyro
from rich.markup import escape
from rich.table import Table

from gymverse.console import console, progress_bars
from gymverse.entry import call_with_flags, run_command
from gymverse.env.visible import visible
from gymverse.errors import BadInput
from gymverse.evaluation.commands import audit_command, eval_command
from gymverse.evaluation.options import FLAT, EnvSelection
from gymverse.run.sft import sft_command
from gymverse.synthesis.command import synthesize_command


def _say(line: str) -> None:
    console.print(line, markup=False)


def envs(dir: Path | None = None) -> None:  # noqa: A002 (the flag is --dir)
    """List the registered gymverse games with their highest complexity and complexity parameters.

    Args:
        dir: Also the games of this folder of .py files; in a `gymverse synthesize` output, games that passed
            without a reference solver are marked (unverified).
    """
    import gymverse  # noqa: F401  (registers the games)
    from gymverse.env import env_class, highest_complexity, registered_ids
    from gymverse.env.gymverse_ids import default_game_name
    from gymverse.env.registry import game_domain
    from gymverse.synthesis.records import unverified_games

    ids = registered_ids("gymverse")
    unverified: set[str] = set()
    if dir is not None:
        ids += [i for i in EnvSelection(dir=dir).resolve(log=_say) if i not in ids]
        unverified = {f"{dir.name}:{default_game_name(name)}" for name in unverified_games(dir)}
    table = Table(title="gymverse games")
    table.add_column("id", no_wrap=True)
    table.add_column("domain")
    table.add_column("highest", justify="right")
    table.add_column("parameter", overflow="fold")
    table.add_column("level 1", justify="right")
    table.add_column("level 10", justify="right")
    for env_id in ids:
        cls = env_class(env_id)
        params = list(getattr(cls, "complexity_params", {}).items()) or [("-", ("-", "-"))]
        label = env_id + (" (unverified)" if env_id in unverified else "")
        for i, (name, (first, tenth)) in enumerate(params):
            first_row = i == 0
            table.add_row(
                label if first_row else "",
                game_domain(cls) if first_row else "",
                str(highest_complexity(env_id) or "-") if first_row else "",
                name,
                str(first),
                str(tenth),
                end_section=i == len(params) - 1,
            )
    console.print(table)


def play(
    env_id: tyro.conf.Positional[str],
    complexity: int = 1,
    seed: int | None = None,
) -> None:
    """Play a game in the terminal. Type a command (boxing is optional), `hint` for the solver's move, `quit` to stop.

    Args:
        env_id: The game (e.g. gymverse:PeakFinder); `gymverse envs` lists them.
        complexity: Its complexity level (1 and up).
        seed: Seed of the episode; None: a fresh one.
    """
    import gem

    from gymverse.env.success import episode_success

    EnvSelection([env_id]).resolve(log=_say)
    if complexity < 1:
        raise BadInput("--complexity must be >= 1")
    env = gem.make(env_id, complexity=complexity)
    observation, info = env.reset(seed=seed)
    console.print(observation, markup=False)
    while True:
        console.print(info.get("suffix", ""), style="dim", markup=False)
        try:
            line = console.input("[bold]> [/bold]").strip()
        except (EOFError, KeyboardInterrupt):
            console.print("\nbye")
            return
        if line == "quit":
            return
        if line == "hint":
            solver = getattr(env.unwrapped, "oracle_action", None)
            console.print(f"solver: {solver()}" if solver else "this game has no solver", markup=False)
            continue
        action = line if "\\boxed{" in line else "\\boxed{%s}" % line
        observation, reward, terminated, truncated, info = env.step(action)
        console.print(observation, markup=False)
        console.print(f"[dim]reward {reward:+.2f}[/dim]")
        if terminated or truncated:
            won = episode_success(info, reward)
            console.print("[green]You won![/green]" if won else "[red]Game over.[/red]")
            return


VERDICT_STYLE = {"pass": "green", "pass with warnings": "yellow", "FAIL": "red"}


def check(
    envs: Annotated[EnvSelection, FLAT] = EnvSelection(),  # noqa: B008 (tyro reads the default)
    seeds: int = 20,
    max_level: int = 20,
    tolerate_broken_files: bool = False,
    time_limit: float = 180.0,
    memory_mb: int = 2048,
    workers: int | None = None,
    fresh: bool = False,
) -> None:
    """Check games with the env checker; prints a verdict for each and exits non-zero if any fails.

    The games of --dir are not trusted: each file runs in its own jail and is checked from outside, several
    at a time, each verdict printed as it is reached. An interrupted check keeps its verdicts, and the same
    command again resumes where it stopped.

    Args:
        seeds: Episodes (seeds) per level (at most 3 for --dir).
        max_level: The checker plays levels 1 to this (at most 10 for --dir).
        tolerate_broken_files: Exit 0 even when a file of --dir fails to import or a game to construct.
        time_limit: Seconds a file of --dir may take in all.
        memory_mb: Memory a file of --dir may use, in MB.
        workers: Files of --dir checked at once (default: one per CPU).
        fresh: Check every file of --dir again, even those an earlier run already judged.
    """
    from gymverse.env.checker import check_env

    levels = list(range(1, max_level + 1))
    failed = broken = rows = 0

    def row(env_id: str, file: str, verdict: str, problems: list[str]) -> None:
        nonlocal failed, rows
        rows += 1
        failed += verdict == "FAIL"
        where = f" ({Path(file).name})" if file else ""
        name = visible(env_id + where)  # one line, whatever a file's name holds
        console.print(f"[{VERDICT_STYLE[verdict]}]{verdict:<18}[/] {escape(name)}", highlight=False)
        for problem in problems:
            console.print(
                f"    {escape(visible(problem))}",
                highlight=False,
                style="dim" if problem.startswith("warning") else None,
            )

    trusted: list[str] = []  # --trusted --dir: imported here; a file that fails to is a FAIL row, as when jailed
    if envs.dir and envs.trusted:
        from gymverse.env import registered_ids
        from gymverse.sandbox import register_env_dir

        registration = register_env_dir(envs.dir, trusted=True)
        for where, error in registration.failed.items():
            broken += 1
            row("-", where, "FAIL", [f"import {error}"])
        trusted = [env_id for env_id in registration.files if env_id in set(registered_ids())]
    here = EnvSelection(envs.ids, envs.all)  # checked in-process
    if here.ids or here.all or not envs.dir:  # (with nothing named, resolve says what to name)
        trusted = here.resolve(log=_say) + trusted
    for env_id in trusted:
        report = check_env(env_id, levels=levels, seeds=seeds)
        row(env_id, "", report.verdict, report.problems())
    if envs.dir and not envs.trusted:
        from gymverse.sandbox import FileVerdict, jail_problem, judge_folder
        from gymverse.sandbox.judge import JUDGE_LIMITS

        problem = jail_problem()
        if problem:
            raise BadInput(
                f"--dir {envs.dir} is not trusted and no jail can be made here: {problem}; "
                "--trusted imports your own games into this process"
            )

        def show(verdict: FileVerdict) -> None:
            nonlocal broken
            if verdict.skipped:
                console.print(
                    f"[dim]{'skipped':<18} {escape(visible(Path(verdict.file).name))}: {verdict.skipped}[/dim]"
                )
            if verdict.error:
                broken += 1
                row("-", verdict.file, "FAIL", [f"import {verdict.error}"])
            for game in verdict.games:
                broken += game.broken
                row(game.env_id, game.file, game.verdict, game.problems())
            progress.advance(task)

        with progress_bars(transient=True) as progress:
            task = progress.add_task("checking files", total=None)
            judgement = judge_folder(
                envs.dir,
                levels=levels[:10],
                seeds=min(seeds, 3),
                workers=workers,
                limits=dataclasses.replace(JUDGE_LIMITS, seconds=time_limit, memory_mb=memory_mb),
                resume=not fresh,
                on_verdict=show,
            )
        for entry, why in judgement.bad.items():
            broken += 1
            row("-", entry, "FAIL", [why])
        if judgement.resumed:
            console.print(f"[dim]{judgement.resumed} files were judged by an earlier run (--fresh: judge again)[/dim]")
    if envs.dir and not rows:
        raise BadInput(f"no games found in {envs.dir}")
    if failed:
        console.print(
            f"[red]{failed} of {rows} failed[/red]" + (f" ({broken} could not be imported or built)" if broken else "")
        )
    if failed - (broken if tolerate_broken_files else 0) > 0:
        sys.exit(1)


def train() -> None:
    """Train with PERPO (OAT's actor-learner backend when oat-llm is installed, else the native trainer);
    `gymverse train --help` lists its flags."""


def genenv() -> None:
    """Co-evolve an agent and an environment policy (GenEnv) on games or on a GenEnv parquet dataset; takes
    GenEnv's key=value overrides too; `gymverse genenv --help` lists its flags."""


COMMANDS: dict[str, Callable[..., object]] = {
    "envs": envs,
    "play": play,
    "check": check,
    "eval": eval_command,
    "audit": audit_command,
    "sft": sft_command,
    "synthesize": synthesize_command,
    "genenv": genenv,
    "train": train,
}


def main(argv: list[str] | None = None) -> None:
    """Run a subcommand; bad input (a bad id, value or path) is one line and exit status 2, a failing resource
    (an endpoint, the disk) one line and exit status 1.

    Set ``GYMVERSE_DEBUG=1`` to see the traceback instead. ``train`` and ``genenv`` parse their own flags (those
    of ``examples/train_oat/train_oat_perpo.py``; GenEnv's keys) and exit with the run's status.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["train"]:
        from gymverse.train.backend import main as train_main

        sys.exit(train_main(argv[1:], prog="gymverse train"))
    if argv[:1] == ["genenv"]:
        from gymverse.genenv.cli import main as genenv_main

        sys.exit(genenv_main(argv[1:], prog="gymverse genenv"))
    status = run_command(lambda: call_with_flags(COMMANDS, argv, "gymverse"), argv)
    if status:
        sys.exit(status)


if __name__ == "__main__":
    main()
