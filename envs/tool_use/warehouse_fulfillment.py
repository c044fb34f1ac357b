"""Fill a customer order from a warehouse database: look up SKUs, check bin stock, pick exact quantities, ship."""

from gymverse.env import (
    EvolvableEnv,
    Feedback,
    InvalidAction,
    between,
    distinct_draws,
    lose,
    parse_int,
    pick,
    split_command,
    win,
)

MATERIALS = ["Steel", "Brass", "Black", "White", "Red", "Blue", "Green", "Oak"]
PRODUCTS = {
    "Bolt": ["M6", "M8", "M10"],
    "Mug": ["250ml", "350ml", "500ml"],
    "Cable": ["1m", "2m", "5m"],
    "Tape": ["12mm", "19mm", "25mm"],
    "Hinge": ["50mm", "75mm", "100mm"],
    "Lamp": ["5W", "9W", "12W"],
    "Shelf": ["60cm", "80cm", "120cm"],
    "Hook": ["S", "M", "L"],
}
EVERYTHING = [(m, n, z) for m in MATERIALS for n, sizes in PRODUCTS.items() for z in sizes]
NAMES = [" ".join(item) for item in EVERYTHING]
NAME_WORDS = {" ".join(item): [word.lower() for word in item] for item in EVERYTHING}  # what 'find' matches
WORD_SETS = {name: set(words) for name, words in NAME_WORDS.items()}
# Look-alikes of each item: the same product in another size or another material.
ALIKE = {
    " ".join((m, n, z)): [" ".join(o) for o in EVERYTHING if o[1] == n and (o[0] == m) != (o[2] == z)]
    for m, n, z in EVERYTHING
}
SKUS = [f"SKU-{number}" for number in range(1000, 10000)]
BINS = [f"{aisle}-{row:02d}" for aisle in "ABCDEFGH" for row in range(1, 100)]
COMMANDS = (
    "Put exactly these quantities of each product's ACTIVE SKU in the cart, then ship. Discontinued SKUs\n"
    "and quarantined bins cannot be picked from; one bin may not hold enough units for a whole line.\n"
    "Commands:\n"
    "  \\boxed{find WORDS}: SKUs whose product name contains all the words, with their status\n"
    "  \\boxed{stock SKU}: units of a SKU in each bin\n"
    "  \\boxed{pick SKU BIN QTY}: move QTY units from a bin into the cart\n"
    "  \\boxed{return SKU QTY}: put QTY units from the cart back on the shelf\n"
    "  \\boxed{ship}: ship the cart; it wins only if the cart matches the order exactly.\n"
)


class WarehouseFulfillment(EvolvableEnv):
    max_complexity = 75  # bin labels run out from level 90 on
    complexity_params = {
        "lines": (1, 4),
        "bins": (1, 3),
        "distractors": (1, 4),
        "quarantine": (0.0, 0.8),
        "spare_turns": (4, 2),
    }
    param_variance = {"bins": 0.5, "distractors": 1}
    example_command = "find steel bolt"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        names = distinct_draws(rng, NAMES, p["lines"])
        for name in names[: p["lines"]]:
            alike = ALIKE[name]
            names += [a for a in distinct_draws(rng, alike, min(p["distractors"], len(alike))) if a not in names]
        skus = distinct_draws(rng, SKUS, 2 * len(names))  # two per product: its active SKU and maybe an old one
        # Every bin holds one SKU: enough bins for any stock are drawn at once, all different.
        most_bins = p["lines"] * (max(1, p["bins"]) + 1) + (len(names) - p["lines"]) * 2
        labels = iter(distinct_draws(rng, BINS, min(most_bins, len(BINS))))
        self.catalog: dict[str, tuple[str, bool]] = {}  # sku -> (name, active)
        self.bins: dict[str, dict[str, list]] = {}  # sku -> bin -> [units, quarantined]
        self.order: dict[str, int] = {}
        self.lines: list[tuple[str, str]] = []  # (product name, sku)
        for i, name in enumerate(names):
            ordered = i < p["lines"]
            sku = skus[2 * i]
            self.catalog[sku] = (name, True)
            if ordered:
                count = max(1, p["bins"])
                units = self._split(between(rng, 3, 6) * count, count)
                qty = self.order[sku] = sum(units) - between(rng, 0, 2)
                self.lines.append((name, sku))
                self.bins[sku] = {next(labels): [n, False] for n in units}
                if rng.random() < p["quarantine"]:
                    self.bins[sku][next(labels)] = [qty + between(rng, 2, 9), True]
            else:
                count = between(rng, 1, 2)
                self.bins[sku] = {next(labels): [n, False] for n in self._split(between(rng, 2, 20), count)}
            if ordered or rng.random() < 0.5:  # an old SKU of the same name: it cannot be picked
                self.catalog[skus[2 * i + 1]] = (name, False)
        self.skus = sorted(self.catalog)
        self.cart: dict[str, int] = {}
        self.cart_text = "empty"
        self.found: set[str] = set()
        self.stocked: set[str] = set()
        order_text = "\n".join(f"  {self.order[sku]} x {name}" for name, sku in self.lines)
        example = " ".join(NAME_WORDS[self.lines[0][0]][:2])
        return (
            f"You run a warehouse's order desk through its database API. Customer order:\n{order_text}\n"
            f"{COMMANDS}Example: \\boxed{{find {example}}}"
        )

    def _split(self, total: int, count: int) -> list[int]:
        """``total`` units over ``count`` bins at random, at least one per bin (one bin if too few units)."""
        if count == 1 or total <= count:
            return [total]
        if count == 2:
            cut = between(self.rng, 1, total - 1)
            return [cut, total - cut]
        cuts = sorted(distinct_draws(self.rng, range(1, total), count - 1))
        return [b - a for a, b in zip([0] + cuts, cuts + [total])]

    def _picks_needed(self, sku: str) -> int:
        need, picks = self.order[sku], 0
        for units in sorted((u for u, q in self.bins[sku].values() if not q), reverse=True):
            if need <= 0:
                break
            need, picks = need - units, picks + 1
        return picks

    def turn_limit(self) -> int:
        return sum(2 + self._picks_needed(sku) for sku in self.order) + 1 + self.params["spare_turns"]

    def status(self) -> str:
        return f"Cart: {self.cart_text}. Turn {self.turn}/{self.max_turns}."

    def _change_cart(self, sku: str, qty: int) -> None:
        """Add ``qty`` units of ``sku`` to the cart (take them out if negative)."""
        self.cart[sku] = self.cart.get(sku, 0) + qty
        if not self.cart[sku]:
            del self.cart[sku]
        self.cart_text = ", ".join([f"{sku} x{n}" for sku, n in sorted(self.cart.items())]) or "empty"

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "find" and 1 <= len(args) <= 4:
            words = {w.lower() for w in args}
            hits = [sku for sku in self.skus if words <= WORD_SETS[self.catalog[sku][0]]]
            self.found.update(hits)
            rows = [
                f"{sku} | {self.catalog[sku][0]} | {'active' if self.catalog[sku][1] else 'discontinued'}"
                for sku in hits
            ]
            return Feedback("\n".join(rows) if rows else "No products match.")
        if verb in ("stock", "pick", "return") and args:
            sku = args[0].upper()
            if sku not in self.catalog:
                raise InvalidAction(f"unknown SKU {args[0][:20]!r}; SKUs look like SKU-1234")
            if verb == "stock" and len(args) == 1:
                self.stocked.add(sku)
                rows = [
                    f"{b}: {u} unit{'s' * (u != 1)}{' (quarantined)' if q else ''}"
                    for b, (u, q) in sorted(self.bins.get(sku, {}).items())
                ]
                return Feedback(f"{sku} ({self.catalog[sku][0]}): " + ("; ".join(rows) or "no stock"))
            if verb == "pick" and len(args) == 3:
                slot = self.bins.get(sku, {}).get(args[1].upper())
                qty = parse_int(args[2], 1, 10**6, "quantity")
                if not self.catalog[sku][1]:
                    return Feedback(f"{sku} is discontinued: pick refused.")
                if slot is None or slot[1] or slot[0] < qty:
                    return Feedback(f"Pick refused: bin {args[1][:10]} does not hold {qty} pickable units of {sku}.")
                slot[0] -= qty
                self._change_cart(sku, qty)
                return Feedback(f"Picked {qty} x {sku} from {args[1].upper()}. Cart now holds {self.cart[sku]}.")
            if verb == "return" and len(args) == 2:
                qty = parse_int(args[1], 1, 10**6, "quantity")
                if self.cart.get(sku, 0) < qty:
                    return Feedback(f"The cart holds only {self.cart.get(sku, 0)} x {sku}.")
                self._change_cart(sku, -qty)
                next(s for s in sorted(self.bins[sku].items()) if not s[1][1])[1][0] += qty
                return Feedback(f"Returned {qty} x {sku} to the shelf.")
        if verb == "ship" and not args:
            if self.cart == self.order:
                return win("Shipped: the cart matches the order exactly. You win!")
            return lose(f"Shipment rejected: the cart {self.cart} does not match the order. {self._reveal()}")
        raise InvalidAction("commands: 'find WORDS', 'stock SKU', 'pick SKU BIN QTY', 'return SKU QTY', 'ship'")

    def _reveal(self) -> str:
        return "The order needed " + ", ".join(f"{sku} x{n}" for sku, n in sorted(self.order.items())) + "."

    def _solve(self) -> str:
        for sku, held in sorted(self.cart.items()):
            if held > self.order.get(sku, 0):
                return "\\boxed{return %s %d}" % (sku, held - self.order.get(sku, 0))
        for name, sku in self.lines:
            if sku not in self.found:
                return "\\boxed{find %s}" % name.lower()
            if sku not in self.stocked:
                return "\\boxed{stock %s}" % sku
            need = self.order[sku] - self.cart.get(sku, 0)
            if need:
                units, where = max((u, b) for b, (u, q) in self.bins[sku].items() if not q)
                return "\\boxed{pick %s %s %d}" % (sku, where, min(units, need))
        return "\\boxed{ship}"

    def random_action(self, rng) -> str:
        roll, sku = rng.random(), pick(rng, self.skus)
        if roll < 0.08:
            return "\\boxed{ship}"
        if roll < 0.3:
            return "\\boxed{find %s}" % pick(rng, NAME_WORDS[self.catalog[sku][0]])
        if roll < 0.5:
            return "\\boxed{stock %s}" % sku
        if roll < 0.6 and self.cart:
            return "\\boxed{return %s 1}" % pick(rng, list(self.cart))
        bins = list(self.bins.get(sku, ())) or ["A-01"]
        return "\\boxed{pick %s %s %d}" % (sku, pick(rng, bins), between(rng, 1, 4))
