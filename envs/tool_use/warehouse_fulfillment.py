"""Fill a customer order from a warehouse database: look up SKUs, check bin stock, pick exact quantities, ship."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win

MATERIALS = ["Steel", "Brass", "Black", "White", "Red", "Blue", "Green", "Oak"]
PRODUCTS = {"Bolt": ["M6", "M8", "M10"], "Mug": ["250ml", "350ml", "500ml"], "Cable": ["1m", "2m", "5m"],
            "Tape": ["12mm", "19mm", "25mm"], "Hinge": ["50mm", "75mm", "100mm"], "Lamp": ["5W", "9W", "12W"],
            "Shelf": ["60cm", "80cm", "120cm"], "Hook": ["S", "M", "L"]}
AISLES = "ABCDEFGH"
EVERYTHING = [(m, n, z) for m in MATERIALS for n, sizes in PRODUCTS.items() for z in sizes]
NAME_WORDS = {" ".join(item): [word.lower() for word in item] for item in EVERYTHING}  # what 'find' matches
# Look-alikes of each item: the same product in another size or another material.
ALIKE = {(m, n, z): [" ".join(o) for o in EVERYTHING if o[1] == n and (o[0] == m) != (o[2] == z)]
         for m, n, z in EVERYTHING}


class WarehouseFulfillment(EvolvableEnv):
    domain = "tool_use"
    complexity_params = {"lines": (1, 4), "bins": (1, 3), "distractors": (1, 4), "quarantine": (0.0, 0.8),
                         "spare_turns": (4, 2)}
    param_variance = {"bins": 0.5, "distractors": 1}
    example_command = "find steel bolt"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        wanted = rng.sample(EVERYTHING, p["lines"])
        names = [" ".join(item) for item in wanted]
        for item in wanted:
            alike = ALIKE[item]
            names += [a for a in rng.sample(alike, min(p["distractors"], len(alike))) if a not in names]
        skus = rng.sample(range(1000, 10000), 2 * len(names))
        self.catalog: dict[str, tuple[str, bool]] = {}  # sku -> (name, active)
        self.bins: dict[str, dict[str, list]] = {}  # sku -> bin -> [units, quarantined]
        self.order: dict[str, int] = {}
        self.lines: list[tuple[str, str]] = []  # (product name, sku)
        for i, name in enumerate(names):
            ordered = i < p["lines"]
            sku = f"SKU-{skus[2 * i]}"
            self.catalog[sku] = (name, True)
            bins = max(1, p["bins"]) if ordered else rng.randint(1, 2)
            self.bins[sku] = self._stock(rng.randint(3, 6) * bins if ordered else rng.randint(2, 20), bins)
            if ordered:
                qty = sum(units for units, _ in self.bins[sku].values()) - rng.randint(0, 2)
                self.order[sku] = qty
                self.lines.append((name, sku))
                if rng.random() < p["quarantine"]:
                    self.bins[sku][self._free_bin()] = [qty + rng.randint(2, 9), True]
            if ordered or rng.random() < 0.5:  # an old SKU of the same name: it cannot be picked
                self.catalog[f"SKU-{skus[2 * i + 1]}"] = (name, False)
        self.skus = sorted(self.catalog)
        self.cart: dict[str, int] = {}
        self.found: set[str] = set()
        self.stocked: set[str] = set()
        order_text = "\n".join(f"  {self.order[sku]} x {name}" for name, sku in self.lines)
        return (
            "You run a warehouse's order desk through its database API. Customer order:\n" + order_text + "\n"
            "Put exactly these quantities of each product's ACTIVE SKU in the cart, then ship. Discontinued SKUs\n"
            "and quarantined bins cannot be picked from; one bin may not hold enough units for a whole line.\n"
            "Commands:\n"
            "  \\boxed{find WORDS}: SKUs whose product name contains all the words, with their status\n"
            "  \\boxed{stock SKU}: units of a SKU in each bin\n"
            "  \\boxed{pick SKU BIN QTY}: move QTY units from a bin into the cart\n"
            "  \\boxed{return SKU QTY}: put QTY units from the cart back on the shelf\n"
            "  \\boxed{ship}: ship the cart; it wins only if the cart matches the order exactly.\n"
            "Example: \\boxed{find " + " ".join(self.lines[0][0].lower().split()[:2]) + "}"
        )

    def _stock(self, total: int, count: int) -> dict[str, list]:
        bins: dict[str, list] = {}
        cuts = sorted(self.rng.sample(range(1, total), count - 1)) if total > count else []
        for units in (b - a for a, b in zip([0] + cuts, cuts + [total])):
            bins[self._free_bin(bins)] = [units, False]
        return bins

    def _free_bin(self, taken: dict | None = None) -> str:
        while True:
            name = f"{self.rng.choice(AISLES)}-{self.rng.randint(1, 99):02d}"
            if name not in (taken or {}) and all(name not in b for b in self.bins.values()):
                return name

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
        cart = ", ".join(f"{sku} x{n}" for sku, n in sorted(self.cart.items())) or "empty"
        return f"Cart: {cart}. Turn {self.turn}/{self.max_turns}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "find" and 1 <= len(args) <= 4:
            words = [w.lower() for w in args]
            hits = [(sku, *self.catalog[sku]) for sku in self.skus
                    if all(w in NAME_WORDS[self.catalog[sku][0]] for w in words)]
            self.found.update(sku for sku, _, _ in hits)
            rows = [f"{sku} | {name} | {'active' if active else 'discontinued'}" for sku, name, active in hits]
            return Feedback("\n".join(rows) if rows else "No products match.")
        if verb in ("stock", "pick", "return") and args:
            sku = args[0].upper()
            if sku not in self.catalog:
                raise InvalidAction(f"unknown SKU {args[0][:20]!r}; SKUs look like SKU-1234")
            if verb == "stock" and len(args) == 1:
                self.stocked.add(sku)
                rows = [f"{b}: {u} unit{'s' * (u != 1)}{' (quarantined)' if q else ''}"
                        for b, (u, q) in sorted(self.bins.get(sku, {}).items())]
                return Feedback(f"{sku} ({self.catalog[sku][0]}): " + ("; ".join(rows) or "no stock"))
            if verb == "pick" and len(args) == 3:
                slot = self.bins.get(sku, {}).get(args[1].upper())
                qty = parse_int(args[2], 1, 10**6, "quantity")
                if not self.catalog[sku][1]:
                    return Feedback(f"{sku} is discontinued: pick refused.")
                if slot is None or slot[1] or slot[0] < qty:
                    return Feedback(f"Pick refused: bin {args[1][:10]} does not hold {qty} pickable units of {sku}.")
                slot[0] -= qty
                self.cart[sku] = self.cart.get(sku, 0) + qty
                return Feedback(f"Picked {qty} x {sku} from {args[1].upper()}. Cart now holds {self.cart[sku]}.")
            if verb == "return" and len(args) == 2:
                qty = parse_int(args[1], 1, 10**6, "quantity")
                if self.cart.get(sku, 0) < qty:
                    return Feedback(f"The cart holds only {self.cart.get(sku, 0)} x {sku}.")
                self.cart[sku] -= qty
                if not self.cart[sku]:
                    del self.cart[sku]
                next(s for s in sorted(self.bins[sku].items()) if not s[1][1])[1][0] += qty
                return Feedback(f"Returned {qty} x {sku} to the shelf.")
        if verb == "ship" and not args:
            if self.cart == self.order:
                return win("Shipped: the cart matches the order exactly. You win!")
            return lose(f"Shipment rejected: the cart {self.cart} does not match the order. {self._reveal()}")
        raise InvalidAction("commands: 'find WORDS', 'stock SKU', 'pick SKU BIN QTY', 'return SKU QTY', 'ship'")

    def _reveal(self) -> str:
        return "The order needed " + ", ".join(f"{sku} x{n}" for sku, n in sorted(self.order.items())) + "."

    def oracle_action(self) -> str:
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
        roll, sku = rng.random(), rng.choice(self.skus)
        if roll < 0.08:
            return "\\boxed{ship}"
        if roll < 0.3:
            return "\\boxed{find %s}" % rng.choice(self.catalog[sku][0].split()).lower()
        if roll < 0.5:
            return "\\boxed{stock %s}" % sku
        if roll < 0.6 and self.cart:
            return "\\boxed{return %s 1}" % rng.choice(sorted(self.cart))
        bins = sorted(self.bins.get(sku, {})) or ["A-01"]
        return "\\boxed{pick %s %s %d}" % (sku, rng.choice(bins), rng.randint(1, 4))
