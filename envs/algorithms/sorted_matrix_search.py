"""Decide where (or whether) a target value sits in a hidden matrix whose rows and columns are sorted."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win


class SortedMatrixSearch(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"rows": (3, 14), "cols": (4, 18), "spare_reads": (4, 0)}
    param_variance = {"rows": 1, "cols": 2}
    example_command = "read 0 3"

    def _new_episode(self) -> str:
        rows, cols = self.params["rows"], self.params["cols"]
        self.rows, self.cols = rows, cols
        grid, above = [], [0] * cols
        for _ in range(rows):
            # Each cell exceeds the larger of the cells above and to its left by 1 to 4 (two random bits a cell).
            steps = self.rng.getrandbits(2 * cols)
            row, left = [], 0
            for up in above:
                left = (up if up > left else left) + 1 + (steps & 3)
                steps >>= 2
                row.append(left)
            grid.append(row)
            above = row
        self.grid = grid
        if self.rng.random() < 0.5:
            self.target = self.rng.choice(self.rng.choice(grid))
        else:
            present = set().union(*grid)
            gaps = [v for v in range(grid[0][0], grid[-1][-1]) if v not in present]
            self.target = self.rng.choice(gaps) if gaps else grid[0][0] - 1
        self.budget: int = rows + cols - 1 + self.params["spare_reads"]
        self.known: dict[tuple[int, int], int] = {}
        self.cursor = (0, cols - 1)  # the solver's walk starts at the top-right corner
        return (
            f"A hidden {rows} x {cols} matrix of integers has rows 0..{rows - 1} and columns 0..{cols - 1}.\n"
            "Every row increases strictly from left to right and every column increases strictly from top to "
            "bottom.\n"
            f"Goal: find the cell holding {self.target}, or decide that no cell holds it.\n"
            f"Commands: \\boxed{{read r c}} shows the value in row r, column c (you have {self.budget} reads; "
            "asking for more loses);\n"
            "\\boxed{answer r c} claims that cell holds the target, \\boxed{answer none} claims no cell does;\n"
            "either answer ends the game, and a wrong claim loses.\n"
            f"Example: \\boxed{{read 0 {cols - 1}}}"
        )

    def status(self) -> str:
        return f"Reads used: {len(self.known)}/{self.budget}. Target: {self.target}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "answer" and [a.lower() for a in args] == ["none"]:
            if any(self.target in row for row in self.grid):
                return lose(f"{self.target} is in the matrix. You lost. " + self._reveal())
            return win(f"Right: {self.target} is nowhere in the matrix. You win!")
        if verb not in ("read", "answer") or len(args) != 2:
            raise InvalidAction("use 'read r c', 'answer r c' or 'answer none'")
        r = parse_index(args[0], self.rows, "row")
        c = parse_index(args[1], self.cols, "column")
        value = self.grid[r][c]
        if verb == "answer":
            if value == self.target:
                return win(f"Cell ({r}, {c}) holds {self.target}. You win!")
            return lose(f"Cell ({r}, {c}) holds {value}, not {self.target}. You lost. " + self._reveal())
        if (r, c) not in self.known:
            if len(self.known) >= self.budget:
                return lose(f"No reads left ({self.budget} used). You lost. " + self._reveal())
            self.known[r, c] = value
        return Feedback(f"Cell ({r}, {c}) = {value}. The target is {self.target}.")

    def _reveal(self) -> str:
        for r, row in enumerate(self.grid):
            if self.target in row:
                return f"{self.target} was at row {r}, column {row.index(self.target)}."
        return f"{self.target} was not in the matrix."

    def _solve(self) -> str:
        # Staircase walk: a cell above the target rules out the rest of its row, below it the rest of its column.
        r, c = self.cursor
        while r < self.rows and c >= 0:
            if (r, c) not in self.known:
                self.cursor = (r, c)
                return "\\boxed{read %d %d}" % (r, c)
            value = self.known[r, c]
            if value == self.target:
                return "\\boxed{answer %d %d}" % (r, c)
            r, c = (r, c - 1) if value > self.target else (r + 1, c)
        return "\\boxed{answer none}"

    def random_action(self, rng) -> str:
        verb = "answer" if rng.random() < 0.1 else "read"
        return f"\\boxed{{{verb} {int(rng.random() * self.rows)} {int(rng.random() * self.cols)}}}"
