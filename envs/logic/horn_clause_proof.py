"""Prove a goal by firing if-then rules (modus ponens) in the right order, among distracting rules.

Every rule on the intended proof is necessary, so the budget of rule applications equals the
proof's length plus a few spare. Distractors either fire uselessly or can never fire.
"""

from functools import cache

from gymverse.env import EvolvableEnv, Feedback, command_table, expect_command, lose, parse_int, pick, win


def opening(facts: str, rules: str, goal: str, budget: int) -> str:
    # an f-string: several times faster than %-formatting a module constant this long
    return (
        f"Facts (known to be true): {facts}.\n"
        "Rules:\n"
        f"{rules}\n"
        f"Goal: establish {goal}.\n"
        "Command: \\boxed{apply K} fires rule K: if every atom in its 'if' part is known, its 'then' atom\n"
        "becomes known. Applying a rule whose 'if' part is not all known does nothing.\n"
        f"Every application counts, fired or not, and you have {budget}.\n"
        "Example: \\boxed{apply 1}"
    )


Rule = tuple[list[str], str]  # premises, conclusion


@cache
def atom_names(count: int) -> tuple[str, ...]:
    """p1 .. p<count>, made once per count."""
    return tuple(f"p{n}" for n in range(1, count + 1))


@cache
def apply_commands(count: int) -> tuple[str, ...]:
    """The boxed commands applying rules 1 .. count, made once per count."""
    return tuple(f"\\boxed{{apply {k}}}" for k in range(1, count + 1))


@cache
def rule_prefixes(count: int) -> tuple[str, ...]:
    """The openings of the lines of rules 1 .. count, made once per count."""
    return tuple(f"  Rule {k}: if " for k in range(1, count + 1))


def rule_number(command: str, count: int) -> int:
    """K in 'apply K', a rule number from 1 to count."""
    _, args = expect_command(command, ("apply",), 1, "use 'apply K' with one rule number")
    return parse_int(args[0], 1, count, "rule number")


class HornClauseProof(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"proof_steps": (3, 11), "distractors": (2, 14), "spare_applications": (4, 1)}
    param_variance = {"proof_steps": 1, "distractors": 2, "spare_applications": 1}
    example_command = "apply 1"
    extra_turns = 2

    # Sorting by random keys shuffles (cheaper than rng.shuffle).
    def _new_episode(self) -> str:
        steps, distractors = self.params["proof_steps"], self.params["distractors"]
        random = self.rng.random
        facts = 3 + steps // 3
        # Atoms get their numbers in a random order, so a name tells nothing of the atom's role. Each
        # distractor adds at most one atom and one more is blocked, so some numbers may go unused.
        atoms = sorted(atom_names(facts + steps + distractors + 1), key=lambda _: random())
        self.facts, conclusions, unused = atoms[:facts], atoms[facts : facts + steps], atoms[facts + steps :]
        self.proof = self._proof_rules(conclusions)  # in an order where each rule can fire after the ones before
        self.goal = conclusions[-1]
        self.rules = self.proof + self._distractors(distractors, conclusions, unused)
        self.rules.sort(key=lambda _: random())
        self.known = set(self.facts)
        self.known_line = ", ".join(self.facts)  # in the order the atoms became known
        self.budget: int = steps + self.params["spare_applications"]
        self.used = 0
        count = len(self.rules)
        self.commands, self.numbers = apply_commands(count), command_table(rule_number, count)  # random_action, _play
        rules = "\n".join(
            [
                f"{prefix}{' and '.join(premises)} then {conclusion}"
                for prefix, (premises, conclusion) in zip(rule_prefixes(count), self.rules)
            ]
        )
        return opening(self.known_line, rules, self.goal, self.budget)

    def _proof_rules(self, conclusions: list[str]) -> list[Rule]:
        random, rules, goal = self.rng.random, [], conclusions[-1]
        reusable, pending = list(self.facts), list[str]()  # atoms a premise may use again; conclusions not used yet
        for conclusion in conclusions:
            if conclusion == goal:
                premises, pending = pending, []
            else:
                take = 2 if len(pending) >= 3 else min(len(pending), (0, 1, 1, 2)[int(random() * 4)])
                premises = []
                while len(premises) < take:
                    premises.append(pending.pop(int(random() * len(pending))))
            reusable += premises
            # with no pending premise, one or two earlier atoms; with one, zero or one
            extra = (not premises) + (random() < 0.5) if len(premises) < 2 else 0
            while extra:
                atom = reusable[int(random() * len(reusable))]
                if atom not in premises:
                    premises.append(atom)
                extra -= 1
            pending.append(conclusion)
            rules.append((premises, conclusion))
        return rules

    def _distractors(self, count: int, conclusions: list[str], unused: list[str]) -> list[Rule]:
        random, rules = self.rng.random, []
        reachable = self.facts + conclusions
        blocked = [unused.pop()]  # never becomes known: only rules with a blocked premise conclude it
        for _ in range(count):
            kind = random()
            if kind < 0.5:  # fires, but its conclusion leads nowhere; with a second premise if kind < 0.25
                premises = [reachable[int(random() * len(reachable))]]
                if kind < 0.25:
                    other = reachable[int(random() * len(reachable))]
                    if other != premises[0]:
                        premises.append(other)
                conclusion = unused.pop()
                reachable.append(conclusion)
            else:  # can never fire
                premises = [blocked[int(random() * len(blocked))]]
                if kind < 0.75:  # and a reachable premise, before or after the blocked one
                    premises.insert(int(random() * 2), reachable[int(random() * len(reachable))])
                if random() < 0.5:
                    conclusion = conclusions[int(random() * len(conclusions))]
                else:
                    conclusion = unused.pop()
                    blocked.append(conclusion)
            rules.append((premises, conclusion))
        return rules

    def status(self) -> str:
        return f"Applications: {self.used}/{self.budget}. Known: {self.known_line}."

    def _play(self, command: str) -> Feedback:
        k = self.numbers[command]
        premises, conclusion = self.rules[k - 1]
        known = self.known
        self.used += 1
        if not known.issuperset(premises):
            missing = ", ".join([a for a in premises if a not in known])
            text = f"Rule {k} cannot fire: {missing} not known yet."
        elif conclusion in known:
            text = f"Rule {k} fires, but {conclusion} was already known."
        else:
            known.add(conclusion)
            self.known_line += ", " + conclusion
            if conclusion == self.goal:
                return win(f"Rule {k} fires: {conclusion} is now known. The goal is proved. You win!")
            text = f"Rule {k} fires: {conclusion} is now known."
        left = self.budget - self.used
        if not left:
            return lose(f"{text} No applications left. You lost. {self._reveal()}")
        return Feedback(f"{text} Applications left: {left}.")

    def _reveal(self) -> str:
        order = [self.rules.index(rule) + 1 for rule in self.proof]
        return "A shortest proof applies rules " + ", ".join(map(str, order)) + "."

    def _solve(self) -> str:
        # Proof rules are stored in firing order, and only they can make proof atoms known.
        rule = next(r for r in self.proof if r[1] not in self.known)
        return "\\boxed{apply %d}" % (self.rules.index(rule) + 1)

    def random_action(self, rng) -> str:
        return pick(rng, self.commands)
