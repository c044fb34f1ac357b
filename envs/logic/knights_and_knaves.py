"""Knights always tell the truth, knaves always lie: ask islanders about each other, then name every type."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win


class KnightsAndKnaves(EvolvableEnv):
    domain = "logic"
    complexity_params = {"islanders": (4, 13), "spare_questions": (4, 0)}
    param_variance = {"islanders": 1, "spare_questions": 1}
    example_command = "ask 0 1"

    def _new_episode(self) -> str:
        n = self.params["islanders"]
        knights = self.rng.choice([k for k in range(1, n) if 2 * k != n])
        chosen = set(self.rng.sample(range(n), knights))
        self.is_knight = [i in chosen for i in range(n)]
        self.knights = knights
        self.budget = n - 1 + self.params["spare_questions"]
        self.replies: list[tuple[int, int, bool]] = []  # (asked, about, said yes)
        return (
            f"On this island live {n} islanders, numbered 0 to {n - 1}. Each is a knight, who always tells\n"
            f"the truth, or a knave, who always lies. Exactly {knights} of them are knights.\n"
            "Goal: find out the type of every islander.\n"
            "Commands:\n"
            "  \\boxed{ask i j}  asks islander i the question 'Is islander j a knight?' (i may equal j);\n"
            f"                  you may ask {self.budget} questions in all.\n"
            f"  \\boxed{{answer TYPES}}  names all types at once as {n} letters, K for knight and N for knave,\n"
            "                  islander 0 first. A wrong answer ends the game.\n"
            f"Example: \\boxed{{ask 0 1}} or \\boxed{{answer {'K' * knights}{'N' * (n - knights)}}}"
        )

    def turn_limit(self) -> int:
        return self.budget + 2

    def status(self) -> str:
        return f"Questions asked: {len(self.replies)}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        n = len(self.is_knight)
        if verb == "ask" and len(args) == 2:
            i, j = (parse_index(a, n, "islander") for a in args)
            if len(self.replies) >= self.budget:
                return Feedback("You have no questions left. Give your answer.")
            says_yes = self.is_knight[i] == self.is_knight[j]  # a knave's lie flips the true answer
            self.replies.append((i, j, says_yes))
            word = "Yes" if says_yes else "No"
            return Feedback(f"Islander {i} says: \"{word}, islander {j} is {'' if says_yes else 'not '}a knight.\"")
        if verb == "answer" and args:
            claim = "".join(args).upper()
            if len(claim) != n or set(claim) - {"K", "N"}:
                raise InvalidAction(f"the answer must be {n} letters, each K or N")
            if [c == "K" for c in claim] == self.is_knight:
                return win("Correct, every type is right. You win!")
            return lose(f"Wrong. The types were {self._truth()}. You lost.")
        raise InvalidAction("use 'ask i j' (two islander numbers) or 'answer TYPES' (K/N letters)")

    def _truth(self) -> str:
        return "".join("K" if k else "N" for k in self.is_knight)

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
            side[root], stack, sides = 0, [root], ([root], [])
            while stack:
                u = stack.pop()
                for v, flip in links[u]:
                    if side[v] is None:
                        side[v] = side[u] ^ flip
                        stack.append(v)
                        sides[side[v]].append(v)
            groups.append(sides)
        return groups

    def oracle_action(self) -> str:
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
        if rng.random() < 0.2:
            return "\\boxed{answer %s}" % "".join(rng.choice("KN") for _ in range(n))
        return "\\boxed{ask %d %d}" % (rng.randrange(n), rng.randrange(n))
