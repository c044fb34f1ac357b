"""Switch off every light; pressing a light also flips its four neighbours."""

from functools import lru_cache
from typing import NamedTuple

from gymverse.env import (
    EvolvableEnv,
    Feedback,
    command_table,
    distinct_draws,
    expect_command,
    parse_index,
    pick,
    win,
)


def press_mask(rows: int, cols: int, cell: int) -> int:
    r, c = divmod(cell, cols)
    mask = 1 << cell
    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= rr < rows and 0 <= cc < cols:
            mask |= 1 << (rr * cols + cc)
    return mask


@lru_cache(maxsize=64)
def elimination(rows: int, cols: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Gauss-Jordan over GF(2) for the board's press matrix (symmetric: cell i is flipped by press j
    exactly when press i flips cell j). Returns (pivot variable, combination of lit cells that sets it)
    pairs and a basis of the press sets that change nothing."""
    n = rows * cols
    eqs = [[press_mask(rows, cols, i), 1 << i] for i in range(n)]
    pivots: list[int] = []
    for var in range(n):
        pick = next((j for j in range(len(pivots), n) if eqs[j][0] >> var & 1), None)
        if pick is None:
            continue
        top = len(pivots)
        eqs[top], eqs[pick] = eqs[pick], eqs[top]
        for j in range(n):
            if j != top and eqs[j][0] >> var & 1:
                eqs[j][0] ^= eqs[top][0]
                eqs[j][1] ^= eqs[top][1]
        pivots.append(var)
    solved = [(var, eqs[k][1]) for k, var in enumerate(pivots)]
    free = sorted(set(range(n)) - set(pivots))
    null = [(1 << f) | sum(1 << var for k, var in enumerate(pivots) if eqs[k][0] >> f & 1) for f in free]
    return solved, null


class Panel(NamedTuple):
    """What every board of one shape shares, built once per shape by :func:`panel`."""

    masks: tuple[int, ...]  # the lights each cell's press flips
    quiet: tuple[int, ...]  # every press set that flips nothing (all sums of the null basis; boards here have few)
    layout: str  # the board as a %-format: column numbers, then one %s per row after the row's number
    row_starts: tuple[int, ...]  # the bit of each row's first cell
    rows_changed: tuple[tuple[tuple[int, int], ...], ...]  # (row, its first bit) of each row a cell's press changes
    cell_names: tuple[str, ...]  # "(row, col)" of each cell
    commands: tuple[str, ...]  # the boxed command pressing each cell, for random play


@lru_cache(maxsize=64)
def panel(rows: int, cols: int) -> Panel:
    quiet = [0]
    for vector in elimination(rows, cols)[1]:
        quiet += [q ^ vector for q in quiet]
    header = "   " + " ".join(str(c % 10) for c in range(cols))
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    return Panel(
        masks=tuple(press_mask(rows, cols, cell) for cell in range(rows * cols)),
        quiet=tuple(quiet),
        layout="\n".join([header] + [f"{r:>2} %s" for r in range(rows)]),
        row_starts=tuple(range(0, rows * cols, cols)),
        rows_changed=tuple(tuple((rr, rr * cols) for rr in range(max(r - 1, 0), min(r + 2, rows))) for r, _ in cells),
        cell_names=tuple(f"({r}, {c})" for r, c in cells),
        commands=tuple(f"\\boxed{{press {r} {c}}}" for r, c in cells),
    )


@lru_cache(maxsize=4096)
def row_text(lights: int, cols: int) -> str:
    """How a row of the board reads (bit c is column c); cached, as boards repeat the same few rows."""
    return " ".join(".#"[lights >> c & 1] for c in range(cols))


def smallest_equivalent(rows: int, cols: int, presses: int) -> int:
    """The smallest set of presses with the same effect as ``presses``."""
    return min((presses ^ q for q in panel(rows, cols).quiet), key=int.bit_count)


def fewest_presses(rows: int, cols: int, lit: int) -> int:
    """The smallest set of presses (as a bit mask) that turns every light of ``lit`` off."""
    solved, _ = elimination(rows, cols)
    return smallest_equivalent(rows, cols, sum(1 << var for var, combo in solved if (combo & lit).bit_count() & 1))


def parse_press(command: str, rows: int, cols: int) -> int:
    """``press ROW COL`` as the cell pressed (``row * cols + col``)."""
    _, args = expect_command(command, ("press",), 2, "use 'press ROW COL'")
    return parse_index(args[0], rows, "row") * cols + parse_index(args[1], cols, "column")


class LightsOut(EvolvableEnv):
    max_complexity = 71  # the 27 x 35 board of level 72 has 2**27 press sets that change nothing
    complexity_params = {"rows": (3, 6), "cols": (3, 7), "scramble": (3, 12), "spare_presses": (6, 0)}
    param_variance = {"scramble": 1, "spare_presses": 1}
    example_command = "press 0 0"

    def _new_episode(self) -> str:
        self.rows, self.cols = self.params["rows"], self.params["cols"]
        self.panel = panel(self.rows, self.cols)
        self.cells = command_table(parse_press, self.rows, self.cols)
        masks = self.panel.masks
        lit = scrambled = 0
        for cell in distinct_draws(self.rng, range(len(masks)), min(self.params["scramble"], len(masks))):
            scrambled |= 1 << cell
            lit ^= masks[cell]
        self.lit, self.presses = lit, 0
        self.row_bits = (1 << self.cols) - 1  # a row's lights, shifted down from its first cell's bit
        self.lines = [row_text(lit >> start & self.row_bits, self.cols) for start in self.panel.row_starts]
        # Pressing the scrambled cells again clears the board, so no solver is needed to count the fewest presses.
        fewest = smallest_equivalent(self.rows, self.cols, scrambled).bit_count()
        self.budget = fewest + self.params["spare_presses"]
        return (
            f"A {self.rows}x{self.cols} panel of lights (# = on, . = off):\n{self._board()}\n"
            "Pressing a light flips it and the lights directly above, below, left and right of it.\n"
            f"Goal: switch every light off within {self.budget} presses.\n"
            "Command: \\boxed{press ROW COL} (rows and columns count from 0).\nExample: \\boxed{press 0 0}"
        )

    def _board(self) -> str:
        """The board from each row's text (``self.lines``, kept up to date as lights change)."""
        return self.panel.layout % tuple(self.lines)

    def status(self) -> str:
        return f"Presses used: {self.presses}/{self.budget}. Lights on: {self.lit.bit_count()}."

    def _play(self, command: str) -> Feedback:
        panel = self.panel
        cell = self.cells[command]
        self.lit = lit = self.lit ^ panel.masks[cell]
        self.presses += 1
        for row, start in panel.rows_changed[cell]:  # the other rows' lines still hold
            self.lines[row] = row_text(lit >> start & self.row_bits, self.cols)
        if not lit:
            return win(f"You press {panel.cell_names[cell]} and every light goes out. You win!")
        text = f"You press {panel.cell_names[cell]}.\n{self._board()}"
        return self._within_budget(text, self.presses, "presses")

    def _reveal(self) -> str:
        plan = fewest_presses(self.rows, self.cols, self.lit)
        cells = ", ".join([name for i, name in enumerate(self.panel.cell_names) if plan >> i & 1])
        return f"From here, pressing {cells} would have cleared it."

    def _solve(self) -> str:
        plan = fewest_presses(self.rows, self.cols, self.lit)
        return self.panel.commands[(plan & -plan).bit_length() - 1]

    def random_action(self, rng) -> str:
        return pick(rng, self.panel.commands)
