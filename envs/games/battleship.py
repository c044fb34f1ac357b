"""Sink a hidden fleet on a square sea with a limited number of shots."""

import math

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win

Cell = tuple[int, int]
MARKS = {"miss": "o", "hit": "X", "sunk": "#"}


def around(cell: Cell, size: int, diagonal: bool = True) -> list[Cell]:
    r, c = cell
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)] + ([(-1, -1), (-1, 1), (1, -1), (1, 1)] if diagonal else [])
    return [(r + dr, c + dc) for dr, dc in steps if 0 <= r + dr < size and 0 <= c + dc < size]


def solver_shot(size: int, shots: dict[Cell, str], afloat: list[int]) -> Cell:
    """Finish a damaged ship if there is one, else sweep a lattice that every afloat ship must cross.

    Ships never touch, so cells diagonal to a hit and cells around a sunk ship are known to be water.
    """
    water: set[Cell] = set()
    for cell, mark in shots.items():
        if mark == "sunk":
            water.update(around(cell, size))
        elif mark == "hit":
            water.update(n for n in around(cell, size) if n[0] != cell[0] and n[1] != cell[1])

    def first_open(cells):
        return next((c for c in cells if c not in shots and c not in water), None)

    hits = sorted(cell for cell, mark in shots.items() if mark == "hit")
    if hits:
        damaged, frontier = {hits[0]}, [hits[0]]
        while frontier:
            for n in around(frontier.pop(), size, diagonal=False):
                if shots.get(n) == "hit" and n not in damaged:
                    damaged.add(n)
                    frontier.append(n)
        rows, cols = {r for r, _ in damaged}, {c for _, c in damaged}
        if len(damaged) == 1:
            ends = around(hits[0], size, diagonal=False)
        elif len(rows) == 1:
            ends = [(hits[0][0], min(cols) - 1), (hits[0][0], max(cols) + 1)]
        else:
            ends = [(min(rows) - 1, hits[0][1]), (max(rows) + 1, hits[0][1])]
        return first_open(e for e in ends if 0 <= e[0] < size and 0 <= e[1] < size)
    step = min(afloat)
    cells = [(r, c) for r in range(size) for c in range(size)]
    return first_open(cell for cell in cells if sum(cell) % step == 0) or first_open(cells)


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
        self.fired = 0

    def _fire(self, cell: Cell) -> str:
        self.fired += 1
        if cell in self.shots:
            return "again"
        ship = self.ship_at.get(cell)
        if ship is None:
            self.shots[cell] = "miss"
            return "miss"
        self.damage[ship] += 1
        self.shots[cell] = "hit"
        if self.damage[ship] < len(self.ships[ship]):
            return "hit"
        self.shots.update((c, "sunk") for c in self.ships[ship])
        return "sunk"

    def _afloat(self) -> list[int]:
        return [len(s) for s, d in zip(self.ships, self.damage) if d < len(s)]

    def _solver_need(self) -> int:
        self._start_fight()
        while self._afloat():
            self._fire(solver_shot(self.size, self.shots, self._afloat()))
        need = self.fired
        self._start_fight()
        return need

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        sunk = len(self.ships) - len(self._afloat())
        return f"Shots used: {self.fired}/{self.budget}. Ships sunk: {sunk}/{len(self.ships)}."

    def _map(self) -> str:
        header = "   " + " ".join(str(c % 10) for c in range(self.size))
        rows = [f"{r:>2} " + " ".join(MARKS.get(self.shots.get((r, c)), ".") for c in range(self.size))
                for r in range(self.size)]
        return "\n".join([header] + rows)

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "fire" or len(args) != 2:
            raise InvalidAction("use 'fire ROW COL'")
        cell = (parse_index(args[0], self.size, "row"), parse_index(args[1], self.size, "column"))
        result = self._fire(cell)
        if not self._afloat():
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
        return "\\boxed{fire %d %d}" % solver_shot(self.size, self.shots, self._afloat())

    def random_action(self, rng) -> str:
        return "\\boxed{fire %d %d}" % (rng.randrange(self.size), rng.randrange(self.size))
