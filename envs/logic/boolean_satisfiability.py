"""Satisfy a 3-CNF formula by setting variables one at a time, with a limited number of moves."""

from functools import lru_cache
from itertools import permutations

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win

TRUTH_WORDS = {"true": True, "t": True, "1": True, "false": False, "f": False, "0": False}


@lru_cache(maxsize=4)
def ordered_triples(n: int) -> list[tuple[int, int, int]]:
    """Every ordered triple of distinct variables 0..n-1, so that a clause's variables are one draw
    (n^3 of them: about 22,000 at level 20)."""
    return list(permutations(range(n), 3))


class BooleanSatisfiability(EvolvableEnv):
    domain = "logic"
    complexity_params = {"variables": (4, 16), "clause_ratio": (3.0, 4.2), "spare_moves": (4, 0)}
    param_variance = {"variables": 1, "spare_moves": 1}
    example_command = "set x1 true"

    def _new_episode(self) -> str:
        n = self.params["variables"]
        self.hidden = [self.rng.random() < 0.5 for _ in range(n)]  # a planted solution
        self.clauses = [self._clause(n) for _ in range(round(self.params["clause_ratio"] * n))]
        self.value: list[bool | None] = [None] * n
        # Each clause's counts of true literals and of unset variables, kept up to date as variables
        # change, so a move costs the clauses of one variable instead of the whole formula.
        self.true_count = [0] * len(self.clauses)
        self.unset_count = [3] * len(self.clauses)
        self.occurrences: list[list[tuple[int, bool]]] = [[] for _ in range(n)]  # var -> (clause, sign)
        for k, clause in enumerate(self.clauses):
            for lit in clause:
                self.occurrences[abs(lit) - 1].append((k, lit > 0))
        self.budget = n + self.params["spare_moves"]
        self.moves = 0
        names = {v: f"x{v}" for v in range(1, n + 1)} | {-v: f"not x{v}" for v in range(1, n + 1)}
        return "\n".join([
            f"A formula over the variables x1 to x{n} is the AND of these {len(self.clauses)} clauses:",
            *[f"  C{k}: {names[a]} or {names[b]} or {names[c]}" for k, (a, b, c) in enumerate(self.clauses, 1)],
            "All variables start unset; a clause is satisfied once one of its literals is true.",
            "Goal: satisfy every clause (variables you never set do not matter).",
            f"Command: \\boxed{{set xI true}} or \\boxed{{set xI false}} sets (or changes) variable I. You have {self.budget}",
            "moves; after each one you see which clauses have all their literals false.",
            "Example: \\boxed{set x2 false}",
        ])

    def _clause(self, n: int) -> list[int]:
        """Three literals over distinct variables (+v or -v, 1-based), at least one true in the plant."""
        rng, hidden = self.rng, self.hidden
        lits = [v + 1 if rng.random() < 0.5 else -(v + 1) for v in rng.choice(ordered_triples(n))]
        if all((lit > 0) != hidden[abs(lit) - 1] for lit in lits):
            k = rng.randrange(3)
            lits[k] = -lits[k]
        return lits

    @staticmethod
    def _true(lit: int, values: list) -> bool:
        value = values[abs(lit) - 1]
        return value is not None and value == (lit > 0)

    def _open_clauses(self) -> list[int]:
        return [k for k, count in enumerate(self.true_count) if not count]

    def _assign(self, v: int, value: bool) -> None:
        old = self.value[v]
        self.value[v] = value
        if old is value:
            return
        for k, positive in self.occurrences[v]:
            self.true_count[k] += (positive is value) - (positive is old)
            if old is None:
                self.unset_count[k] -= 1

    def turn_limit(self) -> int:
        return self.budget + 2

    def status(self) -> str:
        done = len(self.clauses) - self.true_count.count(0)
        shown = " ".join(f"x{v + 1}={'T' if b else 'F'}" for v, b in enumerate(self.value) if b is not None)
        return f"Moves: {self.moves}/{self.budget}. Satisfied: {done}/{len(self.clauses)}. Set: {shown or 'none'}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "set" or len(args) != 2:
            raise InvalidAction("use 'set xI true' or 'set xI false'")
        v = parse_int(args[0].lower().removeprefix("x"), 1, len(self.value), "variable number") - 1
        if args[1].lower() not in TRUTH_WORDS:
            raise InvalidAction(f"the value must be true or false, got {args[1][:40]!r}")
        self._assign(v, TRUTH_WORDS[args[1].lower()])
        self.moves += 1
        open_clauses = self._open_clauses()
        if not open_clauses:
            return win(f"x{v + 1} = {str(self.value[v]).lower()}. Every clause is satisfied. You win!")
        if self.moves >= self.budget:
            return lose(f"Out of moves with {len(open_clauses)} clause(s) unsatisfied. You lost. {self._reveal()}")
        falsified = [k for k in open_clauses if not self.unset_count[k]]
        broken = ", ".join(f"C{k + 1}" for k in falsified) or "none"
        return Feedback(
            f"x{v + 1} = {str(self.value[v]).lower()}. Unsatisfied clauses: {len(open_clauses)}; "
            f"with every literal false: {broken}."
        )

    def _reveal(self) -> str:
        return "One solution: " + " ".join(f"x{v + 1}={'T' if b else 'F'}" for v, b in enumerate(self.hidden)) + "."

    def oracle_action(self) -> str:
        # Any unsatisfied clause has a literal true in the plant whose variable is not yet at its
        # planted value: fix that variable. Variables at their planted value are never touched again.
        clause = self.clauses[self._open_clauses()[0]]
        lit = next(lit for lit in clause if self._true(lit, self.hidden))
        return "\\boxed{set x%d %s}" % (abs(lit), "true" if lit > 0 else "false")

    def random_action(self, rng) -> str:
        return "\\boxed{set x%d %s}" % (rng.randrange(len(self.value)) + 1, rng.choice(["true", "false"]))
