"""Sort a stack of letters into lettered bins, one letter per turn, with few mistakes allowed.

Every observation ends with the current letter, so the game can be played from the latest observation
alone (the CPU training demo relies on it). Higher levels mean taller stacks, more bins (a random
guess is wrong more often) and no mistakes to spare.
"""

import string

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win


class MailSorter(EvolvableEnv):
    domain = "games"
    complexity_params = {"letters": (2, 8), "bins": (3, 12), "spare_mistakes": (2, 0)}
    param_variance = {"letters": 1, "bins": 1}
    example_command = "bin A"

    def _new_episode(self) -> str:
        self.bins = string.ascii_uppercase[: min(self.params["bins"], 26)]
        self.stack = [self.rng.choice(self.bins) for _ in range(self.params["letters"])]
        self.sorted = 0
        self.mistakes_left = self.params["spare_mistakes"]
        return (
            f"Post office: put each letter in its bin (bins {self.bins[0]} to {self.bins[-1]}).\n"
            f"Command: \\boxed{{bin X}}, e.g. \\boxed{{{self.example_command}}}.\n" + self.status()
        )

    def turn_limit(self) -> int:
        return len(self.stack) + self.mistakes_left + 3

    def status(self) -> str:
        if self.sorted == len(self.stack):
            return "All letters are sorted."
        destination = self.stack[self.sorted]
        letter = f"Letter {self.sorted + 1} of {len(self.stack)}"
        return f"{letter} goes to bin {destination}. Mistakes left: {self.mistakes_left}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb != "bin" or len(args) != 1 or args[0].upper() not in self.bins or len(args[0]) != 1:
            raise InvalidAction(f"use 'bin X' with a bin from {self.bins[0]} to {self.bins[-1]}. {self.status()}")
        chosen, destination = args[0].upper(), self.stack[self.sorted]
        if chosen != destination:
            if self.mistakes_left == 0:
                return lose(f"Wrong bin: the letter goes to {destination}, not {chosen}. You lost.")
            self.mistakes_left -= 1
            return Feedback(f"Wrong bin: the letter goes to {destination}, not {chosen}. {self.status()}")
        self.sorted += 1
        if self.sorted == len(self.stack):
            return win(f"Put in bin {chosen}. All letters are sorted. You win!")
        return Feedback(f"Put in bin {chosen}. {self.status()}")

    def _reveal(self) -> str:
        return f"The remaining letters go to bins {', '.join(self.stack[self.sorted:])}."

    def oracle_action(self) -> str:
        return "\\boxed{bin %s}" % self.stack[self.sorted]

    def random_action(self, rng) -> str:
        return "\\boxed{bin %s}" % rng.choice(self.bins)
