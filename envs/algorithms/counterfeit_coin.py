"""Find the one counterfeit coin, heavier or lighter (nobody says which), with few balance-scale weighings."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win

OUTCOMES = {1: "The left pan is heavier.", -1: "The right pan is heavier.", 0: "The pans balance."}


def weighings_needed(coins: int) -> int:
    """Fewest weighings that always find the fake among ``coins`` (Dyson's bound: coins <= (3^w - 1) / 2)."""
    w = 0
    while (3**w - 1) // 2 < coins:
        w += 1
    return w


class CounterfeitCoin(EvolvableEnv):
    domain = "algorithms"
    complexity_params = {"coins": (4, 60), "spare_weighings": (3, 0)}
    param_variance = {"coins": 4}
    example_command = "weigh 1 2 vs 3 4"

    def _new_episode(self) -> str:
        n = self.params["coins"]
        self.fake = self.rng.randint(1, n)
        self.fake_weight = self.rng.choice((1, -1))  # +1 heavier, -1 lighter
        # What each coin may still be, given the weighings so far (index 0 unused).
        self.maybe_heavy = [False] + [True] * n
        self.maybe_light = [False] + [True] * n
        self.budget = weighings_needed(n) + self.params["spare_weighings"]
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

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        return f"Weighings used: {self.used}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        n = len(self.maybe_heavy) - 1
        if verb == "answer" and len(args) == 1:
            coin = parse_int(args[0], 1, n, "coin")
            if coin == self.fake:
                return win(f"Coin {coin} is the counterfeit. You win!")
            return lose(f"Coin {coin} is genuine. You lost. " + self._reveal())
        if verb != "weigh" or "vs" not in args or len(args) > n + 1:
            raise InvalidAction("use 'weigh a b ... vs c d ...' or 'answer k'")
        split = args.index("vs")
        left = [parse_int(a, 1, n, "coin") for a in args[:split]]
        right = [parse_int(a, 1, n, "coin") for a in args[split + 1 :]]
        if not left or len(left) != len(right):
            raise InvalidAction("both pans need the same number of coins, at least one")
        if len(set(left + right)) != 2 * len(left):
            raise InvalidAction("a coin can only be used once per weighing")
        if self.used >= self.budget:
            return lose(f"No weighings left ({self.budget} used). You lost. " + self._reveal())
        self.used += 1
        outcome = self._weigh(left, right)
        return Feedback(f"Weighing {self.used}: {' '.join(map(str, left))} vs {' '.join(map(str, right))}. "
                        + OUTCOMES[outcome])

    def _weigh(self, left: list[int], right: list[int]) -> int:
        outcome = self.fake_weight if self.fake in left else -self.fake_weight if self.fake in right else 0
        on_scale = set(left + right)
        for coin in range(1, len(self.maybe_heavy)):
            if (coin in on_scale) == (outcome == 0):  # balanced pans clear their coins; a tilt clears the rest
                self.maybe_heavy[coin] = self.maybe_light[coin] = False
        for pan, side in ((left, 1), (right, -1)):
            for coin in pan:  # a tilt says which way each coin on the scale could be off
                if outcome == side:
                    self.maybe_light[coin] = False
                elif outcome == -side:
                    self.maybe_heavy[coin] = False
        return outcome

    def _reveal(self) -> str:
        return f"The counterfeit was coin {self.fake} ({'heavier' if self.fake_weight > 0 else 'lighter'})."

    def oracle_action(self) -> str:
        coins = range(1, len(self.maybe_heavy))
        heavy = [c for c in coins if self.maybe_heavy[c] and not self.maybe_light[c]]
        light = [c for c in coins if self.maybe_light[c] and not self.maybe_heavy[c]]
        unknown = [c for c in coins if self.maybe_heavy[c] and self.maybe_light[c]]
        genuine = [c for c in coins if not (self.maybe_heavy[c] or self.maybe_light[c])]
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
        n = len(self.maybe_heavy) - 1
        if rng.random() < 0.15:
            return "\\boxed{answer %d}" % rng.randint(1, n)
        picked = rng.sample(range(1, n + 1), 2 * rng.randint(1, n // 2))
        half = len(picked) // 2
        return "\\boxed{weigh %s vs %s}" % (" ".join(map(str, picked[:half])), " ".join(map(str, picked[half:])))


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
    groups = [[], [], []]
    for i, coin in enumerate(heavy + light):
        groups[i % 3].append(coin)
    light_set = set(light)
    left = [c for c in groups[0] if c not in light_set] + [c for c in groups[1] if c in light_set]
    right = [c for c in groups[0] if c in light_set] + [c for c in groups[1] if c not in light_set]
    return left, right
