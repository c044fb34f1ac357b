"""Induce a hidden rule over digit strings from examples and experiments, then classify new strings."""

from functools import cache

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win

EXAMPLES_PER_LABEL = 3
MAX_CANDIDATES = 3000  # per label; a rule that yields too few examples is redrawn
DIGITS = "0123456789"
RULES = """A hidden rule accepts or rejects strings of {length} digits. It is the AND of {conditions} condition(s),
each of one of these kinds (P is a position 1..{length}, D a digit):
  digit P is even / odd;  digit P is at least 5 / at most 4;
  the string contains the digit D / does not contain it;  the digit sum is even / odd;
  the first digit is smaller / not smaller than the last.
Accepted examples: {accepted}
Rejected examples: {rejected}
Strings to classify: {items}
Commands:
  \\boxed{{test D1 D2 ...}}  asks whether the rule accepts a string of your choice ({tests} tests).
  \\boxed{{classify K yes}} or \\boxed{{classify K no}}  says whether string #K is accepted.
Each string is classified once; a wrong call is a mistake and you may make {allowed}.
Classify all strings to win. Example: \\boxed{{test {example}}}"""


def holds(condition: tuple[str, int, bool], digits: str) -> bool:
    """Whether a string of digits (characters "0".."9") meets the condition."""
    kind, arg, wanted = condition
    if kind == "even":
        fact = digits[arg] in "02468"
    elif kind == "big":
        fact = digits[arg] >= "5"
    elif kind == "has":
        fact = DIGITS[arg] in digits
    elif kind == "sum":
        fact = sum(map(int, digits)) % 2 == 0
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


@cache
def features(length: int) -> tuple[tuple[str, int], ...]:
    """Every (kind, argument) a condition on strings of ``length`` digits can have."""
    positional = [(kind, p) for kind in ("even", "big") for p in range(length)]
    return (*positional, *(("has", d) for d in range(10)), ("sum", 0), ("ends", 0))


class HiddenRuleInduction(EvolvableEnv):
    max_complexity = 75
    complexity_params = {
        "conditions": (1, 3),
        "length": (4, 5),
        "items": (4, 10),
        "tests": (6, 4),
        "mistakes_allowed": (1, 0),
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
        self.unanswered = list(range(len(self.items)))
        return RULES.format(
            length=self.length,
            conditions=len(self.rule),
            tests=self.tests_left,
            allowed=self.allowed,
            accepted=", ".join(self.examples[True]),
            rejected=", ".join(self.examples[False]),
            items=", ".join(f"#{k + 1} {s}" for k, s in enumerate(self.items)),
            example=" ".join("1" * self.length),
        )

    def _make_instance(self) -> bool:
        rng = self.rng
        kinds = rng.sample(features(self.length), self.params["conditions"])
        self.rule = [(kind, arg, rng.random() < 0.5) for kind, arg in kinds]
        # The items' labels, as if the items were drawn from n positives and n negatives.
        n = self.params["items"]
        labels = [k < n for k in rng.sample(range(2 * n), n)]
        # Positives meet every condition; negatives are near misses, meeting all conditions but one.
        positives = self._sample(EXAMPLES_PER_LABEL + labels.count(True), [self._digits_allowed()], misses=0)
        negatives = self._sample(
            EXAMPLES_PER_LABEL + labels.count(False), [self._digits_allowed(broken) for broken in self.rule], misses=1
        )
        if positives is None or negatives is None:
            return False
        self.examples = {True: positives[:EXAMPLES_PER_LABEL], False: negatives[:EXAMPLES_PER_LABEL]}
        unused = {True: iter(positives[EXAMPLES_PER_LABEL:]), False: iter(negatives[EXAMPLES_PER_LABEL:])}
        self.items = [next(unused[label]) for label in labels]
        return True

    def _digits_allowed(self, broken: tuple[str, int, bool] | None = None) -> list[str]:
        """Per position, the digits that meet every positional condition but ``broken``, which they break."""
        allowed = [DIGITS] * self.length
        for condition in self.rule:
            if condition[0] in ("even", "big"):
                p, wanted = condition[1], condition is not broken
                allowed[p] = "".join(d for d in allowed[p] if holds(condition, d * self.length) == wanted)
        return allowed

    def _sample(self, count: int, alphabets: list[list[str]], misses: int) -> list[str] | None:
        """``count`` distinct strings that break exactly ``misses`` conditions, or None if none turn up.

        Strings are drawn in batches, one digit per position from one of ``alphabets`` (so the positional
        conditions come out as those digits make them) and kept if they break the right number of conditions.
        """
        found: dict[str, None] = {}  # insertion-ordered, for determinism
        for _ in range(MAX_CANDIDATES // count):
            letters = self.rng.choice(alphabets)
            for s in map("".join, zip(*[self.rng.choices(digits, k=count) for digits in letters])):
                if s not in found and self._misses(s) == misses:
                    found[s] = None
                    if len(found) == count:
                        return list(found)
        return None

    def _misses(self, digits: str) -> int:
        """How many of the rule's conditions the string breaks."""
        return [holds(condition, digits) for condition in self.rule].count(False)

    def _accepts(self, digits: str) -> bool:
        return self._misses(digits) == 0

    def turn_limit(self) -> int:
        return self.tests_left + len(self.items) + 2

    def status(self) -> str:
        return (
            f"Classified: {len(self.items) - len(self.unanswered)}/{len(self.items)}. Mistakes: {self.mistakes}/"
            f"{self.allowed} allowed. Tests left: {self.tests_left}."
        )

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "test" and args:
            text = "".join(args)
            if len(text) != self.length or not text.isascii() or not text.isdigit():
                raise InvalidAction(f"a test string has exactly {self.length} digits 0-9")
            if self.tests_left == 0:
                return Feedback("No tests left; classify the strings.")
            self.tests_left -= 1
            verdict = "ACCEPTED" if self._accepts(text) else "REJECTED"
            return Feedback(f"The rule {verdict} {text}.")
        if verb == "classify" and len(args) == 2:
            k = parse_int(args[0].lstrip("#"), 1, len(self.items), "string number") - 1
            answer = args[1].lower()
            if answer not in ("yes", "no"):
                raise InvalidAction("say 'yes' (accepted) or 'no' (rejected)")
            if k not in self.unanswered:
                raise InvalidAction(f"string #{k + 1} is already classified")
            self.unanswered.remove(k)
            truth = self._accepts(self.items[k])
            right = (answer == "yes") == truth
            verdict = f"string #{k + 1} is {'accepted' if truth else 'rejected'} by the rule"
            self.mistakes += not right
            if self.mistakes > self.allowed:
                return lose(f"Wrong: {verdict}. Too many mistakes. {self._reveal()}")
            if not self.unanswered:
                return win(f"{'Right' if right else 'Wrong'}: {verdict}. All strings are classified. You win!")
            return Feedback(f"{'Right' if right else 'Wrong'}: {verdict}.")
        raise InvalidAction("use 'test D1 D2 ...' or 'classify K yes|no'")

    def _reveal(self) -> str:
        return "The rule was: " + " AND ".join(describe(c) for c in self.rule) + "."

    def _solve(self) -> str:
        k = self.unanswered[0]
        return "\\boxed{classify %d %s}" % (k + 1, "yes" if self._accepts(self.items[k]) else "no")

    def random_action(self, rng) -> str:
        if rng.random() < 0.5:
            return "\\boxed{test %s}" % " ".join(rng.choices(DIGITS, k=self.length))
        return "\\boxed{classify %d %s}" % (rng.choice(self.unanswered) + 1, rng.choice(("yes", "no")))
