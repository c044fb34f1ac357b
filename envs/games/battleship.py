"""Sink a hidden fleet on a square sea with a limited number of shots."""

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import NamedTuple

from gymverse.env import EvolvableEnv, Feedback, command_table, expect_command, parse_index, win

Cell = tuple[int, int]
MISS, HIT, SUNK = ord("o"), ord("X"), ord("#")  # map marks
OPENING = (
    "A fleet is hidden on a %dx%d sea (rows and columns 0-%d).\n"
    "Ship lengths: %s. Ships are straight (horizontal or vertical) and never touch each other, not even at a "
    "corner.\nEach shot reports miss, hit, or hit and sunk (when every cell of that ship has been hit). "
    "Sink the whole fleet with at most %d shots.\nMap legend: . unknown, o miss, X hit, # sunk ship.\n"
    "Command: \\boxed{fire ROW COL}.\nExample: \\boxed{fire 0 0}"
)


class Ship(NamedTuple):
    """One place a ship can take. Cell i is (i // size, i % size); a set of cells is a bitmask (bit i: cell i)."""

    cells: tuple[Cell, ...]
    mask: int
    halo: int  # its cells and every cell around them
    before: int  # the cell before its first one along its line (none at the edge)
    in_row: bool


@dataclass(frozen=True)
class Sea:
    """What depends on the size only, worked out once per size."""

    cells: tuple[Cell, ...]
    sides: tuple[tuple[int | None, ...], ...]  # per cell: the cells up, down, left and right (None: off the sea)
    above_below: tuple[int, ...]  # per cell: the cells up and down
    diagonals: tuple[int, ...]  # per cell: its diagonal neighbours
    lattices: dict[int, int]  # step -> the cells whose r + c is divisible by step
    placements: dict[int, list[Ship]]  # length -> every place a ship of that length can take
    blank_map: bytes
    map_offsets: tuple[int, ...]  # per cell: where its mark is in the map's text
    fire_commands: tuple[str, ...]


@lru_cache(maxsize=64)
def sea(size: int) -> Sea:
    cells = tuple((r, c) for r in range(size) for c in range(size))
    index = {cell: i for i, cell in enumerate(cells)}

    def mask(group):  # cells off the sea are left out
        return sum(1 << index[cell] for cell in group if cell in index)

    column = [0]  # column[h]: the first cell of each of h rows
    for r in range(size):
        column.append(column[-1] | 1 << (r * size))

    def rectangle(top, left, bottom, right):  # corners included, clipped to the sea
        top, left, bottom, right = max(top, 0), max(left, 0), min(bottom, size - 1), min(right, size - 1)
        return ((1 << (right - left + 1)) - 1) * column[bottom - top + 1] << (top * size + left)

    # A ship and the cells around it are rectangles, each made in a few operations on its bitmask rather than
    # cell by cell: the largest seas (60 x 60, 21,000 places for a ship) take a fraction of a second.
    placements: dict[int, list[Ship]] = {2: [], 3: [], 4: []}
    for length, places in placements.items():
        along_row, down_column = (1 << length) - 1, column[length]
        for i, (r, c) in enumerate(cells):
            if c + length <= size:
                places.append(
                    Ship(
                        tuple((r, c + k) for k in range(length)),
                        along_row << i,
                        rectangle(r - 1, c - 1, r + 1, c + length),
                        1 << (i - 1) if c else 0,
                        True,
                    )
                )
            if r + length <= size:
                places.append(
                    Ship(
                        tuple((r + k, c) for k in range(length)),
                        down_column << i,
                        rectangle(r - 1, c - 1, r + length, c + 1),
                        1 << (i - size) if r else 0,
                        False,
                    )
                )
    header = "   " + " ".join(str(c % 10) for c in range(size))
    blank_map = "\n".join([header] + [f"{r:>2} " + " ".join("." * size) for r in range(size)])
    return Sea(
        cells=cells,
        sides=tuple(
            tuple(index.get((r + dr, c + dc)) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))) for r, c in cells
        ),
        above_below=tuple(mask([(r - 1, c), (r + 1, c)]) for r, c in cells),
        diagonals=tuple(mask([(r - 1, c - 1), (r - 1, c + 1), (r + 1, c - 1), (r + 1, c + 1)]) for r, c in cells),
        lattices={step: mask(cell for cell in cells if sum(cell) % step == 0) for step in (2, 3, 4)},
        placements=placements,
        blank_map=blank_map.encode(),
        map_offsets=tuple(len(header) + 1 + r * (2 * size + 3) + 3 + 2 * c for r, c in cells),
        fire_commands=tuple("\\boxed{fire %d %d}" % cell for cell in cells),
    )


def lowest_cell(mask: int) -> int:
    """The lowest-numbered cell of a non-empty set."""
    return (mask & -mask).bit_length() - 1


def parse_shot(command: str, size: int) -> Cell:
    """``fire ROW COL`` as (row, col) on a sea of ``size`` by ``size``."""
    _, args = expect_command(command, ("fire",), 2, "use 'fire ROW COL'")
    return parse_index(args[0], size, "row"), parse_index(args[1], size, "column")


class Battleship(EvolvableEnv):
    max_complexity = 100
    complexity_params = {"size": (5, 10), "ships": (2, 5), "spare_percent": (70, 10)}
    param_variance = {"size": 1, "spare_percent": 5}
    example_command = "fire 0 0"

    def _new_episode(self) -> str:
        self.size = self.params["size"]
        self.sea = sea(self.size)
        self.shots = command_table(parse_shot, self.size)
        lengths = sorted(self.rng.choices((2, 3, 4), k=self.params["ships"]), reverse=True)
        self.fleet = self._place(lengths)
        self.ships = [ship.cells for ship in self.fleet]
        self.ship_at = {cell: i for i, ship in enumerate(self.ships) for cell in ship}
        need = self._solver_need()  # luck matters in the hunt, so the spare grows with the search
        self.budget = need + math.ceil(need * self.params["spare_percent"] / 100)
        self._start_fight()
        listed = ", ".join([str(len(ship)) for ship in self.ships])
        return OPENING % (self.size, self.size, self.size - 1, listed, self.budget)

    def _place(self, lengths: list[int]) -> list[Ship]:
        attempt = 0
        while True:
            fleet, blocked = [], 0
            for length in lengths:
                ship = self._fit(self.sea.placements[length], blocked)
                if ship is None:
                    if attempt < 50:
                        break  # restart the whole fleet on the rare dead end
                    continue  # parameters chosen for a fleet this sea cannot hold: the ship is left out
                fleet.append(ship)
                blocked |= ship.halo
            else:
                return fleet
            attempt += 1

    def _fit(self, places: list[Ship], blocked: int) -> Ship | None:
        """One of ``places`` clear of the ``blocked`` cells, drawn uniformly; None if there is none."""
        draw = self.rng.random
        for _ in range(8):  # one of a few draws usually fits...
            ship = places[int(draw() * len(places))]
            if not ship.mask & blocked:
                return ship
        fitting = [ship for ship in places if not ship.mask & blocked]  # ...else list those that do
        return self.rng.choice(fitting) if fitting else None

    def _start_fight(self) -> None:
        self.fired = self.sunk = 0
        self.shot = 0  # the cells fired at
        self.around_sunk = 0  # the cells around sunk ships, water since ships never touch
        self.hits: dict[int, list[int]] = {}  # ship still afloat -> the cells hit on it, in the order hit
        self.afloat = [len(ship) for ship in self.ships]
        self.map = bytearray(self.sea.blank_map)  # the map the agent sees, marked cell by cell

    def _fire(self, cell: Cell) -> str:
        self.fired += 1
        i = cell[0] * self.size + cell[1]
        if self.shot >> i & 1:
            return "again"
        self.shot |= 1 << i
        ship = self.ship_at.get(cell)
        if ship is None:
            self.map[self.sea.map_offsets[i]] = MISS
            return "miss"
        hits = self.hits.setdefault(ship, [])
        hits.append(i)
        if len(hits) < len(self.ships[ship]):
            self.map[self.sea.map_offsets[i]] = HIT
            return "hit"
        del self.hits[ship]
        self.afloat.remove(len(hits))
        self.sunk += 1
        self.around_sunk |= self.fleet[ship].halo
        for hit in hits:
            self.map[self.sea.map_offsets[hit]] = SUNK
        return "sunk"

    def _solver_shot(self) -> Cell:
        """Finish the first damaged ship if there is one, else sweep a lattice that every afloat ship must cross
        (any run of ``step`` cells in a row or column holds one cell whose r + c is divisible by ``step``)."""
        sea = self.sea
        # Cells it never fires at: those fired at, and water known because ships never touch (around a sunk
        # ship, diagonal to a hit).
        known = self.shot | self.around_sunk
        if not self.hits:
            return sea.cells[lowest_cell(sea.lattices[min(self.afloat)] & ~known)]
        for hit in chain(*self.hits.values()):
            known |= sea.diagonals[hit]
        hits = next(iter(self.hits.values()))  # on the ship damaged first
        first, last = min(hits), max(hits)
        # Around a lone hit: up, down, left, right. Along a line of hits: the gaps between them (random
        # shots can leave some), then the cell before the first and the cell after the last.
        if len(hits) == 1:
            tries = sea.sides[first]
        elif first // self.size == last // self.size:  # a row
            tries = (*range(first + 1, last), sea.sides[first][2], sea.sides[last][3])
        else:  # a column
            tries = (*range(first + self.size, last, self.size), sea.sides[first][0], sea.sides[last][1])
        return sea.cells[next(i for i in tries if i is not None and not known >> i & 1)]

    def _solver_need(self) -> int:
        """The shots the solver fires on its own, counted ship by ship rather than played shot by shot.

        The hunt fires at the open lattice cells in order, up to the first cell of a ship. Finishing that
        ship costs its other cells, plus a miss for each water cell it tries that is still open: the cell
        before the ship's first one (the line of hits grows backwards first), and for a ship in a row the
        cells above and below the first hit (a lone hit is tried up, down, left, right). All of those lie
        around the ship, so once it is sunk they are known, and nothing else of its fight matters later."""
        sea, known, need = self.sea, 0, 0
        afloat = list(self.fleet)  # longest first, so the shortest is the last
        afloat_cells = sum(ship.mask for ship in afloat)
        while afloat:
            open_cells = sea.lattices[len(afloat[-1].cells)] & ~known
            hit = lowest_cell(open_cells & afloat_cells)
            ship = self.fleet[self.ship_at[sea.cells[hit]]]
            misses = open_cells & ((1 << hit) - 1)
            known |= misses
            water_tried = ship.before | (sea.above_below[hit] if ship.in_row else 0)
            need += misses.bit_count() + len(ship.cells) + (water_tried & ~known).bit_count()
            known |= ship.halo
            afloat.remove(ship)
            afloat_cells ^= ship.mask
        return need

    def status(self) -> str:
        return f"Shots used: {self.fired}/{self.budget}. Ships sunk: {self.sunk}/{len(self.ships)}."

    def _play(self, command: str) -> Feedback:
        r, c = self.shots[command]
        result = self._fire((r, c))
        if self.sunk == len(self.ships):
            return win(f"Shot at ({r}, {c}): hit and sunk. The whole fleet is sunk. You win!")
        if result == "sunk":
            text = f"Shot at ({r}, {c}): hit and sunk a ship of length {len(self.ships[self.ship_at[r, c]])}!"
        elif result == "again":
            text = f"You already fired at ({r}, {c}); the shot is wasted."
        else:
            text = f"Shot at ({r}, {c}): {result}."
        text = f"{text}\n{self.map.decode()}"
        return self._within_budget(text, self.fired, "shots")

    def _reveal(self) -> str:
        return "The ships were at: " + "; ".join(" ".join(f"({r},{c})" for r, c in s) for s in self.ships) + "."

    def _solve(self) -> str:
        return "\\boxed{fire %d %d}" % self._solver_shot()

    def random_action(self, rng) -> str:
        return rng.choice(self.sea.fire_commands)
