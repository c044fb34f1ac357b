"""The console that every command prints through: rich on a terminal, plain unwrapped lines elsewhere.

Piped to a file or another program, rich would wrap everything at 80 columns, cutting game text
mid-sentence and table cells mid-name. There, lines are printed whole and tables as wide as they need.

Games that are not ours write much of what is printed (errors, names, observations), so the console
shows the control characters of every text it prints (:mod:`gymverse.env.visible`): an escape sequence in
a game's error cannot erase a row, forge one, set the window's title or write the clipboard. Rich's own
control output (a progress bar's cursor moves, styles) is not text, and keeps working.
"""

from typing import Iterable

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.segment import Segment

from gymverse.env.visible import visible

WIDE = 100_000  # columns when stdout is not a terminal: wide enough that nothing wraps


class SafeConsole(Console):
    """A rich console that prints text segments with their control characters visible."""

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control else Segment(visible(segment.text, lines=True), segment.style)
            for segment in buffer
        )


def make_console() -> Console:
    console = SafeConsole()
    if console.is_terminal:
        return console
    return SafeConsole(soft_wrap=True, width=WIDE)


console = make_console()


def progress_bars(to: Console | None = None, transient: bool = False) -> Progress:
    """Rich progress bars on ``to`` (default: :data:`console`), a task a line: description, bar, done of total, time."""
    columns = TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
    return Progress(*columns, console=to or console, transient=transient)
