"""Find the summit of a hidden mountain array (it rises, then falls) by reading one cell at a time."""

from gymverse.env import EvolvableEnv, Feedback, expect_command, lose, parse_index, win

_MIX = 0x9E3779B97F4A7C15  # odd 64-bit constants of splitmix64
_MIX2 = 0xBF58476D1CE4E5B9
_MASK = (1 << 64) - 1
RULES = (
    "A hidden array has %d integers, indexed 0 to %d. It is a mountain: the values strictly\n"
    "rise up to one summit, then strictly fall (the summit may also be the first or last cell).\n"
    "Commands: \\boxed{read i} shows the value at index i (you have %d reads);\n"
    "\\boxed{answer i} claims that index i is the summit and ends the game.\n"
    "Example: \\boxed{read 0}"
)


class PeakFinder(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"length": (8, 4000), "spare_reads": (12, 1)}
    param_variance = {"length": 2, "spare_reads": 1}
    example_command = "read 0"
    extra_turns = 5

    def _new_episode(self) -> str:
        self.length = n = self.params["length"]
        # Values are derived on demand, so reset stays O(1): a random base and slopes on each side of
        # the summit, plus per-cell jitter smaller than the slope (so both sides stay strictly monotone).
        self.salt = self.rng.getrandbits(64)
        self.summit = int(self.rng.random() * n)
        self.base = int(self.rng.random() * 1000)
        self.rise, self.fall = 5 + int(self.rng.random() * 56), 5 + int(self.rng.random() * 56)  # each in 5..60
        self.known: dict[int, int] = {}
        self.lo, self.hi = 0, n - 1  # the solver's search window
        self.budget: int = 2 * n.bit_length() + self.params["spare_reads"]  # n.bit_length() == ceil(log2(n + 1))
        self.reads = 0
        return RULES % (n, n - 1, self.budget)

    def value(self, i: int) -> int:
        x = ((i + 1) * _MIX + self.salt) & _MASK
        x = ((x ^ (x >> 31)) * _MIX2) & _MASK
        top = self.base + self.summit * self.rise
        if i <= self.summit:
            return top - (self.summit - i) * self.rise + (x >> 16) % self.rise
        return top - (i - self.summit) * self.fall + (x >> 16) % self.fall

    def status(self) -> str:
        return f"Reads used: {self.reads}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = expect_command(command, ("read", "answer"), 1, "use 'read i' or 'answer i' with one index")
        index = parse_index(args[0], self.length)
        if verb == "read":
            if self.reads >= self.budget:
                return lose("No reads left. You lost.")
            self.reads += 1
            self.known[index] = self.value(index)
            return Feedback(f"value[{index}] = {self.known[index]}")
        if index == self.summit:
            return win(f"Index {index} is the summit. You win!")
        return lose(f"Index {index} is not the summit. {self._reveal()} You lost.")

    def _reveal(self) -> str:
        return f"The summit was at index {self.summit}."

    def _solve(self) -> str:
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
        command = "\\boxed{answer %d}" if rng.random() < 0.2 else "\\boxed{read %d}"
        return command % int(rng.random() * self.length)
