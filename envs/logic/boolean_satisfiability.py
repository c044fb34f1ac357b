"""Satisfy a 3-CNF formula by setting variables one at a time, with a limited number of moves."""

from functools import lru_cache, reduce
from itertools import permutations, product
from operator import or_

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, command_table, expect_command, lose, parse_int, win

TRUTH_WORDS = {"true": True, "t": True, "1": True, "false": False, "f": False, "0": False}
# How a clause's three literals relate to the planted solution (1: true in it, -1: false in it), drawn as if
# each sign were a coin flip and a clause false in the plant then had one of its literals negated at random.
AGREEMENTS = [signs for signs in product((1, -1), repeat=3) if 1 in signs] * 3 + [(1, -1, -1), (-1, 1, -1), (-1, -1, 1)]
OPENING = (
    "A formula over the variables x1 to x%d is the AND of these %d clauses:\n%s\n"
    "All variables start unset; a clause is satisfied once one of its literals is true.\n"
    "Goal: satisfy every clause (variables you never set do not matter).\n"
    "Command: \\boxed{set xI true} or \\boxed{set xI false} sets (or changes) variable I. You have %d\n"
    "moves; after each one you see which clauses have all their literals false.\n"
    "Example: \\boxed{set x2 false}"
)


@lru_cache(maxsize=4)
def ordered_triples(n: int) -> list[tuple[int, int, int]]:
    """Every ordered triple of distinct variables 0..n-1, so that a clause's variables are one draw
    (n^3 of them: about 22,000 at level 20)."""
    return list(permutations(range(n), 3))


@lru_cache(maxsize=64)
def literal_names(n: int) -> dict[int, str]:
    return {v: f"x{v}" for v in range(1, n + 1)} | {-v: f"not x{v}" for v in range(1, n + 1)}


@lru_cache(maxsize=64)
def set_commands(n: int) -> tuple[str, ...]:
    """Every well-formed move over n variables, for random play."""
    return tuple(f"\\boxed{{set x{v + 1} {word}}}" for v in range(n) for word in ("true", "false"))


def parse_move(command: str, n: int) -> tuple[int, bool]:
    """``set xI true|false`` as (variable index from 0, value)."""
    _, args = expect_command(command, ("set",), 2, "use 'set xI true' or 'set xI false'")
    v = parse_int(args[0].lower().removeprefix("x"), 1, n, "variable number") - 1
    value = TRUTH_WORDS.get(args[1].lower())
    if value is None:
        raise InvalidAction(f"the value must be true or false, got {args[1][:40]!r}")
    return v, value


def clause_list(mask: int) -> str:
    """The clauses of a bitmask (bit k: clause k + 1), as 'C1, C4'."""
    names = []
    while mask:
        lowest = mask & -mask
        names.append(f"C{lowest.bit_length()}")
        mask ^= lowest
    return ", ".join(names)


class BooleanSatisfiability(EvolvableEnv):
    max_complexity = 50
    complexity_params = {"variables": (4, 16), "clause_ratio": (3.0, 4.2), "spare_moves": (4, 0)}
    param_variance = {"variables": 1, "spare_moves": 1}
    example_command = "set x1 true"
    extra_turns = 2

    def _new_episode(self) -> str:
        rng, n = self.rng, self.params["variables"]
        m = round(self.params["clause_ratio"] * n)
        self.hidden = [rng.random() < 0.5 for _ in range(n)]  # a planted solution
        planted = [v if value else -v for v, value in enumerate(self.hidden, 1)]  # each variable's literal true in it
        self.clauses = [
            [sa * planted[a], sb * planted[b], sc * planted[c]]
            for (a, b, c), (sa, sb, sc) in zip(rng.choices(ordered_triples(n), k=m), rng.choices(AGREEMENTS, k=m))
        ]
        # Sets of clauses are bitmasks (bit k: clause k), so a move costs a few integer operations.
        self.satisfies = dict.fromkeys(literal_names(n), 0)  # literal -> the clauses it makes true
        for k, (a, b, c) in enumerate(self.clauses):
            bit = 1 << k
            self.satisfies[a] |= bit
            self.satisfies[b] |= bit
            self.satisfies[c] |= bit
        # variable -> the clauses that name it, for the variables not set yet
        self.unset_mentions = {v: self.satisfies[v + 1] | self.satisfies[-v - 1] for v in range(n)}
        self.every_clause = (1 << m) - 1
        self.unsettled = self.every_clause  # the clauses with a variable still unset
        self.value: list[bool | None] = [None] * n
        self.satisfied_by = [0] * n  # the clauses each variable's current value satisfies
        self.satisfied = 0
        self.shown = [""] * n  # each set variable as "x3=T", for the status line
        self.parsed = command_table(parse_move, n)
        self.budget: int = n + self.params["spare_moves"]
        self.moves = 0
        names = literal_names(n)
        lines = "\n".join(
            [f"  C{k}: {names[a]} or {names[b]} or {names[c]}" for k, (a, b, c) in enumerate(self.clauses, 1)]
        )
        return OPENING % (n, m, lines, self.budget)

    @staticmethod
    def _true(lit: int, values: list) -> bool:
        value = values[abs(lit) - 1]
        return value is not None and value == (lit > 0)

    def _assign(self, v: int, value: bool) -> None:
        self.value[v] = value
        self.satisfied_by[v] = self.satisfies[v + 1 if value else -(v + 1)]
        self.satisfied = reduce(or_, self.satisfied_by)
        self.shown[v] = f"x{v + 1}={'T' if value else 'F'}"
        if self.unset_mentions.pop(v, None) is not None:  # v is set for the first time
            self.unsettled = reduce(or_, self.unset_mentions.values(), 0)

    def status(self) -> str:
        return (
            f"Moves: {self.moves}/{self.budget}. Satisfied: {self.satisfied.bit_count()}/{len(self.clauses)}. "
            f"Set: {' '.join(filter(None, self.shown)) or 'none'}."
        )

    def _play(self, command: str) -> Feedback:
        v, value = self.parsed[command]
        self._assign(v, value)
        self.moves += 1
        unsatisfied = len(self.clauses) - self.satisfied.bit_count()
        if not unsatisfied:
            return win(f"x{v + 1} = {'true' if value else 'false'}. Every clause is satisfied. You win!")
        if self.moves >= self.budget:
            return lose(f"Out of moves with {unsatisfied} clause(s) unsatisfied. You lost. {self._reveal()}")
        falsified = self.every_clause & ~(self.satisfied | self.unsettled)
        return Feedback(
            f"x{v + 1} = {'true' if value else 'false'}. Unsatisfied clauses: {unsatisfied}; "
            f"with every literal false: {clause_list(falsified) or 'none'}."
        )

    def _reveal(self) -> str:
        return "One solution: " + " ".join(f"x{v + 1}={'T' if b else 'F'}" for v, b in enumerate(self.hidden)) + "."

    def _solve(self) -> str:
        # Any unsatisfied clause has a literal true in the plant whose variable is not yet at its
        # planted value: fix that variable. Variables at their planted value are never touched again.
        clause = next(c for k, c in enumerate(self.clauses) if not self.satisfied >> k & 1)
        lit = next(lit for lit in clause if self._true(lit, self.hidden))
        return "\\boxed{set x%d %s}" % (abs(lit), "true" if lit > 0 else "false")

    def random_action(self, rng) -> str:
        return rng.choice(set_commands(len(self.value)))
