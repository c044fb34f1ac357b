"""Find buried treasure on a grid when each dig only says warmer or colder than the last one."""

from functools import cache

from gymverse.env import EvolvableEnv, Feedback, expect_command, parse_index, win


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def compare(treasure: tuple[int, int], before: tuple[int, int], now: tuple[int, int]) -> str:
    change = distance(treasure, now) - distance(treasure, before)
    return "warmer" if change < 0 else "colder" if change > 0 else "same"


def narrow(low: int, high: int, before: int, now: int, verdict: str) -> tuple[int, int]:
    """Bounds on one coordinate after two digs that differ only in that coordinate."""
    middle2 = before + now  # twice the point at equal distance from both digs
    if verdict == "same":
        return (max(low, middle2 // 2), min(high, middle2 // 2)) if middle2 % 2 == 0 else (low, high)
    toward_now = (verdict == "warmer") == (now > before)  # the treasure lies above the middle
    if toward_now:
        return max(low, middle2 // 2 + 1), high
    return low, min(high, (middle2 - 1) // 2)


VERDICT_TEXT = {
    "first": "This is your first dig, so there is no comparison yet.",
    "same": "Same distance as your previous dig.",
    "warmer": "Warmer than your previous dig.",
    "colder": "Colder than your previous dig.",
}
Bounds = list[tuple[int, int]]  # [(low row, high row), (low column, high column)] that may hold the treasure


def narrow_bounds(bounds: Bounds, before: tuple[int, int], now: tuple[int, int], verdict: str) -> None:
    """Narrow ``bounds`` in place after the dig at ``now`` got ``verdict`` compared with the dig at ``before``.

    A pair of digs in the same row compares column distances only (the row terms cancel), so it
    bounds the treasure's column; likewise for a column. Other pairs, from a random player, are skipped.
    """
    if before == now:
        return
    if before[0] == now[0]:
        bounds[1] = narrow(*bounds[1], before[1], now[1], verdict)
    elif before[1] == now[1]:
        bounds[0] = narrow(*bounds[0], before[0], now[0], verdict)


def bisect_dig(low: int, high: int, last: int, size: int) -> int:
    """The solver's next coordinate on one axis of length ``size``, where the treasure lies in [low, high].

    It is the last dig mirrored about the middle of the range, so comparing the two splits the range.
    """
    mirror = low + high - last
    if mirror == last or not 0 <= mirror < size:
        mirror = low if last != low else high  # re-anchor at an end of the range
    return mirror


def solver_dig(bounds: Bounds, last: tuple[int, int] | None, rows: int, cols: int) -> tuple[int, int]:
    """Bisect the row range, then the column range, given the bounds so far and the last dig."""
    if bounds[0][0] == bounds[0][1] and bounds[1][0] == bounds[1][1]:
        return bounds[0][0], bounds[1][0]
    row, col = last or (0, 0)
    if bounds[0][0] < bounds[0][1]:
        return bisect_dig(*bounds[0], row, rows), col
    return row, bisect_dig(*bounds[1], col, cols)


@cache
def axis_digs(size: int, target: int, last: int) -> tuple[int, ...]:
    """The coordinates :func:`bisect_dig` digs along one axis, after a dig at ``last``, until only ``target`` is left.

    They depend on these three numbers only, so they are worked out once.
    """
    digs, (low, high) = [], (0, size - 1)
    while low < high:
        now = bisect_dig(low, high, last, size)
        low, high = narrow(low, high, last, now, compare((target, 0), (last, 0), (now, 0)))  # as if along a row
        digs.append(now)
        last = now
    return tuple(digs)


def solver_need(rows: int, cols: int, treasure: tuple[int, int]) -> int:
    """How many digs :func:`solver_dig` takes from a fresh start, without replaying it.

    It digs down column 0 until it knows the row (its first dig, at the last row, compares with
    nothing), then along the row of its last dig until it knows the column, then on the treasure,
    stopping as soon as a dig hits it.
    """
    row_digs = (rows - 1,) + axis_digs(rows, treasure[0], rows - 1)
    col_digs = axis_digs(cols, treasure[1], 0)
    path = [(row, 0) for row in row_digs] + [(row_digs[-1], col) for col in col_digs] + [treasure]
    return path.index(treasure) + 1


class HotColdTreasure(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"rows": (6, 24), "cols": (8, 32), "spare_digs": (8, 1)}
    param_variance = {"rows": 2, "cols": 2, "spare_digs": 1}
    example_command = "dig 0 0"

    def _new_episode(self) -> str:
        rows, cols = self.params["rows"], self.params["cols"]
        self.rows, self.cols = rows, cols
        self.treasure = (int(self.rng.random() * rows), int(self.rng.random() * cols))
        self.last: tuple[int, int] | None = None  # the previous dig
        self.dug = 0
        self.bounds = [(0, rows - 1), (0, cols - 1)]  # where the digs so far say the treasure is
        self.budget = solver_need(rows, cols, self.treasure) + self.params["spare_digs"]
        return (
            f"A treasure is buried in one cell of a {rows}x{cols} field (rows 0-{rows - 1}, "
            f"columns 0-{cols - 1}).\nEach dig tells you whether you got warmer, colder or stayed the same "
            "compared with your previous dig,\nmeasured as the number of row steps plus column steps "
            "to the treasure. The first dig has nothing to compare with.\n"
            f"Digging on the treasure wins; you have {self.budget} digs.\n"
            "Command: \\boxed{dig ROW COL}.\nExample: \\boxed{dig 0 0}"
        )

    def status(self) -> str:
        last = f" Last dig: {self.place}." if self.last else ""
        return f"Digs used: {self.dug}/{self.budget}.{last}"

    def _play(self, command: str) -> Feedback:
        _, args = expect_command(command, ("dig",), 2, "use 'dig ROW COL'")
        row, col = parse_index(args[0], self.rows, "row"), parse_index(args[1], self.cols, "column")
        cell = (row, col)
        verdict = "first"
        if self.last:
            verdict = compare(self.treasure, self.last, cell)
            narrow_bounds(self.bounds, self.last, cell, verdict)
        self.last = cell
        self.place = f"({row}, {col})"  # the dig as a tuple prints, written once for the feedback and status
        self.dug += 1
        if cell == self.treasure:
            return win(f"You dig at {self.place} and find the treasure. You win!")
        text = f"Nothing at {self.place}. {VERDICT_TEXT[verdict]}"
        return self._within_budget(text, self.dug, "digs")

    def _reveal(self) -> str:
        return f"The treasure was at {self.treasure}."

    def _solve(self) -> str:
        return "\\boxed{dig %d %d}" % solver_dig(self.bounds, self.last, self.rows, self.cols)

    def random_action(self, rng) -> str:
        return "\\boxed{dig %d %d}" % (int(rng.random() * self.rows), int(rng.random() * self.cols))
