"""Switch off every light; pressing a light also flips its four neighbours."""

from functools import lru_cache

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win


LIGHTS = str.maketrans("01", ".#")  # bits as the board shows them


def press_mask(rows: int, cols: int, cell: int) -> int:
    r, c = divmod(cell, cols)
    mask = 1 << cell
    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
        if 0 <= rr < rows and 0 <= cc < cols:
            mask |= 1 << (rr * cols + cc)
    return mask


@lru_cache(maxsize=64)
def board_masks(rows: int, cols: int) -> tuple[int, ...]:
    """Every cell's press mask, computed once per board shape."""
    return tuple(press_mask(rows, cols, cell) for cell in range(rows * cols))


@lru_cache(maxsize=64)
def column_header(cols: int) -> str:
    return "   " + " ".join(str(c % 10) for c in range(cols))


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


def fewest_presses(rows: int, cols: int, lit: int) -> int:
    """The smallest set of presses (as a bit mask) that turns every light of ``lit`` off."""
    solved, null = elimination(rows, cols)
    presses = sum(1 << var for var, combo in solved if (combo & lit).bit_count() & 1)
    span = [0]  # every combination of null vectors; boards here have at most a few of them
    for vector in null:
        span += [s ^ vector for s in span]
    return min((presses ^ s for s in span), key=int.bit_count)


class LightsOut(EvolvableEnv):
    domain = "games"
    complexity_params = {"rows": (3, 6), "cols": (3, 7), "scramble": (3, 12), "spare_presses": (6, 0)}
    param_variance = {"scramble": 1, "spare_presses": 1}
    example_command = "press 0 0"

    def _new_episode(self) -> str:
        self.rows, self.cols = self.params["rows"], self.params["cols"]
        cells = self.rows * self.cols
        self.masks = board_masks(self.rows, self.cols)
        self.lit = 0
        for cell in self.rng.sample(range(cells), min(self.params["scramble"], cells)):
            self.lit ^= self.masks[cell]
        self.presses = 0
        self.budget = fewest_presses(self.rows, self.cols, self.lit).bit_count() + self.params["spare_presses"]
        return (
            f"A {self.rows}x{self.cols} panel of lights (# = on, . = off):\n{self._board()}\n"
            "Pressing a light flips it and the lights directly above, below, left and right of it.\n"
            f"Goal: switch every light off within {self.budget} presses.\n"
            "Command: \\boxed{press ROW COL} (rows and columns count from 0).\nExample: \\boxed{press 0 0}"
        )

    def _board(self) -> str:
        cols = self.cols
        cells = format(self.lit, f"0{self.rows * cols}b")[::-1].translate(LIGHTS)  # cell 0 first
        rows = [f"{r:>2} " + " ".join(cells[r * cols : (r + 1) * cols]) for r in range(self.rows)]
        return "\n".join([column_header(cols)] + rows)

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        return f"Presses used: {self.presses}/{self.budget}. Lights on: {self.lit.bit_count()}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "press" or len(args) != 2:
            raise InvalidAction("use 'press ROW COL'")
        r, c = parse_index(args[0], self.rows, "row"), parse_index(args[1], self.cols, "column")
        self.lit ^= self.masks[r * self.cols + c]
        self.presses += 1
        if not self.lit:
            return win(f"You press ({r}, {c}) and every light goes out. You win!")
        text = f"You press ({r}, {c}).\n{self._board()}"
        if self.presses >= self.budget:
            return lose(f"{text}\nNo presses left. You lost. {self._reveal()}")
        return Feedback(text)

    def _reveal(self) -> str:
        plan = fewest_presses(self.rows, self.cols, self.lit)
        cells = [divmod(i, self.cols) for i in range(self.rows * self.cols) if plan >> i & 1]
        return "From here, pressing " + ", ".join(f"({r}, {c})" for r, c in cells) + " would have cleared it."

    def oracle_action(self) -> str:
        plan = fewest_presses(self.rows, self.cols, self.lit)
        return "\\boxed{press %d %d}" % divmod((plan & -plan).bit_length() - 1, self.cols)

    def random_action(self, rng) -> str:
        return "\\boxed{press %d %d}" % (rng.randrange(self.rows), rng.randrange(self.cols))
