"""The ``gymverse`` command line: thin wrappers that parse, call the library and print."""

import os
import sys
from typing import Annotated, Callable

import tyro
from rich.markup import escape
from rich.table import Table

from gymverse.console import console
from gymverse.errors import BadInput
from gymverse.evaluation.commands import audit_command, eval_command
from gymverse.evaluation.options import FLAT, EnvSelection
from gymverse.run.sft import sft_command
from gymverse.synthesis.command import synthesize_command


def _say(line: str) -> None:
    console.print(line, markup=False)


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
    """Play a game in the terminal. Type a command (boxing is optional), `hint` for the solver's move, `quit` to stop.

    Args:
        env_id: The game (e.g. gymverse:PeakFinder); `gymverse envs` lists them.
        complexity: Its complexity level (1 and up).
        seed: Seed of the episode; None: a fresh one.
    """
    import gem

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
            console.print("[green]You won![/green]" if info.get("success") else "[red]Game over.[/red]")
            return


def check(
    envs: Annotated[EnvSelection, FLAT] = EnvSelection(),  # noqa: B008 (tyro reads the default)
    seeds: int = 20,
    max_level: int = 20,
) -> None:
    """Check games with the env checker; prints a verdict table and exits non-zero if any fails.

    Args:
        seeds: Episodes (seeds) per level.
        max_level: The checker plays levels 1 to this.
    """
    from gymverse.env.checker import check_env

    env_ids = envs.resolve(log=_say)
    table = Table(title=f"env check (levels 1..{max_level}, {seeds} seeds)")
    table.add_column("id")
    table.add_column("verdict")
    table.add_column("failures")
    failed = 0
    with console.status("checking") as status:
        for env_id in env_ids:
            status.update(f"checking {env_id}")
            report = check_env(env_id, levels=range(1, max_level + 1), seeds=seeds)
            failed += not report.passed
            problems = "; ".join(f"{r.name}: {r.detail}" for r in report.failures())
            table.add_row(env_id, "[green]pass[/green]" if report.passed else "[red]FAIL[/red]", problems)
    console.print(table)
    if failed:
        console.print(f"[red]{failed} of {len(env_ids)} envs failed[/red]")
        sys.exit(1)


COMMANDS: dict[str, Callable[..., None]] = {
    "envs": envs,
    "play": play,
    "check": check,
    "eval": eval_command,
    "audit": audit_command,
    "sft": sft_command,
    "synthesize": synthesize_command,
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
