"""Knights always tell the truth, knaves always lie: ask islanders about each other, then name every type."""

from functools import cache

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win

RULES = (
    "On this island live %d islanders, numbered 0 to %d. Each is a knight, who always tells\n"
    "the truth, or a knave, who always lies. Exactly %d of them are knights.\n"
    "Goal: find out the type of every islander.\n"
    "Commands:\n"
    "  \\boxed{ask i j}  asks islander i the question 'Is islander j a knight?' (i may equal j);\n"
    "                  you may ask %d questions in all.\n"
    "  \\boxed{answer TYPES}  names all types at once as %d letters, K for knight and N for knave,\n"
    "                  islander 0 first. A wrong answer ends the game.\n"
    "Example: \\boxed{ask 0 1} or \\boxed{answer %s}"
)
BITS_TO_TYPES = str.maketrans("01", "KN")
REPLIES = (  # indexed by the reply: False (no) or True (yes)
    'Islander %d says: "No, islander %d is not a knight."',
    'Islander %d says: "Yes, islander %d is a knight."',
)


@cache  # few distinct texts, and formatting this one costs as much as the rest of a reset
def _rules(n: int, knights: int, budget: int) -> str:
    return RULES % (n, n - 1, knights, budget, n, "K" * knights + "N" * (n - knights))


class KnightsAndKnaves(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"islanders": (4, 13), "spare_questions": (4, 0)}
    param_variance = {"islanders": 1, "spare_questions": 1}
    example_command = "ask 0 1"
    extra_turns = 2

    def _new_episode(self) -> str:
        n = self.params["islanders"]
        while True:  # any count from 1 to n - 1 but half, so that the count tells the two sides apart
            knights = 1 + int(self.rng.random() * (n - 1))
            if 2 * knights != n:
                break
        # A uniform choice of the knights: each islander in turn is one with probability
        # (knights still to place) / (islanders left).
        self.is_knight, left = [], knights
        for remaining in range(n, 0, -1):
            knight = self.rng.random() * remaining < left
            self.is_knight.append(knight)
            left -= knight
        self.knights = knights
        self.budget: int = n - 1 + self.params["spare_questions"]
        self.replies: list[tuple[int, int, bool]] = []  # (asked, about, said yes)
        return _rules(n, knights, self.budget)

    def status(self) -> str:
        return f"Questions asked: {len(self.replies)}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        n = len(self.is_knight)
        if verb == "ask" and len(args) == 2:
            i, j = parse_index(args[0], n, "islander"), parse_index(args[1], n, "islander")
            if len(self.replies) >= self.budget:
                return Feedback("You have no questions left. Give your answer.")
            says_yes = self.is_knight[i] == self.is_knight[j]  # a knave's lie flips the true answer
            self.replies.append((i, j, says_yes))
            return Feedback(REPLIES[says_yes] % (i, j))
        if verb == "answer" and args:
            claim = "".join(args).upper()
            if len(claim) != n or set(claim) - {"K", "N"}:
                raise InvalidAction(f"the answer must be {n} letters, each K or N")
            truth = self._truth()
            if claim == truth:
                return win("Correct, every type is right. You win!")
            return lose(f"Wrong. The types were {truth}. You lost.")
        raise InvalidAction("use 'ask i j' (two islander numbers) or 'answer TYPES' (K/N letters)")

    def _truth(self) -> str:
        return "".join(["K" if k else "N" for k in self.is_knight])

    def _reveal(self) -> str:
        return f"The types were {self._truth()}."

    def _groups(self) -> list[tuple[list[int], list[int]]]:
        """Islanders linked by replies, each group split into two sides of opposite type."""
        n = len(self.is_knight)
        links: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for i, j, yes in self.replies:
            links[i].append((j, 0 if yes else 1))
            links[j].append((i, 0 if yes else 1))
        side: list[int | None] = [None] * n
        groups = []
        for root in range(n):
            if side[root] is not None:
                continue
            side[root], stack = 0, [root]
            sides: tuple[list[int], list[int]] = ([root], [])
            while stack:
                u = stack.pop()
                here = side[u]
                assert here is not None  # an islander is stacked once its side is known
                for v, flip in links[u]:
                    if side[v] is None:
                        side[v] = here ^ flip
                        stack.append(v)
                        sides[here ^ flip].append(v)
            groups.append(sides)
        return groups

    def _solve(self) -> str:
        # A reply tells whether two islanders share a type: link everyone to islander 0, then
        # the known number of knights says which side of the single group is the knights.
        groups = self._groups()
        if len(groups) > 1 and len(self.replies) < self.budget:
            return "\\boxed{ask 0 %d}" % groups[1][0][0]
        guess = [False] * len(self.is_knight)
        left = self.knights
        for same, other in groups:  # exact for one group; a best guess when questions ran out
            pick = same if abs(left - len(same)) <= abs(left - len(other)) else other
            for v in pick:
                guess[v] = True
            left -= len(pick)
        return "\\boxed{answer %s}" % "".join("K" if k else "N" for k in guess)

    def random_action(self, rng) -> str:
        n = len(self.is_knight)
        if rng.random() < 0.2:  # n fair K/N letters, from n random bits
            return "\\boxed{answer %s}" % f"{rng.getrandbits(n):0{n}b}".translate(BITS_TO_TYPES)
        return "\\boxed{ask %d %d}" % (int(rng.random() * n), int(rng.random() * n))
