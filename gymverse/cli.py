"""The ``gymverse`` command line: thin wrappers that parse, call the library and print."""

import os
import sys
from pathlib import Path
from typing import Callable

import tyro
from rich.markup import escape
from rich.table import Table

from gymverse.console import console
from gymverse.errors import BadInput
from gymverse.evaluation.commands import audit_command, eval_command
from gymverse.train.sft import sft_command


def _load_ids(ids: list[str], all_: bool, folder: Path | None) -> list[str]:
    from gymverse.evaluation.targets import resolve_env_ids

    return resolve_env_ids(ids, all_, folder, log=lambda line: console.print(line, markup=False))


def envs() -> None:
    """List the registered gymverse games with their complexity parameters."""
    import gymverse  # noqa: F401  (registers the games)
    from gymverse.env import env_class, registered_ids

    table = Table(title="gymverse games")
    table.add_column("id", no_wrap=True)
    table.add_column("domain")
    table.add_column("parameter", overflow="fold")
    table.add_column("level 1", justify="right")
    table.add_column("level 10", justify="right")
    for env_id in registered_ids("gymverse"):
        cls = env_class(env_id)
        params = list(cls.complexity_params.items()) or [("-", ("-", "-"))]
        for i, (name, (first, tenth)) in enumerate(params):
            table.add_row(env_id if i == 0 else "", cls.domain if i == 0 else "", name, str(first), str(tenth),
                          end_section=i == len(params) - 1)
    console.print(table)


def play(
    env_id: tyro.conf.Positional[str],
    complexity: int = 1,
    seed: int | None = None,
) -> None:
    """Play a game in the terminal. Type a command (boxing is optional), `hint` for the solver's move, `quit` to stop."""
    import gem

    _load_ids([env_id], False, None)
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
            console.print("[green]You won![/green]" if info.get("success") else "[red]Game over.[/red]")
            return


VERDICT_STYLE = {"pass": "green", "pass with warnings": "yellow", "FAIL": "red"}


def check(
    ids: tyro.conf.Positional[list[str]] = [],  # noqa: B006 (tyro reads the default)
    all: bool = False,  # noqa: A002
    dir: Path | None = None,  # noqa: A002
    seeds: int = 20,
    max_level: int = 20,
    in_process: bool = False,
    tolerate_broken_files: bool = False,
    time_limit: float = 120.0,
    memory_mb: int = 1024,
) -> None:
    """Check games with the env checker; prints a verdict table and exits non-zero if any fails.

    Args:
        ids: Env ids to check.
        all: Check every built-in game.
        dir: Also check every game in this folder of .py files, each file and game in the sandbox.
        seeds: Seeds per level.
        max_level: The checker plays levels 1 to this.
        in_process: Import --dir's files into this process instead of the sandbox (trusted code only).
        tolerate_broken_files: Exit 0 even when a file of --dir fails to import or a game to construct.
        time_limit: Seconds the sandbox gives each file's import and each game's check.
        memory_mb: Memory the sandbox gives each job, in MB.
    """
    from gymverse.env.checker import check_env

    levels = list(range(1, max_level + 1))
    rows: list[tuple[str, str, str, list[str]]] = []  # id, file, verdict, problems
    broken: list[str] = []
    with console.status("checking") as status:
        if ids or all or (dir and in_process):
            def skipped(line: str) -> None:
                broken.append(line)
                console.print(line, markup=False)

            from gymverse.evaluation.targets import resolve_env_ids

            for env_id in resolve_env_ids(list(ids), all, dir if in_process else None, log=skipped):
                status.update(f"checking {env_id}")
                report = check_env(env_id, levels=levels, seeds=seeds)
                rows.append((env_id, "", report.verdict, report.problems()))
        if dir and not in_process:
            from gymverse.sandbox import Limits, Sandbox, judge_folder

            with Sandbox(Limits(seconds=time_limit, memory_mb=memory_mb)) as sandbox:
                verdicts = judge_folder(dir, sandbox=sandbox, levels=levels, seeds=seeds, on_job=status.update)
            if not any(v.games or v.error for v in verdicts):
                raise BadInput(f"no games found in {dir}")
            for verdict in verdicts:
                if verdict.error:
                    broken.append(verdict.file)
                    rows.append(("-", verdict.file, "FAIL", [f"import {verdict.error}"]))
                for game in verdict.games:
                    broken += [game.env_id] if game.broken else []
                    rows.append((game.env_id, game.file, game.verdict, game.problems()))
    table = Table(title=f"env check (levels 1..{max_level}, {seeds} seeds)")
    table.add_column("id", overflow="fold")
    if dir and not in_process:
        table.add_column("file", overflow="fold")
    table.add_column("verdict")
    table.add_column("problems", overflow="fold")
    for env_id, file, verdict, problems in rows:
        cells = [env_id] + ([Path(file).name if file else ""] if dir and not in_process else [])
        table.add_row(*cells, f"[{VERDICT_STYLE[verdict]}]{verdict}[/]", escape("\n".join(problems)))
    console.print(table)
    failed = sum(verdict == "FAIL" for _, _, verdict, _ in rows) + sum(in_process for _ in broken)
    refused = failed - (len(broken) if tolerate_broken_files else 0)
    if failed:
        console.print(f"[red]{failed} of {len(rows) + (len(broken) if in_process else 0)} failed[/red]"
                      + (f" ({len(broken)} could not be imported or built)" if broken else ""))
    if refused > 0:
        sys.exit(1)


COMMANDS: dict[str, Callable[..., None]] = {
    "envs": envs,
    "play": play,
    "check": check,
    "eval": eval_command,
    "audit": audit_command,
    "sft": sft_command,
}


def main(argv: list[str] | None = None) -> None:
    """Run a subcommand; bad input (a bad id, value or path) is one line and exit status 2.

    Set ``GYMVERSE_DEBUG=1`` to see the traceback instead.
    """
    try:
        tyro.extras.subcommand_cli_from_dict(COMMANDS, args=argv, prog="gymverse")
    except (BadInput, ValueError, FileNotFoundError) as error:
        if os.environ.get("GYMVERSE_DEBUG"):
            raise
        console.print(f"[red]error:[/red] {escape(str(error))}")
        sys.exit(2)
    except BrokenPipeError:  # the reader stopped early (`gymverse envs | head`): not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (Python flushes stdout at exit)


if __name__ == "__main__":
    main()
