"""Induce a hidden rule over digit strings from examples and experiments, then classify new strings."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win

EXAMPLES_PER_LABEL = 3


def holds(condition: tuple[str, int, bool], digits: tuple[int, ...]) -> bool:
    kind, arg, wanted = condition
    if kind == "even":
        fact = digits[arg] % 2 == 0
    elif kind == "big":
        fact = digits[arg] >= 5
    elif kind == "has":
        fact = arg in digits
    elif kind == "sum":
        fact = sum(digits) % 2 == 0
    else:  # "ends"
        fact = digits[0] < digits[-1]
    return fact == wanted


def describe(condition: tuple[str, int, bool]) -> str:
    kind, arg, wanted = condition
    if kind == "even":
        return f"digit {arg + 1} is {'even' if wanted else 'odd'}"
    if kind == "big":
        return f"digit {arg + 1} is {'at least 5' if wanted else 'at most 4'}"
    if kind == "has":
        return f"the string {'contains' if wanted else 'does not contain'} the digit {arg}"
    if kind == "sum":
        return f"the digit sum is {'even' if wanted else 'odd'}"
    return f"the first digit is {'smaller' if wanted else 'not smaller'} than the last"


class HiddenRuleInduction(EvolvableEnv):
    domain = "logic"
    complexity_params = {
        "conditions": (1, 3), "length": (4, 5), "items": (4, 10), "tests": (6, 4), "mistakes_allowed": (1, 0),
    }
    param_variance = {"items": 1, "tests": 1}
    example_command = "test 1 2 3 4"

    def _new_episode(self) -> str:
        self.length = self.params["length"]
        while not self._make_instance():  # a rule whose conditions contradict each other is redrawn
            pass
        self.tests_left = self.params["tests"]
        self.allowed = self.params["mistakes_allowed"]
        self.mistakes = 0
        self.answered: set[int] = set()
        L, c = self.length, len(self.rule)
        show = lambda s: "".join(map(str, s))  # noqa: E731
        return "\n".join([
            f"A hidden rule accepts or rejects strings of {L} digits. It is the AND of {c} condition(s),",
            "each of one of these kinds (P is a position 1..%d, D a digit):" % L,
            "  digit P is even / odd;  digit P is at least 5 / at most 4;",
            "  the string contains the digit D / does not contain it;  the digit sum is even / odd;",
            "  the first digit is smaller / not smaller than the last.",
            "Accepted examples: " + ", ".join(show(s) for s in self.examples[True]),
            "Rejected examples: " + ", ".join(show(s) for s in self.examples[False]),
            "Strings to classify: " + ", ".join(f"#{k + 1} {show(s)}" for k, s in enumerate(self.items)),
            "Commands:",
            f"  \\boxed{{test D1 D2 ...}}  asks whether the rule accepts a string of your choice ({self.tests_left} tests).",
            "  \\boxed{classify K yes} or \\boxed{classify K no}  says whether string #K is accepted.",
            f"Each string is classified once; a wrong call is a mistake and you may make {self.allowed}.",
            "Classify all strings to win. Example: \\boxed{test %s}" % " ".join("1" * L),
        ])

    def _make_instance(self) -> bool:
        L, rng = self.length, self.rng
        features = [("even", p) for p in range(L)] + [("big", p) for p in range(L)]
        features += [("has", d) for d in range(10)] + [("sum", 0), ("ends", 0)]
        self.rule = [(kind, arg, rng.random() < 0.5) for kind, arg in rng.sample(features, self.params["conditions"])]
        # Digits allowed at each position by the positional conditions; the rest is rejection.
        allowed = [list(range(10)) for _ in range(L)]
        for condition in self.rule:
            if condition[0] in ("even", "big"):
                p = condition[1]
                allowed[p] = [d for d in allowed[p] if holds(condition, (d,) * L)]
        wanted = EXAMPLES_PER_LABEL + self.params["items"]
        # With positional conditions only, a fresh string is always accepted: once there are enough
        # positives, only a near miss can be of use.
        only_positional = all(kind in ("even", "big") for kind, _, _ in self.rule)
        found: dict[bool, list[tuple[int, ...]]] = {True: [], False: []}
        seen = set()
        for _ in range(3000):
            mutated = found[True] and len(found[False]) < wanted and (
                rng.random() < 0.5 or (only_positional and len(found[True]) >= wanted))
            if mutated:  # try for a near miss by changing one digit of a positive
                s = list(rng.choice(found[True]))
                s[rng.randrange(L)] = rng.randrange(10)
                s = tuple(s)
            else:  # a fresh string that meets the positional conditions
                s = tuple(map(rng.choice, allowed))
            if s in seen:
                continue
            misses = sum(not holds(cond, s) for cond in self.rule)
            if misses > 1 or (mutated and misses == 0) or len(found[misses == 0]) >= wanted:
                continue
            seen.add(s)
            found[misses == 0].append(s)
            if min(len(found[True]), len(found[False])) >= wanted:
                break
        else:
            return False
        self.examples = {label: found[label][:EXAMPLES_PER_LABEL] for label in (True, False)}
        pool = found[True][EXAMPLES_PER_LABEL:] + found[False][EXAMPLES_PER_LABEL:]
        self.items = rng.sample(pool, self.params["items"])
        return True

    def _accepts(self, digits: tuple[int, ...]) -> bool:
        return all(holds(cond, digits) for cond in self.rule)

    def turn_limit(self) -> int:
        return self.tests_left + len(self.items) + 2

    def status(self) -> str:
        return (f"Classified: {len(self.answered)}/{len(self.items)}. Mistakes: {self.mistakes}/{self.allowed} "
                f"allowed. Tests left: {self.tests_left}.")

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "test" and args:
            text = "".join(args)
            if len(text) != self.length or not text.isascii() or not text.isdigit():
                raise InvalidAction(f"a test string has exactly {self.length} digits 0-9")
            if self.tests_left == 0:
                return Feedback("No tests left; classify the strings.")
            self.tests_left -= 1
            verdict = "ACCEPTED" if self._accepts(tuple(map(int, text))) else "REJECTED"
            return Feedback(f"The rule {verdict} {text}. Tests left: {self.tests_left}.")
        if verb == "classify" and len(args) == 2:
            k = parse_int(args[0].lstrip("#"), 1, len(self.items), "string number") - 1
            if args[1].lower() not in ("yes", "no"):
                raise InvalidAction("say 'yes' (accepted) or 'no' (rejected)")
            if k in self.answered:
                raise InvalidAction(f"string #{k + 1} is already classified")
            self.answered.add(k)
            truth = self._accepts(self.items[k])
            right = (args[1].lower() == "yes") == truth
            verdict = f"string #{k + 1} is {'accepted' if truth else 'rejected'} by the rule"
            self.mistakes += not right
            if self.mistakes > self.allowed:
                return lose(f"Wrong: {verdict}. Too many mistakes. {self._reveal()}")
            if len(self.answered) == len(self.items):
                return win(f"{'Right' if right else 'Wrong'}: {verdict}. All strings are classified. You win!")
            return Feedback(f"{'Right' if right else 'Wrong'}: {verdict}.")
        raise InvalidAction("use 'test D1 D2 ...' or 'classify K yes|no'")

    def _reveal(self) -> str:
        return "The rule was: " + " AND ".join(describe(c) for c in self.rule) + "."

    def oracle_action(self) -> str:
        k = min(set(range(len(self.items))) - self.answered)
        return "\\boxed{classify %d %s}" % (k + 1, "yes" if self._accepts(self.items[k]) else "no")

    def random_action(self, rng) -> str:
        if rng.random() < 0.5:
            return "\\boxed{test %s}" % " ".join(str(rng.randrange(10)) for _ in range(self.length))
        k = rng.choice(sorted(set(range(len(self.items))) - self.answered))
        return "\\boxed{classify %d %s}" % (k + 1, rng.choice(["yes", "no"]))
