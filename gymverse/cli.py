"""The ``gymverse`` command line: thin wrappers that parse, call the library and print."""

import os
import sys
from pathlib import Path
from typing import Annotated, Callable

import tyro
from rich.markup import escape
from rich.table import Table

from gymverse.console import console
from gymverse.errors import BadInput, ResourceError
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
    from gymverse.synthesis.records import unverified_games

    ids = registered_ids("gymverse")
    unverified: set[str] = set()
    if dir is not None:
        ids += [i for i in EnvSelection(dir=dir).resolve(log=_say) if i not in ids]
        unverified = {f"{dir.name}:{name}" for name in unverified_games(dir)}
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
            table.add_row(label if first_row else "", getattr(cls, "domain", "misc") if first_row else "",
                          str(highest_complexity(env_id) or "-") if first_row else "", name, str(first), str(tenth),
                          end_section=i == len(params) - 1)
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
    in_process: bool = False,
    tolerate_broken_files: bool = False,
    time_limit: float = 120.0,
    memory_mb: int = 1024,
) -> None:
    """Check games with the env checker; prints a verdict table and exits non-zero if any fails.

    Args:
        seeds: Episodes (seeds) per level.
        max_level: The checker plays levels 1 to this.
        in_process: Import --dir's files into this process instead of the sandbox (trusted code only).
        tolerate_broken_files: Exit 0 even when a file of --dir fails to import or a game to construct.
        time_limit: Seconds the sandbox gives each game's check (a file's import gets at most 30).
        memory_mb: Memory the sandbox gives each job, in MB.
    """
    from gymverse.env.checker import check_env

    levels = list(range(1, max_level + 1))
    rows: list[tuple[str, str, str, list[str]]] = []  # id, file, verdict, problems
    broken: list[str] = []
    sandboxed = envs.dir is not None and not in_process
    with console.status("checking") as status:
        if envs.ids or envs.all or not sandboxed:
            def skipped(line: str) -> None:
                broken.append(line)
                _say(line)

            trusted = EnvSelection(envs.ids, envs.all, None if sandboxed else envs.dir)
            for env_id in trusted.resolve(log=skipped):
                status.update(f"checking {env_id}")
                report = check_env(env_id, levels=levels, seeds=seeds)
                rows.append((env_id, "", report.verdict, report.problems()))
        if sandboxed:
            from gymverse.sandbox import Limits, Sandbox, judge_folder

            with Sandbox(Limits(seconds=time_limit, memory_mb=memory_mb)) as sandbox:
                verdicts = judge_folder(envs.dir, sandbox=sandbox, levels=levels, seeds=seeds, on_job=status.update)
            if not any(v.games or v.error for v in verdicts):
                raise BadInput(f"no games found in {envs.dir}")
            for verdict in verdicts:
                if verdict.error:
                    broken.append(verdict.file)
                    rows.append(("-", verdict.file, "FAIL", [f"import {verdict.error}"]))
                for game in verdict.games:
                    broken += [game.env_id] if game.broken else []
                    rows.append((game.env_id, game.file, game.verdict, game.problems()))
    table = Table(title=f"env check (levels 1..{max_level}, {seeds} seeds)")
    table.add_column("id", overflow="fold")
    if sandboxed:
        table.add_column("file", overflow="fold")
    table.add_column("verdict")
    table.add_column("problems", overflow="fold")
    for env_id, file, verdict, problems in rows:
        cells = [env_id] + ([Path(file).name if file else ""] if sandboxed else [])
        table.add_row(*cells, f"[{VERDICT_STYLE[verdict]}]{verdict}[/]", escape("\n".join(problems)))
    console.print(table)
    skipped_files = 0 if sandboxed else len(broken)  # in this process a broken file has no row
    failed = sum(verdict == "FAIL" for _, _, verdict, _ in rows) + skipped_files
    if failed:
        console.print(f"[red]{failed} of {len(rows) + skipped_files} failed[/red]"
                      + (f" ({len(broken)} could not be imported or built)" if broken else ""))
    if failed - (len(broken) if tolerate_broken_files else 0) > 0:
        sys.exit(1)


def train() -> None:
    """Train with PERPO (OAT's actor-learner backend when oat-llm is installed, else the native trainer);
    `gymverse train --help` lists its flags."""


def genenv() -> None:
    """Co-evolve an agent and an environment policy (GenEnv) on games or on a GenEnv parquet dataset; takes
    GenEnv's key=value overrides too; `gymverse genenv --help` lists its flags."""


COMMANDS: dict[str, Callable[..., None]] = {
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
        from gymverse.training import main as train_main

        sys.exit(train_main(argv[1:], prog="gymverse train"))
    if argv[:1] == ["genenv"]:
        from gymverse.genenv.cli import main as genenv_main

        sys.exit(genenv_main(argv[1:], prog="gymverse genenv"))
    try:
        tyro.extras.subcommand_cli_from_dict(COMMANDS, args=argv, prog="gymverse")
    except (BadInput, ValueError, FileNotFoundError) as error:
        if os.environ.get("GYMVERSE_DEBUG"):
            raise
        console.print(f"[red]error:[/red] {escape(str(error))}")
        sys.exit(2)
    except ResourceError as error:  # an endpoint that keeps failing, a full disk
        console.print(f"[red]error:[/red] {escape(str(error))}")
        sys.exit(1)
    except BrokenPipeError:  # the reader stopped early (`gymverse envs | head`): not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (Python flushes stdout at exit)


if __name__ == "__main__":
    main()
