"""The console that every command prints through: rich on a terminal, plain unwrapped lines elsewhere.

Piped to a file or another program, rich would wrap everything at 80 columns, cutting game text
mid-sentence and table cells mid-name. There, lines are printed whole and tables as wide as they need.
"""

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

WIDE = 100_000  # columns when stdout is not a terminal: wide enough that nothing wraps


def make_console() -> Console:
    console = Console()
    if console.is_terminal:
        return console
    return Console(soft_wrap=True, width=WIDE)


console = make_console()


def progress_bars(to: Console | None = None, transient: bool = False) -> Progress:
    """Rich progress bars on ``to`` (default: :data:`console`), a task a line: description, bar, done of total, time."""
    columns = TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
    return Progress(*columns, console=to or console, transient=transient)
