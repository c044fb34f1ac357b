"""Take stones from heaps against a scripted opponent; whoever takes the last stone wins."""

from functools import lru_cache
from itertools import combinations

from gymverse.env import (
    EvolvableEnv,
    Feedback,
    InvalidAction,
    command_table,
    expect_command,
    lose,
    parse_index,
    parse_int,
    win,
)


def grundy_table(largest: int, takes: list[int]) -> list[int]:
    """Sprague-Grundy value of a single heap of each size 0..largest."""
    values: list[int] = []
    for size in range(largest + 1):
        reachable = {values[size - t] for t in takes if t <= size}
        values.append(next(v for v in range(len(takes) + 1) if v not in reachable))
    return values


@lru_cache(maxsize=4096)
def shared_grundy_table(largest: int, takes: tuple[int, ...]) -> tuple[int, ...]:
    """:func:`grundy_table`, computed once per rule set (few of them exist at each level)."""
    return tuple(grundy_table(largest, list(takes)))


@lru_cache(maxsize=16)
def take_sets(options: int) -> tuple[tuple[int, ...], ...]:
    """Every rule set of ``options`` allowed takes, in increasing order: 1 and others from 2 to options + 3."""
    return tuple((1,) + others for others in combinations(range(2, options + 4), options - 1))


@lru_cache(maxsize=16)
def describe_takes(takes: tuple[int, ...]) -> str:
    """``(1, 3, 4)`` as ``1, 3 or 4``."""
    return ", ".join(map(str, takes[:-1])) + f" or {takes[-1]}"


@lru_cache(maxsize=64)
def heaps_layout(count: int) -> str:
    """A %-format that shows ``count`` heap sizes as ``[0]=5 [1]=7``."""
    return " ".join(f"[{i}]=%d" for i in range(count))


def parse_take(command: str, heaps: int, largest_take: int) -> tuple[int, int]:
    """``take HEAP COUNT`` as (heap, count)."""
    _, args = expect_command(command, ("take",), 2, "use 'take HEAP COUNT'")
    return parse_index(args[0], heaps, "heap"), parse_int(args[1], 1, largest_take, "count")


class TakeAwayDuel(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"heaps": (1, 4), "max_heap": (9, 20), "take_options": (2, 4), "opponent_skill": (0.3, 1.0)}
    param_variance = {"max_heap": 2, "opponent_skill": 0.1}
    example_command = "take 0 1"

    def _new_episode(self) -> str:
        random = self.rng.random
        rule_sets = take_sets(self.params["take_options"])
        self.takes = rule_sets[int(random() * len(rule_sets))]
        self.options = describe_takes(self.takes)
        self.skill = min(1.0, self.params["opponent_skill"])
        top = self.params["max_heap"]
        self.grundy = shared_grundy_table(top, self.takes)
        smallest = max(1, top // 2)
        sizes = top + 1 - smallest
        while True:  # the first player must have a winning move
            self.heaps = [smallest + int(random() * sizes) for _ in range(self.params["heaps"])]
            if self._value(self.heaps):
                break
        self.layout = heaps_layout(len(self.heaps))
        self.moves = command_table(parse_take, len(self.heaps), self.takes[-1])
        self.shown = self._show()  # the heaps as text, kept for status() until they change
        self.agent_moves = 0
        return (
            f"Heaps of stones: {self.shown}. You and an opponent take turns; you move first.\n"
            f"A move takes exactly {self.options} stones from one heap that has at least that many.\n"
            "Taking 1 is always allowed, so play goes on until every heap is empty; whoever takes the "
            "last stone wins.\nCommand: \\boxed{take HEAP COUNT} (heaps are numbered from 0). "
            "After your move the opponent replies at once.\nExample: \\boxed{take 0 1}"
        )

    def _value(self, heaps: list[int]) -> int:
        value = 0
        for size in heaps:
            value ^= self.grundy[size]
        return value

    def _show(self) -> str:
        return self.layout % tuple(self.heaps)

    def _random_move(self, rng) -> tuple[int, int]:
        """A legal move, all alike, drawn without listing them: any (heap, take) pair, drawn again until it
        is legal (the heaps must not all be empty)."""
        heaps, takes = self.heaps, self.takes
        options = len(takes)
        pairs = len(heaps) * options
        while True:
            heap, k = divmod(int(rng.random() * pairs), options)
            if takes[k] <= heaps[heap]:
                return heap, takes[k]

    def _best_move(self) -> tuple[int, int]:
        """A move to a position of value 0 when there is one, else the smallest take from the largest heap."""
        total = self._value(self.heaps)
        if total:  # from value 0 every move leads to a nonzero value
            for i, h in enumerate(self.heaps):
                target = total ^ self.grundy[h]
                for t in self.takes:
                    if t <= h and self.grundy[h - t] == target:
                        return i, t
        return self.heaps.index(max(self.heaps)), 1

    def turn_limit(self) -> int:
        return (sum(self.heaps) + 1) // 2 + 3

    def status(self) -> str:
        return f"Heaps: {self.shown}. Your moves so far: {self.agent_moves}."

    def _play(self, command: str) -> Feedback:
        heap, count = self.moves[command]
        if count not in self.takes or count > self.heaps[heap]:
            raise InvalidAction(f"heap {heap} has {self.heaps[heap]} stones; allowed takes are {self.options}")
        self.heaps[heap] -= count
        self.agent_moves += 1
        if not any(self.heaps):
            self.shown = self._show()
            return win(f"You take {count} from heap {heap}. You took the last stone. You win!")
        i, t = self._best_move() if self.rng.random() < self.skill else self._random_move(self.rng)
        self.heaps[i] -= t
        self.shown = self._show()
        text = f"You take {count} from heap {heap}. The opponent takes {t} from heap {i}."
        if not any(self.heaps):
            return lose(f"{text} The opponent took the last stone. You lost.")
        return Feedback(text)

    def _reveal(self) -> str:
        if not self._value(self.heaps):
            return "No move wins from here against perfect play."
        return "A winning move from here was take %d %d." % self._best_move()

    def _solve(self) -> str:
        return "\\boxed{take %d %d}" % self._best_move()

    def random_action(self, rng) -> str:
        if self.done:  # the heaps may be empty: no legal move to draw
            return "\\boxed{take 0 1}"
        return "\\boxed{take %d %d}" % self._random_move(rng)
