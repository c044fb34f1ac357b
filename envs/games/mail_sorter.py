"""Sort a stack of letters into bins named after cities, one letter per turn, with few mistakes allowed.

The status line (``info["suffix"]``, shown after the latest observation) ends with the current letter's
city, so the game can be played from the latest observation and its status alone (the CPU training demo
relies on it). Higher levels mean taller stacks, more bins
(a random guess is wrong more often) and no mistakes to spare.
"""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, win

# One city per initial, so a small model can tell them apart from their first letter.
CITIES = (
    "Athens",
    "Berlin",
    "Cairo",
    "Dublin",
    "Essen",
    "Fez",
    "Geneva",
    "Hanoi",
    "Izmir",
    "Jakarta",
    "Kyoto",
    "Lima",
    "Madrid",
    "Nairobi",
    "Oslo",
    "Paris",
    "Quito",
    "Rome",
    "Seoul",
    "Tokyo",
    "Ulm",
    "Vienna",
    "Warsaw",
    "Xian",
    "York",
    "Zurich",
)
BOXED_CITIES = tuple("\\boxed{%s}" % city for city in CITIES)
RULES = "Post office: put each letter in the bin of its city (bins: %s).\nCommand: the city, e.g. \\boxed{%s}.\n"


class MailSorter(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"letters": (2, 8), "bins": (3, 12), "spare_mistakes": (2, 0)}
    param_variance = {"letters": 1, "bins": 1}
    example_command = "Athens"

    def _new_episode(self) -> str:
        self.bins = CITIES[: min(self.params["bins"], len(CITIES))]
        self.stack = self.rng.choices(self.bins, k=self.params["letters"])
        self.sorted = 0
        self.mistakes_left = self.params["spare_mistakes"]
        return RULES % (", ".join(self.bins), self.example_command)

    def turn_limit(self) -> int:
        return len(self.stack) + self.mistakes_left + 3

    def status(self) -> str:
        if self.sorted == len(self.stack):
            return "All letters are sorted."
        # The city comes last, so a small model finds it at the end of the prompt.
        return (
            f"Mistakes left: {self.mistakes_left}. "
            f"Letter {self.sorted + 1} of {len(self.stack)} goes to {self.stack[self.sorted]}."
        )

    def _play(self, command: str) -> Feedback:
        chosen = command.replace(",", " ").strip().capitalize()  # one word, as split_command reads it
        if chosen not in self.bins:
            raise InvalidAction("reply with one city from the list of bins.")
        destination = self.stack[self.sorted]
        if chosen != destination:
            if self.mistakes_left == 0:
                return lose(f"Wrong bin: the letter goes to {destination}, not {chosen}. You lost.")
            self.mistakes_left -= 1
            return Feedback(f"Wrong bin: the letter goes to {destination}, not {chosen}.")
        self.sorted += 1
        if self.sorted == len(self.stack):
            return win(f"Put in bin {chosen}. All letters are sorted. You win!")
        return Feedback(f"Put in bin {chosen}.")

    def _reveal(self) -> str:
        return f"The remaining letters go to {', '.join(self.stack[self.sorted :])}."

    def _solve(self) -> str:
        return "\\boxed{%s}" % self.stack[self.sorted]

    def random_action(self, rng) -> str:
        return BOXED_CITIES[int(rng.random() * len(self.bins))]
