"""An Einstein (zebra) puzzle: deduce who lives where from clues, then answer one attribute at a time."""

from collections import deque

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
CLUE_TEXT = {
    "at": "{x} lives in house {y}.",
    "same": "{x} and {y} live in the same house.",
    "diff": "{x} and {y} live in different houses.",
    "left": "{x} lives directly left of {y}.",
    "next": "{x} lives next to {y}.",
    "before": "{x} lives somewhere left of {y}.",
}
CLUE_KINDS = list(CLUE_TEXT)
CLUE_CUM_WEIGHTS = [1, 6, 8, 10, 13, 15]  # kinds weighted 1, 5, 2, 2, 3, 2 in CLUE_TEXT's order


def related_houses(kind: str, house: int, n: int) -> set[int]:
    """The houses y may live in for the clue ``kind`` to hold of x living in ``house``."""
    if kind == "same":
        return {house}
    if kind == "diff":
        return set(range(n)) - {house}
    if kind == "left":
        return {house + 1}
    if kind == "next":
        return {house - 1, house + 1}
    return set(range(house + 1, n))  # before


class ZebraPuzzle(EvolvableEnv):
    domain = "logic"
    complexity_params = {"houses": (3, 5), "attributes": (3, 5), "mistakes_allowed": (2, 0)}
    param_variance = {"houses": 0.6, "attributes": 0.6}
    example_command = "answer color red green blue"

    def _new_episode(self) -> str:
        n = self.n = min(self.params["houses"], 8)
        names = list(ATTRIBUTES)[: min(self.params["attributes"], len(ATTRIBUTES))]
        self.names = names
        self.values = [ATTRIBUTES[a][1].split()[:n] for a in names]
        # value id a*n+v; house[vid] is its house (0-based) in the solution
        self.house = [h for _ in names for h in self.rng.sample(range(n), n)]
        self.clues = self._make_clues()
        self.solved: set[int] = set()
        self.mistakes = 0
        self.allowed = self.params["mistakes_allowed"]
        lines = [
            f"{n} houses stand in a row, numbered 1 (left) to {n} (right); one person lives in each.",
            "Each attribute below takes each of its values in exactly one house:",
            *(f"  {a}: {', '.join(vals)}" for a, vals in zip(names, self.values)),
            "Clues:",
            *(f"  {k + 1}. {self._clue_text(c)}" for k, c in enumerate(self.clues)),
            "Goal: work out every attribute of every house.",
            "Command: \\boxed{answer ATTRIBUTE V1 V2 ...} gives the values of one attribute for houses 1 to",
            f"{n} in order. A right answer is locked in; a wrong one is a mistake, and you may make only",
            f"{self.allowed} mistake(s) (one more ends the game). Answer every attribute to win.",
            f"Example: \\boxed{{answer {names[0]} {' '.join(self.values[0])}}}",
        ]
        return "\n".join(lines)

    # -- puzzle generation: add true clues until propagation alone fixes every value ---------------
    def _make_clues(self) -> list[tuple[str, int, int]]:
        self.domains = [(1 << self.n) - 1] * len(self.house)
        clues: list[tuple[str, int, int]] = []
        watch: list[list[int]] = [[] for _ in self.domains]  # value id -> the clues that mention it
        misses, solved = 0, False
        while not solved:
            clue = self._random_clue() if misses < 6 else self._position_clue()
            # The domains are a fixpoint of the clues so far, so a clue that narrows neither of its
            # own values adds nothing; one that does is kept and propagated.
            if not self._narrows(clue):
                misses += 1
                continue
            misses = 0
            kind, x, y = clue
            watch[x].append(len(clues))
            if kind != "at":
                watch[y].append(len(clues))
            clues.append(clue)
            self._propagate(self.domains, clues, watch)
            solved = not any(d & (d - 1) for d in self.domains)
        return clues

    def _position_clue(self) -> tuple[str, int, int]:
        vid = next(v for v, d in enumerate(self.domains) if d & (d - 1))
        return ("at", vid, self.house[vid])

    def _random_clue(self) -> tuple[str, int, int]:
        n, rng, house = self.n, self.rng, self.house
        x = rng.randrange(len(house))
        kind = rng.choices(CLUE_KINDS, cum_weights=CLUE_CUM_WEIGHTS)[0]
        if kind != "at":
            # "same"/"diff" across attributes only: inside one attribute they say nothing new
            houses, across = related_houses(kind, house[x], n), kind in ("same", "diff")
            fits = [v for v, h in enumerate(house) if h in houses and not (across and v // n == x // n)]
            if fits:
                return (kind, x, rng.choice(fits))
        return ("at", x, house[x])

    def _narrows(self, clue: tuple[str, int, int]) -> bool:
        """Whether applying ``clue`` once would shrink the domain of one of its two values."""
        dom = self.domains[:]

        def update(vid: int, new: int) -> None:
            dom[vid] = new

        self._apply(dom, clue, update)
        return dom != self.domains

    def _apply(self, dom: list[int], clue: tuple[str, int, int], update) -> None:
        """Narrow the domains of a clue's values: ``update(vid, new)`` with each value's new domain."""
        kind, x, y = clue
        full = (1 << self.n) - 1
        if kind == "at":
            update(x, dom[x] & (1 << y))
        elif kind == "same":
            update(x, dom[x] & dom[y])
            update(y, dom[x] & dom[y])
        elif kind == "diff":
            if not dom[x] & (dom[x] - 1):
                update(y, dom[y] & ~dom[x])
            if not dom[y] & (dom[y] - 1):
                update(x, dom[x] & ~dom[y])
        elif kind == "left":
            update(x, dom[x] & (dom[y] >> 1))
            update(y, dom[y] & (dom[x] << 1) & full)
        elif kind == "next":
            update(x, dom[x] & ((dom[y] << 1) | (dom[y] >> 1)) & full)
            update(y, dom[y] & ((dom[x] << 1) | (dom[x] >> 1)) & full)
        else:  # before
            update(x, dom[x] & ((1 << (dom[y].bit_length() - 1)) - 1))
            lowest = (dom[x] & -dom[x]).bit_length()
            update(y, dom[y] & ~((1 << lowest) - 1))

    def _propagate(self, dom: list[int], clues: list[tuple[str, int, int]], watch: list[list[int]]) -> None:
        """Bring ``dom`` (a fixpoint of all clues but the last) to a fixpoint of every clue, in place."""
        n = self.n
        queue = deque([("clue", len(clues) - 1)])
        queued = set(queue)

        def push(item: tuple[str, int]) -> None:
            if item not in queued:
                queued.add(item)
                queue.append(item)

        def update(vid: int, new: int) -> None:
            if new != dom[vid]:
                dom[vid] = new
                for k in watch[vid]:
                    push(("clue", k))
                push(("attr", vid // n))

        while queue:
            item = queue.popleft()
            queued.discard(item)
            if item[0] == "clue":
                self._apply(dom, clues[item[1]], update)
                continue
            # One attribute's values take distinct houses: a value whose house is known rules that
            # house out for the others, and a house only one value can take is that value's house.
            members = range(item[1] * n, item[1] * n + n)
            known = once = twice = 0
            for v in members:
                if not dom[v] & (dom[v] - 1):
                    known |= dom[v]
                twice |= once & dom[v]
                once |= dom[v]
            only = once & ~twice  # houses that a single value can take
            for v in members:
                if dom[v] & (dom[v] - 1):
                    update(v, (dom[v] & only) or dom[v] & ~known)

    def _person(self, vid: int) -> str:
        a, v = divmod(vid, self.n)
        return ATTRIBUTES[self.names[a]][0].format(self.values[a][v])

    def _clue_text(self, clue: tuple[str, int, int]) -> str:
        kind, x, y = clue
        text = CLUE_TEXT[kind].format(x=self._person(x), y=y + 1 if kind == "at" else self._person(y))
        return text[0].upper() + text[1:]

    # -- play ---------------------------------------------------------------------------------------
    def turn_limit(self) -> int:
        return len(self.names) + self.allowed + 2

    def status(self) -> str:
        done = ", ".join(self.names[a] for a in sorted(self.solved)) or "none"
        return f"Solved: {done}. Mistakes: {self.mistakes}/{self.allowed} allowed."

    def _row(self, a: int) -> list[str]:
        row = [""] * self.n
        for v, word in enumerate(self.values[a]):
            row[self.house[a * self.n + v]] = word
        return row

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "answer" or not args:
            raise InvalidAction("use 'answer ATTRIBUTE V1 ... Vn'")
        name = args[0].lower()
        if name not in self.names:
            raise InvalidAction(f"unknown attribute {args[0][:40]!r}; attributes: {', '.join(self.names)}")
        a = self.names.index(name)
        lookup = {w.lower(): w for w in self.values[a]}
        given = [lookup.get(w.lower()) for w in args[1:]]
        if len(given) != self.n or None in given or len(set(given)) != self.n:
            raise InvalidAction(f"give each of the {self.n} {name} values once, for houses 1 to {self.n}")
        if a in self.solved:
            raise InvalidAction(f"{name} is already solved")
        row = self._row(a)
        right = sum(g == r for g, r in zip(given, row))
        if right == self.n:
            self.solved.add(a)
            if len(self.solved) == len(self.names):
                return win(f"Correct: {name} is {' '.join(row)}. Every attribute is solved. You win!")
            return Feedback(f"Correct: {name} is locked in.")
        self.mistakes += 1
        if self.mistakes > self.allowed:
            return lose(f"Wrong ({right} of {self.n} houses right). Too many mistakes. {self._reveal()}")
        return Feedback(f"Wrong: {right} of {self.n} houses are right. Mistakes: {self.mistakes}/{self.allowed}.")

    def _reveal(self) -> str:
        return "Solution: " + "; ".join(f"{a} {' '.join(self._row(i))}" for i, a in enumerate(self.names)) + "."

    def oracle_action(self) -> str:
        a = min(set(range(len(self.names))) - self.solved)
        return "\\boxed{answer %s %s}" % (self.names[a], " ".join(self._row(a)))

    def random_action(self, rng) -> str:
        a = rng.choice(sorted(set(range(len(self.names))) - self.solved))
        return "\\boxed{answer %s %s}" % (self.names[a], " ".join(rng.sample(self.values[a], self.n)))
