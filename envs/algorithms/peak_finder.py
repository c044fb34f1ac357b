"""Find a peak in a hidden array by reading one cell at a time, within a read budget."""

import math

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win


class PeakFinder(EvolvableEnv):
    domain = "algorithms"
    complexity_params = {"length": (8, 4000), "spare_reads": (12, 1)}
    param_variance = {"length": 2, "spare_reads": 1}
    example_command = "read 0"

    def _new_episode(self) -> str:
        n = self.params["length"]
        self.values = [self.rng.randint(0, 10 * n) for _ in range(n)]
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

    def turn_limit(self) -> int:
        return self.budget + 5

    def status(self) -> str:
        return f"Reads used: {self.reads}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb not in ("read", "answer") or len(args) != 1:
            raise InvalidAction("use 'read i' or 'answer i' with one index")
        index = parse_index(args[0], len(self.values))
        if verb == "read":
            if self.reads >= self.budget:
                return lose("No reads left. You lost.")
            self.reads += 1
            self.known[index] = self.values[index]
            return Feedback(f"value[{index}] = {self.values[index]}")
        if self._is_peak(index):
            return win(f"Index {index} is a peak. You win!")
        return lose(f"Index {index} is not a peak. You lost.")

    def _is_peak(self, i: int) -> bool:
        v = self.values
        return all(v[i] >= v[j] for j in (i - 1, i + 1) if 0 <= j < len(v))

    def _reveal(self) -> str:
        return f"A peak was at index {max(range(len(self.values)), key=self.values.__getitem__)}."

    def oracle_action(self) -> str:
        # Binary search on the slope: compare mid and mid+1, keep the uphill half.
        if self.lo == self.hi:
            return "\\boxed{answer %d}" % self.lo
        mid = (self.lo + self.hi) // 2
        for i in (mid, mid + 1):
            if i not in self.known:
                return "\\boxed{read %d}" % i
        if self.known[mid] < self.known[mid + 1]:
            self.lo = mid + 1
        else:
            self.hi = mid
        return self.oracle_action()

    def random_action(self, rng) -> str:
        verb = "answer" if rng.random() < 0.2 else "read"
        return "\\boxed{%s %d}" % (verb, rng.randrange(len(self.values)))
