"""Find a peak in a hidden array by reading one cell at a time, within a read budget."""

import math

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win

_MIX = 0x9E3779B97F4A7C15  # odd 64-bit constants of splitmix64
_MIX2 = 0xBF58476D1CE4E5B9
_MASK = (1 << 64) - 1


class PeakFinder(EvolvableEnv):
    domain = "algorithms"
    complexity_params = {"length": (8, 4000), "spare_reads": (12, 1)}
    param_variance = {"length": 2, "spare_reads": 1}
    example_command = "read 0"

    def _new_episode(self) -> str:
        self.length = n = self.params["length"]
        self.salt = self.rng.getrandbits(64)  # values are derived on demand, so reset stays O(1)
        self.known: dict[int, int] = {}
        self.lo, self.hi = 0, n - 1  # the solver's search window
        self.budget = 2 * math.ceil(math.log2(n + 1)) + self.params["spare_reads"]
        self.reads = 0
        return (
            f"A hidden array has {n} integers, indexed 0 to {n - 1}. A peak is an index whose value is\n"
            "at least that of each existing neighbour (every array has one).\n"
            f"Commands: \\boxed{{read i}} shows the value at index i (you have {self.budget} reads);\n"
            "\\boxed{answer i} claims that index i is a peak and ends the game.\n"
            "Example: \\boxed{read 0}"
        )

    def value(self, i: int) -> int:
        x = ((i + 1) * _MIX + self.salt) & _MASK
        x = ((x ^ (x >> 31)) * _MIX2) & _MASK
        return (x >> 16) % (10 * self.length + 1)

    def turn_limit(self) -> int:
        return self.budget + 5

    def status(self) -> str:
        return f"Reads used: {self.reads}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb not in ("read", "answer") or len(args) != 1:
            raise InvalidAction("use 'read i' or 'answer i' with one index")
        index = parse_index(args[0], self.length)
        if verb == "read":
            if self.reads >= self.budget:
                return lose("No reads left. You lost.")
            self.reads += 1
            self.known[index] = self.value(index)
            return Feedback(f"value[{index}] = {self.known[index]}")
        if self._is_peak(index):
            return win(f"Index {index} is a peak. You win!")
        return lose(f"Index {index} is not a peak. You lost.")

    def _is_peak(self, i: int) -> bool:
        return all(self.value(i) >= self.value(j) for j in (i - 1, i + 1) if 0 <= j < self.length)

    def _reveal(self) -> str:
        lo, hi = 0, self.length - 1
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (mid + 1, hi) if self.value(mid) < self.value(mid + 1) else (lo, mid)
        return f"A peak was at index {lo}."

    def oracle_action(self) -> str:
        # Binary search on the slope: compare mid and mid+1, keep the uphill half.
        while self.lo < self.hi:
            mid = (self.lo + self.hi) // 2
            for i in (mid, mid + 1):
                if i not in self.known:
                    return "\\boxed{read %d}" % i
            if self.known[mid] < self.known[mid + 1]:
                self.lo = mid + 1
            else:
                self.hi = mid
        return "\\boxed{answer %d}" % self.lo

    def random_action(self, rng) -> str:
        verb = "answer" if rng.random() < 0.2 else "read"
        return "\\boxed{%s %d}" % (verb, rng.randrange(self.length))
