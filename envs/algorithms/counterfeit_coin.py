"""Find the one counterfeit coin, heavier or lighter (nobody says which), with few balance-scale weighings."""

from collections.abc import Sequence
from functools import lru_cache

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win

OUTCOMES = {1: "The left pan is heavier.", -1: "The right pan is heavier.", 0: "The pans balance."}


@lru_cache(maxsize=256)
def coin_numbers(coins: int) -> dict[str, int]:
    """``{"1": 1, ..., str(coins): coins}``, to read and write coin numbers without int() and str()."""
    return {str(coin): coin for coin in range(1, coins + 1)}


def weighings_needed(coins: int) -> int:
    """Fewest weighings that always find the fake among ``coins`` (Dyson's bound: coins <= (3^w - 1) / 2)."""
    w = 0
    while (3**w - 1) // 2 < coins:
        w += 1
    return w


class CounterfeitCoin(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"coins": (4, 60), "spare_weighings": (3, 0)}
    param_variance = {"coins": 4}
    example_command = "weigh 1 2 vs 3 4"

    def _new_episode(self) -> str:
        n = self.coins = self.params["coins"]
        self.numbers = coin_numbers(n)
        self.fake = self.rng.randint(1, n)
        self.fake_weight = self.rng.choice((1, -1))  # +1 heavier, -1 lighter
        # The coins that may still be heavy, and those that may still be light, given the weighings so far.
        self.maybe_heavy = set(range(1, n + 1))
        self.maybe_light = set(self.maybe_heavy)
        self.budget: int = weighings_needed(n) + self.params["spare_weighings"]
        self.used = 0
        return (
            f"You have {n} coins numbered 1 to {n}. Exactly one is counterfeit: it is either heavier or lighter\n"
            "than the others (you are not told which); all genuine coins weigh the same.\n"
            "Goal: name the counterfeit coin.\n"
            "Commands: \\boxed{weigh a b ... vs c d ...} puts coins a b ... on the left pan and c d ... on the\n"
            "right pan (same number on each side, no coin twice) and tells you which side is heavier;\n"
            f"you have {self.budget} weighings and asking for more loses.\n"
            "\\boxed{answer k} names coin k as the counterfeit and ends the game (a wrong claim loses).\n"
            "Example: \\boxed{weigh 1 2 vs 3 4}"
        )

    def status(self) -> str:
        return f"Weighings used: {self.used}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "answer" and len(args) == 1:
            coin = parse_int(args[0], 1, self.coins, "coin")
            if coin == self.fake:
                return win(f"Coin {coin} is the counterfeit. You win!")
            return lose(f"Coin {coin} is genuine. You lost. " + self._reveal())
        if verb != "weigh" or "vs" not in args or len(args) > self.coins + 1:
            raise InvalidAction("use 'weigh a b ... vs c d ...' or 'answer k'")
        split = args.index("vs")
        left_names, right_names = args[:split], args[split + 1 :]
        left, right = self._pan(left_names), self._pan(right_names)
        if not left_names or len(left_names) != len(right_names):
            raise InvalidAction("both pans need the same number of coins, at least one")
        if len(left | right) != 2 * len(left_names):
            raise InvalidAction("a coin can only be used once per weighing")
        if self.used >= self.budget:
            return lose(f"No weighings left ({self.budget} used). You lost. " + self._reveal())
        self.used += 1
        outcome = self._weigh(left, right)
        pans = f"{' '.join(left_names)} vs {' '.join(right_names)}"
        return Feedback(f"Weighing {self.used}: {pans}. {OUTCOMES[outcome]}")

    def _pan(self, names: Sequence[str]) -> set[int]:
        """The coins named on one pan."""
        try:
            return {self.numbers[name] for name in names}
        except KeyError:  # not a plain coin number: parse_int accepts it or says what is wrong
            return {parse_int(name, 1, self.coins, "coin") for name in names}

    def _weigh(self, left: set[int], right: set[int]) -> int:
        outcome = self.fake_weight if self.fake in left else -self.fake_weight if self.fake in right else 0
        if outcome == 0:  # balanced pans clear their coins
            on_scale = left | right
            self.maybe_heavy -= on_scale
            self.maybe_light -= on_scale
        else:  # a tilt clears the coins off the scale, and says which way each coin on it could be off
            heavier, lighter = (left, right) if outcome == 1 else (right, left)
            self.maybe_heavy &= heavier
            self.maybe_light &= lighter
        return outcome

    def _reveal(self) -> str:
        return f"The counterfeit was coin {self.fake} ({'heavier' if self.fake_weight > 0 else 'lighter'})."

    def _solve(self) -> str:
        heavy = sorted(self.maybe_heavy - self.maybe_light)
        light = sorted(self.maybe_light - self.maybe_heavy)
        unknown = sorted(self.maybe_heavy & self.maybe_light)
        genuine = [c for c in range(1, self.coins + 1) if c not in self.maybe_heavy and c not in self.maybe_light]
        suspects = heavy + light + unknown
        if len(suspects) == 1:
            return "\\boxed{answer %d}" % suspects[0]
        if unknown:  # no tilt yet: every suspect may be heavy or light (after a tilt, each is one-way)
            left, right = _split_unknown(unknown, bool(genuine))
        else:
            left, right = _split_known(heavy, light)
        while len(left) > len(right) and genuine:  # top up the lighter-loaded pan with known-genuine coins
            right.append(genuine.pop())
        while len(right) > len(left) and genuine:
            left.append(genuine.pop())
        while len(left) != len(right):  # only after random weighings: too few genuine coins to pad with
            (left if len(left) > len(right) else right).pop()
        return "\\boxed{weigh %s vs %s}" % (" ".join(map(str, sorted(left))), " ".join(map(str, sorted(right))))

    def random_action(self, rng) -> str:
        n = self.coins
        if rng.random() < 0.15:
            return "\\boxed{answer %d}" % rng.randint(1, n)
        picked = 2 * rng.randint(1, n // 2)
        names = list(self.numbers)
        for i in range(picked):  # a partial Fisher-Yates shuffle: rng.sample's uniform draw, at half the cost
            j = i + int(rng.random() * (n - i))
            names[i], names[j] = names[j], names[i]
        half = picked // 2
        return "\\boxed{weigh %s vs %s}" % (" ".join(names[:half]), " ".join(names[half:picked]))


def _split_unknown(unknown: list[int], has_genuine: bool) -> tuple[list[int], list[int]]:
    """Weigh k of the u unknown coins: a tilt leaves k one-way suspects, a balance leaves u - k unknowns.

    w weighings settle 3^w one-way suspects, and (3^w + 1) / 2 unknowns once a genuine coin is at hand
    ((3^w - 1) / 2 before), so k is chosen to keep both outcomes within w - 1 weighings.
    """
    u = len(unknown)
    w = 1
    while u > ((3**w + 1) // 2 if has_genuine else (3**w - 1) // 2):
        w += 1
    low, high = max(1, u - (3 ** (w - 1) + 1) // 2), min(u, 3 ** (w - 1))
    k = min(max((2 * u + 2) // 3, low), high)
    if not has_genuine and k % 2:  # nothing to pad with: the pans must hold equal numbers of suspects
        k = k + 1 if k < high else k - 1
    return unknown[: (k + 1) // 2], unknown[(k + 1) // 2 : k]


def _split_known(heavy: list[int], light: list[int]) -> tuple[list[int], list[int]]:
    """Deal the one-way suspects into three near-equal groups: tips left, tips right, stays off the scale."""
    groups: list[list[int]] = [[], [], []]
    for i, coin in enumerate(heavy + light):
        groups[i % 3].append(coin)
    light_set = set(light)
    left = [c for c in groups[0] if c not in light_set] + [c for c in groups[1] if c in light_set]
    right = [c for c in groups[0] if c in light_set] + [c for c in groups[1] if c not in light_set]
    return left, right
