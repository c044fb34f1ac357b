"""Prove a goal by firing if-then rules (modus ponens) in the right order, among distracting rules.

Every rule on the intended proof is necessary, so the budget of rule applications equals the
proof's length plus a few spare. Distractors either fire uselessly or can never fire.
"""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win


class HornClauseProof(EvolvableEnv):
    domain = "logic"
    complexity_params = {"proof_steps": (3, 11), "distractors": (2, 14), "spare_applications": (4, 1)}
    param_variance = {"proof_steps": 1, "distractors": 2, "spare_applications": 1}
    example_command = "apply 1"

    def _new_episode(self) -> str:
        steps = self.params["proof_steps"]
        self.atoms = 0
        self.facts = [self._atom() for _ in range(3 + steps // 3)]
        self.proof = self._proof_rules(steps)  # in an order where each rule can fire after the ones before
        self.goal = self.proof[-1][1]
        rules = self.proof + self._distractors(self.params["distractors"])
        self.rng.shuffle(rules)
        self.rules = rules
        self.names = [f"p{k}" for k in self.rng.sample(range(1, self.atoms + 1), self.atoms)]
        self.known = set(self.facts)
        self._update_known_line()
        self.budget = steps + self.params["spare_applications"]
        self.used = 0
        return "\n".join([
            "Facts (known to be true): " + ", ".join([self.names[a] for a in self.facts]) + ".",
            "Rules:",
            *[f"  Rule {k}: {self._rule_text(r)}" for k, r in enumerate(self.rules, 1)],
            f"Goal: establish {self.names[self.goal]}.",
            "Command: \\boxed{apply K} fires rule K: if every atom in its 'if' part is known, its 'then' atom",
            "becomes known. Applying a rule whose 'if' part is not all known does nothing.",
            f"Every application counts, fired or not, and you have {self.budget}.",
            "Example: \\boxed{apply 1}",
        ])

    def _atom(self) -> int:
        self.atoms += 1
        return self.atoms - 1

    def _proof_rules(self, steps: int) -> list[tuple[list[int], int]]:
        rng, rules, pending, used = self.rng, [], [], list(self.facts)
        for k in range(steps):
            if k == steps - 1:
                take = len(pending)
            elif len(pending) >= 3:
                take = 2
            else:
                take = min(len(pending), rng.choice([0, 1, 1, 2]))
            premises = rng.sample(pending, take) if take else []
            pending = [a for a in pending if a not in premises]
            extra = [a for a in used if a not in premises]
            more = min(len(extra), rng.randint(1 if take == 0 else 0, max(0, 2 - take)))
            if more:  # sampling nothing draws nothing, so skipping it keeps the random stream
                premises += rng.sample(extra, more)
            used += premises
            conclusion = self._atom()
            pending.append(conclusion)
            rules.append((premises, conclusion))
        return rules

    def _distractors(self, count: int) -> list[tuple[list[int], int]]:
        rng, rules = self.rng, []
        reachable = self.facts + [c for _, c in self.proof]
        blocked = [self._atom()]  # never becomes known: only rules with a blocked premise conclude it
        for _ in range(count):
            if rng.random() < 0.5:  # fires, but its conclusion leads nowhere
                premises = rng.sample(reachable, min(len(reachable), rng.randint(1, 2)))
                conclusion = self._atom()
                reachable.append(conclusion)
            else:  # can never fire
                premises = [rng.choice(blocked)] + rng.sample(reachable, rng.randint(0, 1))
                if rng.random() < 0.5:
                    conclusion = rng.choice([c for _, c in self.proof])
                else:
                    conclusion = self._atom()
                    blocked.append(conclusion)
            rng.shuffle(premises)
            rules.append((premises, conclusion))
        return rules

    def _rule_text(self, rule: tuple[list[int], int]) -> str:
        premises, conclusion = rule
        return f"if {' and '.join([self.names[a] for a in premises])} then {self.names[conclusion]}"

    def _update_known_line(self) -> None:
        """The known atoms as the status line lists them, rebuilt only when one becomes known."""
        self.known_line = ", ".join(sorted((self.names[a] for a in self.known), key=lambda s: int(s[1:])))

    def turn_limit(self) -> int:
        return self.budget + 2

    def status(self) -> str:
        return f"Applications: {self.used}/{self.budget}. Known: {self.known_line}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "apply" or len(args) != 1:
            raise InvalidAction("use 'apply K' with one rule number")
        k = parse_int(args[0], 1, len(self.rules), "rule number") - 1
        premises, conclusion = self.rules[k]
        self.used += 1
        missing = [self.names[a] for a in premises if a not in self.known]
        if missing:
            text = f"Rule {k + 1} cannot fire: {', '.join(missing)} not known yet."
        elif conclusion in self.known:
            text = f"Rule {k + 1} fires, but {self.names[conclusion]} was already known."
        else:
            self.known.add(conclusion)
            self._update_known_line()
            text = f"Rule {k + 1} fires: {self.names[conclusion]} is now known."
        if self.goal in self.known:
            return win(text + " The goal is proved. You win!")
        if self.used >= self.budget:
            return lose(text + f" No applications left. You lost. {self._reveal()}")
        return Feedback(text + f" Applications left: {self.budget - self.used}.")

    def _reveal(self) -> str:
        order = [self.rules.index(rule) + 1 for rule in self.proof]
        return "A shortest proof applies rules " + ", ".join(map(str, order)) + "."

    def oracle_action(self) -> str:
        # Proof rules are stored in firing order, and only they can make proof atoms known.
        rule = next(r for r in self.proof if r[1] not in self.known)
        return "\\boxed{apply %d}" % (self.rules.index(rule) + 1)

    def random_action(self, rng) -> str:
        return "\\boxed{apply %d}" % (rng.randrange(len(self.rules)) + 1)
