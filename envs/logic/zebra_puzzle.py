"""An Einstein (zebra) puzzle: deduce who lives where from clues, then answer one attribute at a time."""

from functools import cache

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win

# attribute -> (how a person is named by it, its values); every value word is unique
ATTRIBUTES = {
    "color": ("the person in the {} house", "red green blue yellow white black orange purple"),
    "pet": ("the {} owner", "dog cat bird fish horse rabbit turtle hamster"),
    "drink": ("the {} drinker", "tea coffee milk juice water soda cocoa lemonade"),
    "nation": ("the {}", "Brit Swede Dane German Norwegian Spaniard Italian Japanese"),
    "hobby": ("the {} fan", "chess painting hiking cooking reading dancing gardening singing"),
    "food": ("the {} eater", "apples bread cheese pasta rice soup tacos sushi"),
    "car": ("the {} driver", "Ford Toyota BMW Honda Audi Fiat Volvo Tesla"),
    "music": ("the {} listener", "jazz rock blues pop opera reggae folk techno"),
}
NAMES = list(ATTRIBUTES)
WORDS = [values.split() for _, values in ATTRIBUTES.values()]
# Clues start with the person, so the person is written with a capital letter.
PEOPLE = [
    [(template[0].upper() + template[1:]).format(w) for w in values.split()] for template, values in ATTRIBUTES.values()
]
OBJECTS = [[template.format(w) for w in values.split()] for template, values in ATTRIBUTES.values()]
VALUE_NUMBER = [{w.lower(): v for v, w in enumerate(words)} for words in WORDS]  # per attribute
CLUE_TEXT = {  # {0} is x, {1} is y (a house number for "at")
    "at": "{0} lives in house {1}.",
    "same": "{0} and {1} live in the same house.",
    "diff": "{0} and {1} live in different houses.",
    "left": "{0} lives directly left of {1}.",
    "next": "{0} lives next to {1}.",
    "before": "{0} lives somewhere left of {1}.",
}
CLUE_WEIGHTS = {"at": 1, "same": 5, "diff": 2, "left": 2, "next": 3, "before": 2}
CLUE_DRAW = tuple(kind for kind, weight in CLUE_WEIGHTS.items() for _ in range(weight))  # drawn uniformly
RULES = """{n} houses stand in a row, numbered 1 (left) to {n} (right); one person lives in each.
Each attribute below takes each of its values in exactly one house:
{attributes}
Clues:
{clues}
Goal: work out every attribute of every house.
Command: \\boxed{{answer ATTRIBUTE V1 V2 ...}} gives the values of one attribute for houses 1 to
{n} in order. A right answer is locked in; a wrong one is a mistake, and you may make only
{allowed} mistake(s) (one more ends the game). Answer every attribute to win.
Example: \\boxed{{answer {example}}}"""


@cache
def value_lines(attributes: int, n: int) -> str:
    """The first ``attributes`` attributes with their first ``n`` values, one line each."""
    return "\n".join(f"  {a}: {', '.join(words[:n])}" for a, words in zip(NAMES[:attributes], WORDS))


class ZebraPuzzle(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"houses": (3, 5), "attributes": (3, 5), "mistakes_allowed": (2, 0)}
    param_variance = {"houses": 0.6, "attributes": 0.6}
    example_command = "answer color red green blue"

    def _new_episode(self) -> str:
        n = self.n = min(self.params["houses"], 8)
        self.names = NAMES[: min(self.params["attributes"], len(NAMES))]
        self.values = [words[:n] for words in WORDS[: len(self.names)]]
        # value id a*n+v; house[vid] is its house (0-based) in the solution, resident[a*n+h] the value id there
        self.house = []
        for _ in self.names:
            houses = list(range(n))
            self.rng.shuffle(houses)
            self.house += houses
        self.resident = [0] * len(self.house)
        for vid, h in enumerate(self.house):
            self.resident[vid - vid % n + h] = vid
        self.clues = self._make_clues()
        self.unsolved = list(range(len(self.names)))
        self.mistakes = 0
        self.allowed = self.params["mistakes_allowed"]
        self._update_status()
        return RULES.format(
            n=n,
            allowed=self.allowed,
            example=f"{self.names[0]} {' '.join(self.values[0])}",
            attributes=value_lines(len(self.names), n),
            clues="\n".join([f"  {k}. {self._clue_text(c)}" for k, c in enumerate(self.clues, 1)]),
        )

    # -- puzzle generation: add true clues until propagation alone fixes every value ---------------
    def _make_clues(self) -> list[tuple[str, int, int]]:
        n = self.n
        self.domains = dom = [(1 << n) - 1] * len(self.house)  # bit h: the value may live in house h
        # value id -> the constraints that mention it: its attribute's "all in different houses" first
        distinct = [("distinct", first, 0) for first in range(0, len(dom), n)]
        self.watch = [[distinct[vid // n]] for vid in range(len(dom))]
        clues: list[tuple[str, int, int]] = []
        misses, solved = 0, False
        while not solved:
            clue = self._random_clue() if misses < 6 else self._position_clue()
            # The domains are a fixpoint of the clues so far, so a clue that narrows neither of its
            # own values adds nothing; one that does is kept and propagated.
            changes = [(vid, new) for vid, new in self._apply(clue) if new != dom[vid]]
            if not changes:
                misses += 1
                continue
            misses = 0
            clues.append(clue)
            kind, x, y = clue
            self.watch[x].append(clue)
            if kind != "at":
                self.watch[y].append(clue)
            self._propagate(changes)
            solved = sum(map(int.bit_count, dom)) == len(dom)  # one house left for every value
        return clues

    def _position_clue(self) -> tuple[str, int, int]:
        vid = next(v for v, d in enumerate(self.domains) if d & (d - 1))
        return ("at", vid, self.house[vid])

    def _random_clue(self) -> tuple[str, int, int]:
        """A true clue about a random value x; y is drawn uniformly from the values the kind allows."""
        n, random, house = self.n, self.rng.random, self.house
        attributes = len(self.names)
        x = int(random() * len(house))
        h = house[x]
        kind = CLUE_DRAW[int(random() * len(CLUE_DRAW))]
        if kind in ("same", "diff") and attributes > 1:
            # across attributes only: inside one attribute they say nothing new
            other = (x // n + 1 + int(random() * (attributes - 1))) % attributes
            if kind == "diff":
                h = (h + 1 + int(random() * (n - 1))) % n
            return (kind, x, self.resident[other * n + h])
        if kind == "left" and h + 1 < n:
            y_house = h + 1
        elif kind == "next":  # either neighbour, evenly where there are two
            y_house = h + 1 if h == 0 or (h + 1 < n and random() < 0.5) else h - 1
        elif kind == "before" and h + 1 < n:
            y_house = h + 1 + int(random() * (n - 1 - h))
        else:
            return ("at", x, h)
        return (kind, x, self.resident[int(random() * attributes) * n + y_house])

    def _apply(self, constraint: tuple[str, int, int]) -> list[tuple[int, int]]:
        """``(value id, narrowed domain)`` for the values one constraint can narrow, given the others' domains."""
        kind, x, y = constraint
        dom = self.domains
        if kind == "distinct":
            # One attribute's values (ids x..x+n-1) take distinct houses: a value whose house is known
            # rules that house out for the others, and a house only one value can take is that value's.
            members = dom[x : x + self.n]
            known = once = twice = 0
            for d in members:
                if not d & (d - 1):
                    known |= d
                twice |= once & d
                once |= d
            only = once & ~twice  # houses that a single value can take
            return [(x + i, (d & only) or d & ~known) for i, d in enumerate(members) if d & (d - 1)]
        dx, dy = dom[x], dom[y]
        full = (1 << self.n) - 1
        if kind == "at":
            return [(x, dx & (1 << y))]
        if kind == "same":
            return [(x, dx & dy), (y, dx & dy)]
        if kind == "diff":
            return [(x, dx & ~dy if not dy & (dy - 1) else dx), (y, dy & ~dx if not dx & (dx - 1) else dy)]
        if kind == "left":
            return [(x, dx & (dy >> 1)), (y, dy & (dx << 1) & full)]
        if kind == "next":
            return [(x, dx & ((dy << 1) | (dy >> 1)) & full), (y, dy & ((dx << 1) | (dx >> 1)) & full)]
        # before: x lives left of y's rightmost house, y right of x's leftmost one
        lowest = (dx & -dx).bit_length()
        return [(x, dx & ((1 << (dy.bit_length() - 1)) - 1)), (y, dy & ~((1 << lowest) - 1))]

    def _propagate(self, changes: list[tuple[int, int]]) -> None:
        """Narrow the domains by ``changes``, then by every consequence, up to a fixpoint of all constraints."""
        dom, watch = self.domains, self.watch
        narrowed = []  # values whose constraints are to be applied again
        for vid, new in changes:
            dom[vid] = new
            narrowed.append(vid)
        while narrowed:
            for constraint in watch[narrowed.pop()]:
                for vid, new in self._apply(constraint):
                    if new != dom[vid]:
                        dom[vid] = new
                        narrowed.append(vid)

    def _clue_text(self, clue: tuple[str, int, int]) -> str:
        kind, x, y = clue
        n = self.n
        person = PEOPLE[x // n][x % n]
        return CLUE_TEXT[kind].format(person, y + 1 if kind == "at" else OBJECTS[y // n][y % n])

    # -- play ---------------------------------------------------------------------------------------
    def turn_limit(self) -> int:
        return len(self.names) + self.allowed + 2

    def status(self) -> str:
        return self._status

    def _update_status(self) -> None:
        solved = ", ".join([a for k, a in enumerate(self.names) if k not in self.unsolved]) or "none"
        self._status = f"Solved: {solved}. Mistakes: {self.mistakes}/{self.allowed} allowed."

    def _row(self, a: int) -> list[str]:
        row = [""] * self.n
        for v, word in enumerate(self.values[a]):
            row[self.house[a * self.n + v]] = word
        return row

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "answer" or not args:
            raise InvalidAction("use 'answer ATTRIBUTE V1 ... Vn'")
        name, n = args[0].lower(), self.n
        if name not in self.names:
            raise InvalidAction(f"unknown attribute {args[0][:40]!r}; attributes: {', '.join(self.names)}")
        a = self.names.index(name)
        numbers = VALUE_NUMBER[a]
        given = [numbers.get(w.lower(), n) for w in args[1:]]  # value numbers, n for a word not in play
        if sorted(given) != list(range(n)):
            raise InvalidAction(f"give each of the {n} {name} values once, for houses 1 to {n}")
        if a not in self.unsolved:
            raise InvalidAction(f"{name} is already solved")
        right = sum([self.house[a * n + v] == h for h, v in enumerate(given)])
        if right == n:
            self.unsolved.remove(a)
            self._update_status()
            if not self.unsolved:
                return win(f"Correct: {name} is {' '.join(self._row(a))}. Every attribute is solved. You win!")
            return Feedback(f"Correct: {name} is locked in.")
        self.mistakes += 1
        self._update_status()
        if self.mistakes > self.allowed:
            return lose(f"Wrong ({right} of {n} houses right). Too many mistakes. {self._reveal()}")
        return Feedback(f"Wrong: {right} of {n} houses are right. Mistakes: {self.mistakes}/{self.allowed}.")

    def _reveal(self) -> str:
        return "Solution: " + "; ".join(f"{a} {' '.join(self._row(i))}" for i, a in enumerate(self.names)) + "."

    def _solve(self) -> str:
        a = self.unsolved[0]
        return "\\boxed{answer %s %s}" % (self.names[a], " ".join(self._row(a)))

    def random_action(self, rng) -> str:
        a = rng.choice(self.unsolved)
        words = self.values[a][:]
        rng.shuffle(words)
        return "\\boxed{answer %s %s}" % (self.names[a], " ".join(words))
