"""Find buried treasure on a grid when each dig only says warmer or colder than the last one."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win


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
Bounds = list[list[int]]  # [[low row, high row], [low column, high column]] that may hold the treasure


def narrow_bounds(bounds: Bounds, before: tuple[int, int], now: tuple[int, int], verdict: str) -> Bounds:
    """The bounds after the dig at ``now`` got ``verdict`` compared with the dig at ``before``.

    A pair of digs in the same row compares column distances only (the row terms cancel), so it
    bounds the treasure's column; likewise for a column. Other pairs, from a random player, are skipped.
    """
    bounds = [list(b) for b in bounds]
    for axis in (0, 1):
        if before[1 - axis] == now[1 - axis] and before[axis] != now[axis]:
            bounds[axis] = list(narrow(*bounds[axis], before[axis], now[axis], verdict))
    return bounds


def solver_dig(bounds: Bounds, last: tuple[int, int] | None, rows: int, cols: int) -> tuple[int, int]:
    """Bisect the row range, then the column range, given the bounds so far and the last dig."""
    if all(low == high for low, high in bounds):
        return bounds[0][0], bounds[1][0]
    axis = 0 if bounds[0][0] < bounds[0][1] else 1
    low, high = bounds[axis]
    last = list(last) if last else [0, 0]
    mirror = low + high - last[axis]  # the dig whose comparison with the last one splits [low, high]
    size = (rows, cols)[axis]
    if mirror == last[axis] or not 0 <= mirror < size:
        mirror = low if last[axis] != low else high  # re-anchor at an end of the range
    last[axis] = mirror
    return last[0], last[1]


class HotColdTreasure(EvolvableEnv):
    domain = "games"
    complexity_params = {"rows": (6, 24), "cols": (8, 32), "spare_digs": (8, 1)}
    param_variance = {"rows": 2, "cols": 2, "spare_digs": 1}
    example_command = "dig 0 0"

    def _new_episode(self) -> str:
        self.rows, self.cols = self.params["rows"], self.params["cols"]
        self.treasure = (self.rng.randrange(self.rows), self.rng.randrange(self.cols))
        self.digs: list[tuple[tuple[int, int], str]] = []
        self.bounds = [[0, self.rows - 1], [0, self.cols - 1]]  # where the digs so far say the treasure is
        self.budget = self._solver_need() + self.params["spare_digs"]
        return (
            f"A treasure is buried in one cell of a {self.rows}x{self.cols} field (rows 0-{self.rows - 1}, "
            f"columns 0-{self.cols - 1}).\nEach dig tells you whether you got warmer, colder or stayed the same "
            "compared with your previous dig,\nmeasured as the number of row steps plus column steps "
            "to the treasure. The first dig has nothing to compare with.\n"
            f"Digging on the treasure wins; you have {self.budget} digs.\n"
            "Command: \\boxed{dig ROW COL}.\nExample: \\boxed{dig 0 0}"
        )

    def _solver_need(self) -> int:
        bounds, last, digs = self.bounds, None, 0
        while last != self.treasure:
            cell = solver_dig(bounds, last, self.rows, self.cols)
            if last is not None:
                bounds = narrow_bounds(bounds, last, cell, compare(self.treasure, last, cell))
            last, digs = cell, digs + 1
        return digs

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        last = f" Last dig: {self.digs[-1][0]}." if self.digs else ""
        return f"Digs used: {len(self.digs)}/{self.budget}.{last}"

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "dig" or len(args) != 2:
            raise InvalidAction("use 'dig ROW COL'")
        cell = (parse_index(args[0], self.rows, "row"), parse_index(args[1], self.cols, "column"))
        verdict = "first"
        if self.digs:
            verdict = compare(self.treasure, self.digs[-1][0], cell)
            self.bounds = narrow_bounds(self.bounds, self.digs[-1][0], cell, verdict)
        self.digs.append((cell, verdict))
        if cell == self.treasure:
            return win(f"You dig at {cell} and find the treasure. You win!")
        text = f"Nothing at {cell}. " + VERDICT_TEXT[verdict]
        if len(self.digs) >= self.budget:
            return lose(f"{text} No digs left. You lost. {self._reveal()}")
        return Feedback(text)

    def _reveal(self) -> str:
        return f"The treasure was at {self.treasure}."

    def oracle_action(self) -> str:
        last = self.digs[-1][0] if self.digs else None
        return "\\boxed{dig %d %d}" % solver_dig(self.bounds, last, self.rows, self.cols)

    def random_action(self, rng) -> str:
        return "\\boxed{dig %d %d}" % (rng.randrange(self.rows), rng.randrange(self.cols))
