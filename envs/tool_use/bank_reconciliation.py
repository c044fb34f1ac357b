"""Page through a bank's transactions API with cursors and report the statement's closing balance."""

import re

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win

INCOME = ["Salary", "Refund", "Transfer in", "Interest", "Sold bike"]
SPENDING = ["Grocer", "Rent", "Cafe", "Power bill", "Books", "Pharmacy", "Gym", "Taxi", "Insurance", "Hardware",
            "Cinema", "Water bill", "Bakery", "Transfer out", "Dentist"]
BASE_RATES = {"EUR": 108, "GBP": 127, "CHF": 113, "CAD": 74, "AUD": 66}  # US cents per unit, moved a little per episode
CURRENCIES = sorted(BASE_RATES)
RULES = {  # in the order levels add them
    "pending": "Transactions with status 'pending' have not settled: they do not count.",
    "period": "Only transactions dated within the statement period count; the API also returns a few from "
              "the neighbouring months.",
    "fx": "Foreign-currency transactions count in USD: multiply the amount by that currency's rate from the "
          "rate endpoint (the result is exact to the cent).",
}
AMOUNT = re.compile(r"^[+-]?\d{1,12}(\.\d{1,2})?$")


def cents_text(cents: int) -> str:
    return f"{'-' if cents < 0 else '+'}{abs(cents) // 100}.{abs(cents) % 100:02d}"


class BankReconciliation(EvolvableEnv):
    domain = "tool_use"
    complexity_params = {"transactions": (8, 40), "page_size": (5, 4), "rules": (1, 3), "spare_turns": (3, 2)}
    param_variance = {"transactions": 3}
    example_command = "transactions"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        self.rule_names = list(RULES)[: p["rules"]]
        self.opening = rng.randint(500, 5000) * 100
        self.rates = {c: base + rng.randint(-4, 4) for c, base in BASE_RATES.items()}
        count = p["transactions"]
        # every transaction's day, whole units and cents, each drawn in one go
        days = rng.choices(range(1, 32), k=count)
        units = rng.choices(range(5, 401), k=count)
        cents = rng.choices(range(100), k=count)
        rows = []
        for i, (day, whole, cent) in enumerate(zip(days, units, cents)):
            month = "03"
            if "period" in self.rule_names and rng.random() < 0.2:
                month, day = rng.choice([("02", rng.randint(20, 29)), ("04", rng.randint(1, 6))])
            currency = "USD"
            if "fx" in self.rule_names and rng.random() < 0.25:
                currency = rng.choice(CURRENCIES)
            income = rng.random() < 0.3
            sign = 1 if income else -1
            amount = sign * (whole if currency != "USD" else whole * 100 + cent)
            status = "pending" if rng.random() < 0.2 else "posted"
            payee = rng.choice(INCOME if income else SPENDING)
            rows.append((f"2024-{month}-{day:02d}", f"T{1000 + 7 * i}", payee, amount, currency, status))
        self.rows = sorted(rows)
        size = p["page_size"]
        self.pages = [self.rows[i : i + size] for i in range(0, len(self.rows), size)]
        codes = rng.sample(range(1 << 24), len(self.pages))
        self.cursors = {f"{code:06x}": i for i, code in enumerate(codes) if i > 0}
        self.cursor_of = {page: cursor for cursor, page in self.cursors.items()}
        self.seen_pages: set[int] = set()
        self.page_texts: dict[int, str] = {}  # each page's text, written when it is first read
        self.rated: set[str] = set()
        self.balance = self.opening + sum(self._usd(row) for row in self.rows if self._counts(row))
        rate_line = "  \\boxed{rate CUR}: the USD rate of a currency, e.g. \\boxed{rate EUR}\n"
        rate_line = rate_line if "fx" in self.rule_names else ""
        return (
            "You reconcile a checking account through the bank's API. The statement period is March 2024.\n"
            f"Opening balance on 2024-03-01: {cents_text(self.opening)} USD. Goal: report the closing balance,\n"
            "that is the opening balance plus every transaction that counts. Rules:\n"
            + "".join(f"- {RULES[rule]}\n" for rule in self.rule_names)
            + "Commands:\n"
            "  \\boxed{transactions}: the first page of transactions (oldest first)\n"
            "  \\boxed{transactions CURSOR}: the page after the one that gave you next_cursor CURSOR\n"
            + rate_line
            + "  \\boxed{answer AMOUNT}: report the closing balance in USD, e.g. \\boxed{answer 1234.56}; "
            "a wrong answer loses.\n"
            "Example: \\boxed{transactions}"
        )

    def _counts(self, row: tuple) -> bool:
        date, *_, status = row
        return status == "posted" and ("period" not in self.rule_names or date[5:7] == "03")

    def _usd(self, row: tuple) -> int:
        amount, currency = row[3], row[4]
        return amount if currency == "USD" else amount * self.rates[currency]

    def _needed_rates(self) -> list[str]:
        return sorted({row[4] for row in self.rows if row[4] != "USD" and self._counts(row)})

    def turn_limit(self) -> int:
        return len(self.pages) + len(self._needed_rates()) + 1 + self.params["spare_turns"]

    def status(self) -> str:
        return f"Pages read: {len(self.seen_pages)}. Turn {self.turn}/{self.max_turns}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "transactions" and len(args) <= 1:
            page = 0 if not args else self.cursors.get(args[0].lower())
            if page is None:
                raise InvalidAction(f"unknown cursor {args[0][:20]!r}; use a next_cursor value the API gave you")
            return Feedback(self._show_page(page))
        if verb == "rate" and len(args) == 1 and "fx" in self.rule_names:
            currency = args[0].upper()
            if currency not in self.rates:
                raise InvalidAction(f"unknown currency {args[0][:20]!r}; known: {', '.join(CURRENCIES)}")
            self.rated.add(currency)
            return Feedback(f"1 {currency} = {self.rates[currency] / 100:.2f} USD")
        if verb == "answer" and len(args) == 1:
            text = args[0].replace("$", "")
            if not AMOUNT.match(text):
                raise InvalidAction("the amount must be a number like 1234.56")
            if round(float(text) * 100) == self.balance:
                return win(f"Correct: the closing balance is {cents_text(self.balance)} USD. You win!")
            return lose(f"Wrong: the closing balance is {cents_text(self.balance)} USD, not {text}. You lost.")
        raise InvalidAction("commands: 'transactions', 'transactions CURSOR', 'rate CUR' (if listed), 'answer AMOUNT'")

    def _show_page(self, page: int) -> str:
        self.seen_pages.add(page)
        if page not in self.page_texts:
            self.page_texts[page] = self._page_text(page)
        return self.page_texts[page]

    def _page_text(self, page: int) -> str:
        lines = [f"Page {page + 1}: date | id | description | amount | currency | status"]
        for date, tid, payee, amount, currency, status in self.pages[page]:
            shown = cents_text(amount) if currency == "USD" else f"{amount:+d}.00"
            lines.append(f"{date} | {tid} | {payee} | {shown} | {currency} | {status}")
        nxt = self.cursor_of.get(page + 1)
        lines.append(f"next_cursor: {nxt}" if nxt else "next_cursor: none (this is the last page)")
        return "\n".join(lines)

    def _reveal(self) -> str:
        return f"The closing balance was {cents_text(self.balance)} USD."

    def oracle_action(self) -> str:
        for page in range(len(self.pages)):
            if page not in self.seen_pages:
                return "\\boxed{transactions%s}" % ("" if page == 0 else " " + self.cursor_of[page])
        for currency in self._needed_rates():
            if currency not in self.rated:
                return "\\boxed{rate %s}" % currency
        return "\\boxed{answer %.2f}" % (self.balance / 100)

    def random_action(self, rng) -> str:
        roll = rng.random()
        if roll < 0.15:
            return "\\boxed{answer %.2f}" % ((self.balance + rng.randint(-5000, 5000)) / 100)
        if roll < 0.3 and "fx" in self.rule_names:
            return "\\boxed{rate %s}" % rng.choice(CURRENCIES)
        known = [self.cursor_of[p + 1] for p in sorted(self.seen_pages) if p + 1 in self.cursor_of]
        return "\\boxed{transactions %s}" % rng.choice(known + [""])
