"""Sink a hidden fleet on a square sea with a limited number of shots."""

import math
from functools import lru_cache

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win

Cell = tuple[int, int]
MARKS = {"miss": "o", "hit": "X", "sunk": "#"}


@lru_cache(maxsize=8192)
def around(cell: Cell, size: int, diagonal: bool = True) -> tuple[Cell, ...]:
    r, c = cell
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)] + ([(-1, -1), (-1, 1), (1, -1), (1, 1)] if diagonal else [])
    return tuple((r + dr, c + dc) for dr, dc in steps if 0 <= r + dr < size and 0 <= c + dc < size)


@lru_cache(maxsize=256)
def sweep_order(size: int, step: int) -> tuple[Cell, ...]:
    """The cells the solver's hunt tries, in order: a lattice (r + c divisible by ``step``) that every
    ship of length ``step`` or more must cross, then every other cell."""
    cells = [(r, c) for r in range(size) for c in range(size)]
    return tuple([cell for cell in cells if sum(cell) % step == 0] + [cell for cell in cells if sum(cell) % step])


class Battleship(EvolvableEnv):
    domain = "games"
    complexity_params = {"size": (5, 10), "ships": (2, 5), "spare_percent": (70, 10)}
    param_variance = {"size": 1, "spare_percent": 5}
    example_command = "fire 0 0"

    def _new_episode(self) -> str:
        self.size = self.params["size"]
        lengths = sorted((self.rng.randint(2, 4) for _ in range(self.params["ships"])), reverse=True)
        self.ships = self._place(lengths)
        self.ship_at = {cell: i for i, ship in enumerate(self.ships) for cell in ship}
        need = self._solver_need()  # luck matters in the hunt, so the spare grows with the search
        self.budget = need + math.ceil(need * self.params["spare_percent"] / 100)
        return (
            f"A fleet is hidden on a {self.size}x{self.size} sea (rows and columns 0-{self.size - 1}).\n"
            f"Ship lengths: {', '.join(map(str, lengths))}. Ships are straight (horizontal or vertical) and "
            "never touch each other, not even at a corner.\nEach shot reports miss, hit, or hit and sunk "
            f"(when every cell of that ship has been hit). Sink the whole fleet with at most {self.budget} "
            "shots.\nMap legend: . unknown, o miss, X hit, # sunk ship.\n"
            "Command: \\boxed{fire ROW COL}.\nExample: \\boxed{fire 0 0}"
        )

    def _place(self, lengths: list[int]) -> list[list[Cell]]:
        while True:  # restart the whole fleet on the rare dead end
            ships: list[list[Cell]] = []
            blocked: set[Cell] = set()
            for length in lengths:
                for _ in range(200):
                    r, c = self.rng.randrange(self.size), self.rng.randrange(self.size)
                    dr, dc = (0, 1) if self.rng.random() < 0.5 else (1, 0)
                    ship = [(r + dr * k, c + dc * k) for k in range(length)]
                    if all(0 <= x < self.size and 0 <= y < self.size and (x, y) not in blocked for x, y in ship):
                        ships.append(ship)
                        blocked.update(ship, *(around(cell, self.size) for cell in ship))
                        break
                else:
                    break
            if len(ships) == len(lengths):
                return ships

    def _start_fight(self) -> None:
        self.shots: dict[Cell, str] = {}
        self.damage = [0] * len(self.ships)
        self.fired = self.sunk = 0
        self.damaged: set[Cell] = set()  # cells hit on ships still afloat
        # Ships never touch, so cells diagonal to a hit and cells around a sunk ship are known to be water.
        self.water: set[Cell] = set()
        self.grid = [["."] * self.size for _ in range(self.size)]  # the map the agent sees

    def _fire(self, cell: Cell) -> str:
        self.fired += 1
        if cell in self.shots:
            return "again"
        ship = self.ship_at.get(cell)
        if ship is None:
            self._mark(cell, "miss")
            return "miss"
        self.damage[ship] += 1
        self._mark(cell, "hit")
        self.damaged.add(cell)
        self.water.update(n for n in around(cell, self.size) if n[0] != cell[0] and n[1] != cell[1])  # diagonals
        if self.damage[ship] < len(self.ships[ship]):
            return "hit"
        self.sunk += 1
        for c in self.ships[ship]:
            self._mark(c, "sunk")
            self.damaged.discard(c)
            self.water.update(around(c, self.size))
        return "sunk"

    def _mark(self, cell: Cell, mark: str) -> None:
        self.shots[cell] = mark
        self.grid[cell[0]][cell[1]] = MARKS[mark]

    def _afloat(self) -> list[int]:
        return [len(s) for s, d in zip(self.ships, self.damage) if d < len(s)]

    def _solver_shot(self) -> Cell:
        """Finish a damaged ship if there is one, else sweep a lattice that every afloat ship must cross."""
        size, shots, water = self.size, self.shots, self.water

        def first_open(cells):
            return next((c for c in cells if c not in shots and c not in water), None)

        if self.damaged:
            first = min(self.damaged)
            damaged, frontier = {first}, [first]  # the damaged ship that holds the first hit
            while frontier:
                for n in around(frontier.pop(), size, diagonal=False):
                    if n in self.damaged and n not in damaged:
                        damaged.add(n)
                        frontier.append(n)
            rows, cols = {r for r, _ in damaged}, {c for _, c in damaged}
            if len(damaged) == 1:
                ends = around(first, size, diagonal=False)
            elif len(rows) == 1:
                ends = [(first[0], min(cols) - 1), (first[0], max(cols) + 1)]
            else:
                ends = [(min(rows) - 1, first[1]), (max(rows) + 1, first[1])]
            return first_open(e for e in ends if 0 <= e[0] < size and 0 <= e[1] < size)
        return first_open(sweep_order(size, min(self._afloat())))

    def _solver_need(self) -> int:
        self._start_fight()
        while self.sunk < len(self.ships):
            self._fire(self._solver_shot())
        need = self.fired
        self._start_fight()
        return need

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        return f"Shots used: {self.fired}/{self.budget}. Ships sunk: {self.sunk}/{len(self.ships)}."

    def _map(self) -> str:
        header = "   " + " ".join(str(c % 10) for c in range(self.size))
        return "\n".join([header] + [f"{r:>2} " + " ".join(row) for r, row in enumerate(self.grid)])

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "fire" or len(args) != 2:
            raise InvalidAction("use 'fire ROW COL'")
        cell = (parse_index(args[0], self.size, "row"), parse_index(args[1], self.size, "column"))
        result = self._fire(cell)
        if self.sunk == len(self.ships):
            return win(f"Shot at {cell}: hit and sunk. The whole fleet is sunk. You win!")
        if result == "sunk":
            text = f"Shot at {cell}: hit and sunk a ship of length {len(self.ships[self.ship_at[cell]])}!"
        elif result == "again":
            text = f"You already fired at {cell}; the shot is wasted."
        else:
            text = f"Shot at {cell}: {result}."
        text += "\n" + self._map()
        if self.fired >= self.budget:
            return lose(f"{text}\nNo shots left. You lost. {self._reveal()}")
        return Feedback(text)

    def _reveal(self) -> str:
        return "The ships were at: " + "; ".join(" ".join(f"({r},{c})" for r, c in s) for s in self.ships) + "."

    def oracle_action(self) -> str:
        return "\\boxed{fire %d %d}" % self._solver_shot()

    def random_action(self, rng) -> str:
        return "\\boxed{fire %d %d}" % (rng.randrange(self.size), rng.randrange(self.size))
