"""Deliver parcels on a grid: walk one square at a time to each address in turn, within a move budget.

The status line (``info["suffix"]``, shown after the latest observation) gives the whole state
(position, next address, moves left), so the game can be played from the latest observation and its
status alone: a small model learns its early levels in minutes, which is what the CPU training demo
relies on. Higher levels mean larger grids, more stops and
fewer spare moves, so every wasted step counts.
"""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, win

MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
BOXED_MOVES = tuple("\\boxed{%s}" % move for move in sorted(MOVES))
RULES = (
    "Courier on a %dx%d grid, row 0 at the top. Walk one square per move to deliver %d parcel(s), "
    "one address after the other.\nMoves: \\boxed{up}, \\boxed{down}, \\boxed{left}, \\boxed{right}.\n"
)


class GridCourier(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"size": (3, 10), "stops": (1, 4), "spare_moves": (6, 0)}
    param_variance = {"size": 1, "spare_moves": 1}
    example_command = "up"

    def _new_episode(self) -> str:
        self.size = self.params["size"]
        self.position = here = self._square()
        self.stops, path = [], 0
        for _ in range(self.params["stops"]):
            stop = self._square(avoid=here)
            self.stops.append(stop)
            path += abs(stop[0] - here[0]) + abs(stop[1] - here[1])
            here = stop
        self.delivered = 0
        self.moves_left = path + self.params["spare_moves"]
        return RULES % (self.size, self.size, len(self.stops))

    def _square(self, avoid: tuple[int, int] | None = None) -> tuple[int, int]:
        while True:
            square = divmod(int(self.rng.random() * self.size * self.size), self.size)
            if square != avoid:
                return square

    def turn_limit(self) -> int:
        return self.moves_left + 3

    def status(self) -> str:
        if self.delivered == len(self.stops):
            return "All parcels delivered."
        (r, c), (tr, tc) = self.position, self.stops[self.delivered]
        if r == tr:
            way = _steps(tc - c, "left", "right")
        elif c == tc:
            way = _steps(tr - r, "up", "down")
        else:
            way = f"{_steps(tr - r, 'up', 'down')} and {_steps(tc - c, 'left', 'right')}"
        return f"You are at ({r},{c}); the address ({tr},{tc}) is {way}. Moves left: {self.moves_left}."

    def _play(self, command: str) -> Feedback:
        verb = command.replace(",", " ").strip().lower()  # one word, as split_command reads it
        if verb not in MOVES:
            raise InvalidAction("use up, down, left or right.")
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
        return Feedback(text)

    def _reveal(self) -> str:
        return f"{len(self.stops) - self.delivered} parcel(s) were still to deliver."

    def _solve(self) -> str:
        (r, c), (tr, tc) = self.position, self.stops[self.delivered]
        if r != tr:
            return "\\boxed{%s}" % ("down" if tr > r else "up")
        return "\\boxed{%s}" % ("right" if tc > c else "left")

    def random_action(self, rng) -> str:
        return BOXED_MOVES[int(rng.random() * 4)]


def _steps(delta: int, back: str, forward: str) -> str:
    """``-2, "up", "down"`` -> ``"2 up"``."""
    return f"{-delta} {back}" if delta < 0 else f"{delta} {forward}"
