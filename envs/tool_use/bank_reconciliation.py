"""Page through a bank's transactions API with cursors and report the statement's closing balance."""

import itertools
import re
from functools import cache

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, pick, split_command, win

INCOME = ["Salary", "Refund", "Transfer in", "Interest", "Sold bike"]
SPENDING = [
    "Grocer",
    "Rent",
    "Cafe",
    "Power bill",
    "Books",
    "Pharmacy",
    "Gym",
    "Taxi",
    "Insurance",
    "Hardware",
    "Cinema",
    "Water bill",
    "Bakery",
    "Transfer out",
    "Dentist",
]
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

# A transaction's draws, each in one go. Kind: 30% income, 20% pending, the payee uniform within income or spending.
KINDS = [
    (payee, sign, status)
    for payees, sign in ((INCOME, 1), (SPENDING, -1))
    for payee in payees
    for status in ("posted", "pending")
]
KIND_WEIGHTS = list(
    itertools.accumulate(
        (0.3 if sign > 0 else 0.7) / (5 if sign > 0 else 15) * (0.8 if status == "posted" else 0.2)
        for _, sign, status in KINDS
    )
)
MARCH = [f"2024-03-{day:02d}" for day in range(1, 32)]
# With the period rule a fifth of the dates fall outside March: half in February's last days, half in April's first.
ANY_DATE = MARCH + [f"2024-02-{day}" for day in range(20, 30)] + [f"2024-04-0{day}" for day in range(1, 7)]
ANY_DATE_WEIGHTS = list(itertools.accumulate([0.8 / 31] * 31 + [0.1 / 10] * 10 + [0.1 / 6] * 6))
CURRENCY = ["USD"] + CURRENCIES  # with the fx rule a quarter of the transactions are in a foreign currency
CURRENCY_WEIGHTS = [0.75, 0.8, 0.85, 0.9, 0.95, 1.0]
CENTS = range(500, 40100)  # 5.00 to 400.99; foreign amounts are whole units (the cents dropped)


def cents_text(cents: int) -> str:
    return f"{cents / 100:+.2f}"


@cache
def transaction_ids(count: int) -> list[str]:
    return [f"T{1000 + 7 * i}" for i in range(count)]


@cache
def instructions(rule_names: tuple[str, ...]) -> str:
    """Everything in the opening after the opening balance."""
    rate_line = "  \\boxed{rate CUR}: the USD rate of a currency, e.g. \\boxed{rate EUR}\n"
    return (
        " USD. Goal: report the closing balance,\nthat is the opening balance plus every transaction that counts. "
        "Rules:\n" + "".join(f"- {RULES[rule]}\n" for rule in rule_names) + "Commands:\n"
        "  \\boxed{transactions}: the first page of transactions (oldest first)\n"
        "  \\boxed{transactions CURSOR}: the page after the one that gave you next_cursor CURSOR\n"
        + (rate_line if "fx" in rule_names else "")
        + "  \\boxed{answer AMOUNT}: report the closing balance in USD, e.g. \\boxed{answer 1234.56}; "
        "a wrong answer loses.\n"
        "Example: \\boxed{transactions}"
    )


class BankReconciliation(EvolvableEnv):
    max_complexity = 40  # pages would hold no transaction from level 42 on
    complexity_params = {"transactions": (8, 40), "page_size": (5, 4), "rules": (1, 3), "spare_turns": (3, 2)}
    param_variance = {"transactions": 3}
    example_command = "transactions"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        self.rule_names = tuple(RULES)[: p["rules"]]
        fx, period = "fx" in self.rule_names, "period" in self.rule_names
        self.opening = rng.randint(500, 5000) * 100
        self.rates = {c: base + rng.randint(-4, 4) for c, base in BASE_RATES.items()} if fx else {}
        count = p["transactions"]
        dates = rng.choices(ANY_DATE, cum_weights=ANY_DATE_WEIGHTS, k=count) if period else rng.choices(MARCH, k=count)
        kinds = rng.choices(KINDS, cum_weights=KIND_WEIGHTS, k=count)
        amounts = rng.choices(CENTS, k=count)
        currencies = rng.choices(CURRENCY, cum_weights=CURRENCY_WEIGHTS, k=count) if fx else itertools.repeat("USD")
        # A row: (date, id, (payee, sign, status), amount in cents (abroad: whole units, the cents dropped),
        # currency), oldest first; ids go up with the date.
        self.rows = list(zip(sorted(dates), transaction_ids(count), kinds, amounts, currencies))
        size = p["page_size"]
        self.pages = [self.rows[i : i + size] for i in range(0, len(self.rows), size)]
        self.cursor_of: dict[int, str] = {}  # page -> the cursor that fetches it (every page but the first)
        while len(self.cursor_of) < len(self.pages) - 1:
            cursor = f"{rng.getrandbits(24):06x}"
            if cursor not in self.cursor_of.values():
                self.cursor_of[len(self.cursor_of) + 1] = cursor
        self.cursors = {cursor: page for page, cursor in self.cursor_of.items()}
        self.seen_pages: set[int] = set()
        self.page_texts: dict[int, str] = {}  # each page's text, written when it is first read
        self.known_cursors = [""]  # what random play may ask for: the first page, and every cursor seen
        self.rated: set[str] = set()
        self.balance = self.opening + sum(
            sign * (cents if currency == "USD" else cents // 100 * self.rates[currency])  # in US cents
            for _, _, (_, sign, _), cents, currency in self._counted()
        )
        return (
            f"You reconcile a checking account through the bank's API. The statement period is March 2024.\n"
            f"Opening balance on 2024-03-01: {cents_text(self.opening)}" + instructions(self.rule_names)
        )

    def _counted(self) -> list[tuple]:
        """The rows that count towards the closing balance."""
        period = "period" in self.rule_names
        return [row for row in self.rows if row[2][2] == "posted" and (not period or row[0][5:7] == "03")]

    def _needed_rates(self) -> list[str]:
        if "fx" not in self.rule_names:
            return []
        return sorted({row[4] for row in self._counted() if row[4] != "USD"})

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
        if page not in self.page_texts:
            self.page_texts[page] = self._page_text(page)
            if page + 1 in self.cursor_of:
                self.known_cursors.append(self.cursor_of[page + 1])
        self.seen_pages.add(page)
        return self.page_texts[page]

    def _page_text(self, page: int) -> str:
        lines = [f"Page {page + 1}: date | id | description | amount | currency | status"]
        for date, tid, (payee, sign, status), cents, currency in self.pages[page]:
            shown = f"{sign * cents / 100:+.2f}" if currency == "USD" else f"{sign * (cents // 100):+d}.00"
            lines.append(f"{date} | {tid} | {payee} | {shown} | {currency} | {status}")
        nxt = self.cursor_of.get(page + 1)
        lines.append(f"next_cursor: {nxt}" if nxt else "next_cursor: none (this is the last page)")
        return "\n".join(lines)

    def _reveal(self) -> str:
        return f"The closing balance was {cents_text(self.balance)} USD."

    def _solve(self) -> str:
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
        known = self.known_cursors
        return "\\boxed{transactions %s}" % pick(rng, known)
