"""Deliver parcels on a grid: walk one square at a time to each address in turn, within a move budget.

Every observation ends with the whole state (position, next address, moves left), so the game can
be played from the latest observation alone: a small model learns its early levels in minutes,
which is what the CPU training demo relies on. Higher levels mean larger grids, more stops and
fewer spare moves, so every wasted step counts.
"""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


class GridCourier(EvolvableEnv):
    domain = "games"
    complexity_params = {"size": (3, 10), "stops": (1, 4), "spare_moves": (6, 0)}
    param_variance = {"size": 1, "spare_moves": 1}
    example_command = "up"

    def _new_episode(self) -> str:
        self.size = self.params["size"]
        self.position = self._square()
        self.stops = [self._square(avoid=self.position)]
        for _ in range(self.params["stops"] - 1):
            self.stops.append(self._square(avoid=self.stops[-1]))
        self.delivered = 0
        path = sum(_distance(a, b) for a, b in zip([self.position] + self.stops, self.stops))
        self.moves_left = path + self.params["spare_moves"]
        return (
            f"Courier on a {self.size}x{self.size} grid, row 0 at the top. Walk one square per move to deliver "
            f"{len(self.stops)} parcel(s), one address after the other.\n"
            "Moves: \\boxed{up}, \\boxed{down}, \\boxed{left}, \\boxed{right}.\n" + self.status()
        )

    def _square(self, avoid: tuple[int, int] | None = None) -> tuple[int, int]:
        while True:
            square = (self.rng.randrange(self.size), self.rng.randrange(self.size))
            if square != avoid:
                return square

    def turn_limit(self) -> int:
        return self.moves_left + 3

    def status(self) -> str:
        if self.delivered == len(self.stops):
            return "All parcels delivered."
        (r, c), (tr, tc) = self.position, self.stops[self.delivered]
        way = [f"{abs(d)} {word[d > 0]}" for d, word in ((tr - r, ("up", "down")), (tc - c, ("left", "right"))) if d]
        return f"You are at ({r},{c}); the address ({tr},{tc}) is {' and '.join(way)}. Moves left: {self.moves_left}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb not in MOVES or args:
            raise InvalidAction(f"use up, down, left or right. {self.status()}")
        dr, dc = MOVES[verb]
        r, c = self.position[0] + dr, self.position[1] + dc
        self.moves_left -= 1
        if 0 <= r < self.size and 0 <= c < self.size:
            self.position = (r, c)
            text = f"You moved {verb}."
        else:
            text = "You bumped into the fence."
        if self.position == self.stops[self.delivered]:
            self.delivered += 1
            if self.delivered == len(self.stops):
                return win(f"{text} Parcel delivered: every address served. You win!")
            text += " Parcel delivered!"
        if self.moves_left <= 0:
            return lose(f"{text} You ran out of moves with {len(self.stops) - self.delivered} parcel(s) left.")
        return Feedback(f"{text} {self.status()}")

    def _reveal(self) -> str:
        return f"{len(self.stops) - self.delivered} parcel(s) were still to deliver."

    def oracle_action(self) -> str:
        (r, c), (tr, tc) = self.position, self.stops[self.delivered]
        if r != tr:
            return "\\boxed{%s}" % ("down" if tr > r else "up")
        return "\\boxed{%s}" % ("right" if tc > c else "left")

    def random_action(self, rng) -> str:
        return "\\boxed{%s}" % rng.choice(sorted(MOVES))


def _distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])
