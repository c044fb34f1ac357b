"""Crack a combination lock whose only feedback counts right symbols in right and wrong places."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def score(secret: str, guess: str) -> tuple[int, int]:
    """(symbols in the right place, right symbols in the wrong place)."""
    exact = sum(s == g for s, g in zip(secret, guess))
    common = sum(min(secret.count(symbol), guess.count(symbol)) for symbol in set(guess))
    return exact, common - exact


def solver_guess(history: list[tuple[str, int]], length: int, symbols: str) -> str:
    """Next guess of a systematic solver that reads the exact-match counts of past guesses.

    It first counts each symbol with single-symbol guesses, then settles one position at a time
    by guessing one candidate there and an absent symbol everywhere else. Any other guesses
    in the history (a random player's) are simply not used.
    """
    counts = {guess[0]: exact for guess, exact in history if len(set(guess)) == 1}
    unknown = [s for s in symbols if s not in counts]
    if len(unknown) > 1 and sum(counts.values()) < length:
        return unknown[0] * length
    for s in unknown:
        counts[s] = length - sum(counts.values())
    filler = next(s for s in symbols if counts[s] == 0)
    fixed: dict[int, str] = {}
    excluded = [set() for _ in range(length)]
    for guess, exact in history:
        probe = [(i, g) for i, g in enumerate(guess) if g != filler]
        if len(probe) == 1 and len(set(guess)) == 2:
            i, s = probe[0]
            if exact:
                fixed[i] = s
            else:
                excluded[i].add(s)
    while True:  # propagate: a position with one candidate left, or a symbol with one place left
        left = dict(counts)  # copies of each symbol not yet placed
        for s in fixed.values():
            left[s] -= 1
        options = {i: [s for s in symbols if left[s] and s not in excluded[i]]
                   for i in range(length) if i not in fixed}
        forced = {i: opts[0] for i, opts in options.items() if len(opts) == 1}
        for s in symbols:
            places = [i for i, opts in options.items() if s in opts]
            if left[s] and len(places) == left[s]:
                forced.update((i, s) for i in places)
        if not forced:
            break
        fixed.update(forced)
    if not options:
        return "".join(fixed[i] for i in range(length))
    i = min(options)
    return "".join(options[i][0] if j == i else filler for j in range(length))


class CodeLock(EvolvableEnv):
    domain = "games"
    complexity_params = {"length": (3, 5), "symbols": (4, 8), "spare_guesses": (6, 1)}
    param_variance = {"symbols": 1, "spare_guesses": 1}
    example_command = "guess ABC"

    def _new_episode(self) -> str:
        self.length = self.params["length"]
        self.symbols = ALPHABET[: max(self.params["symbols"], self.length + 1)]
        self.secret = "".join(self.rng.choice(self.symbols) for _ in range(self.length))
        self.history: list[tuple[str, int]] = []
        self.budget = self._solver_need() + self.params["spare_guesses"]
        example = self.symbols[: self.length]
        return (
            f"A lock opens with a secret code of {self.length} symbols, each one of {', '.join(self.symbols)}\n"
            "(symbols may repeat). After each guess you learn how many symbols are in the right place,\n"
            "and how many other symbols of your guess occur in the code but in a different place.\n"
            f"You have {self.budget} guesses; guessing the exact code opens the lock and wins.\n"
            f"Command: \\boxed{{guess CODE}} with CODE made of {self.length} symbols.\n"
            f"Example: \\boxed{{guess {example}}}"
        )

    def _solver_need(self) -> int:
        history: list[tuple[str, int]] = []
        while not history or history[-1][0] != self.secret:
            guess = solver_guess(history, self.length, self.symbols)
            history.append((guess, score(self.secret, guess)[0]))
        return len(history)

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        return f"Guesses used: {len(self.history)}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        guess = "".join(args).upper()
        if verb != "guess" or len(guess) != self.length or not set(guess) <= set(self.symbols):
            raise InvalidAction(f"use 'guess CODE' with exactly {self.length} symbols from {self.symbols}")
        exact, misplaced = score(self.secret, guess)
        self.history.append((guess, exact))
        if exact == self.length:
            return win(f"{guess}: all {exact} symbols in place. The lock opens. You win!")
        text = f"{guess}: {exact} in the right place, {misplaced} right but misplaced."
        if len(self.history) >= self.budget:
            return lose(f"{text} No guesses left. You lost. {self._reveal()}")
        return Feedback(text)

    def _reveal(self) -> str:
        return f"The code was {self.secret}."

    def oracle_action(self) -> str:
        return "\\boxed{guess %s}" % solver_guess(self.history, self.length, self.symbols)

    def random_action(self, rng) -> str:
        return "\\boxed{guess %s}" % "".join(rng.choice(self.symbols) for _ in range(self.length))
