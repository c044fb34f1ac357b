"""Plan a multi-leg trip with a flight-search API: book the cheapest flight per leg that meets a travel policy."""

import re

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win

CITIES = ["LIS", "MAD", "PAR", "BER", "ROM", "VIE", "OSL", "DUB", "ATH", "WAW", "PRG", "CPH", "HEL", "BUD"]
AIRLINES = {"AX": "Axis Air", "BZ": "Breeze", "CQ": "Coastal", "DL": "Delta Lux"}
AIRLINE_CODES = sorted(AIRLINES)
RULES = ["seats", "arrival", "stops", "airline", "bags"]
DATE = re.compile(r"^2024-07-(\d{2})$")


def hhmm(minute: int) -> str:
    day, rest = divmod(minute, 24 * 60)
    return f"{rest // 60:02d}:{rest % 60:02d}" + (" (+1 day)" if day else "")


class FlightBooking(EvolvableEnv):
    domain = "tool_use"
    complexity_params = {"legs": (1, 4), "flights": (4, 10), "rules": (1, 5), "spare_turns": (3, 2)}
    param_variance = {"flights": 1}
    example_command = "search LIS MAD 2024-07-02"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        self.rules = RULES[: p["rules"]]
        self.party = rng.randint(2, 5)
        self.latest = rng.choice([18, 19, 20, 21]) * 60
        self.max_stops = rng.randint(0, 1)
        self.banned = rng.choice(AIRLINE_CODES)
        self.fee = {code: rng.randrange(20, 90, 5) for code in AIRLINES}
        legs = min(p["legs"], 9)  # dates stay within July
        cities = rng.sample(CITIES, legs + 1)
        self.legs = [(cities[i], cities[i + 1], f"2024-07-{2 + 3 * i:02d}") for i in range(legs)]
        self.flights: dict[str, tuple] = {}  # id -> (id, leg, airline, depart, arrive, stops, fare, seats)
        self.best = [self._make_leg(leg) for leg in range(legs)]
        self.flight_ids = sorted(self.flights)
        self.listings: dict[int, str] = {}  # search results per leg, written on the first search
        self.searched: set[int] = set()
        self.fees_seen: set[str] = set()
        self.booked: dict[int, str] = {}
        policy = {
            "seats": f"- The party is {self.party} travellers on the same flight: it needs {self.party} free seats.",
            "arrival": f"- Every flight must land by {hhmm(self.latest)} on its departure day.",
            "stops": f"- At most {self.max_stops} stop{'s' if self.max_stops != 1 else ''} per flight.",
            "airline": f"- Never fly {self.banned} ({AIRLINES[self.banned]}).",
            "bags": "- Each traveller checks one bag: a flight costs (fare + that airline's bag fee) per traveller.",
        }
        trip = "; ".join(f"leg {i + 1}: {a} to {b} on {d}" for i, (a, b, d) in enumerate(self.legs))
        fees = "  \\boxed{fees AIRLINE}: the checked-bag fee of an airline code, e.g. \\boxed{fees AX}\n" \
            if "bags" in self.rules else ""
        return (
            f"You are a travel agent. Trip: {trip}.\nTravel policy:\n"
            + "\n".join(policy[rule] for rule in self.rules)
            + "\nFor every leg, book the cheapest flight that meets the whole policy (fares are per traveller).\n"
            "Commands:\n"
            "  \\boxed{search FROM TO DATE}: flights on a route and date, e.g. "
            f"\\boxed{{search {self.legs[0][0]} {self.legs[0][1]} {self.legs[0][2]}}}\n"
            + fees
            + "  \\boxed{book FLIGHT}: book a flight by id for its leg (booking again for a leg replaces it)\n"
            "  \\boxed{confirm}: submit the itinerary; it wins only if every leg has its cheapest valid flight.\n"
            f"Example: \\boxed{{search {self.legs[0][0]} {self.legs[0][1]} {self.legs[0][2]}}}"
        )

    def _make_leg(self, leg: int) -> str:
        rng, k = self.rng, self.params["flights"]
        while True:
            # each field of the k flights in one draw: airline, stops, departure, duration, number, fare, seats
            fields = zip(rng.choices(AIRLINE_CODES, k=k), rng.choices([0, 0, 1, 1, 2], k=k),
                         rng.choices(range(6 * 60, 22 * 60, 5), k=k), rng.choices(range(60, 300, 5), k=k),
                         rng.choices(range(100, 1000), k=k), rng.choices(range(49, 400), k=k),
                         rng.choices(range(10), k=k))
            rows = [(f"{code}{number}", leg, code, depart, depart + duration + 75 * stops, stops, fare, seats)
                    for code, stops, depart, duration, number, fare, seats in fields]
            valid = sorted((self._cost(row), row[0]) for row in rows if self._allowed(row))
            ids = [row[0] for row in rows]
            if valid and (len(valid) == 1 or valid[0][0] != valid[1][0]) and len(set(ids)) == len(ids) \
                    and not set(ids) & set(self.flights):
                self.flights.update((row[0], row) for row in rows)
                return valid[0][1]

    def _allowed(self, row: tuple) -> bool:
        _, _, code, depart, arrive, stops, _, seats = row
        rules = self.rules
        return not (("seats" in rules and seats < self.party) or ("arrival" in rules and arrive > self.latest)
                    or ("stops" in rules and stops > self.max_stops) or ("airline" in rules and code == self.banned))

    def _cost(self, row: tuple) -> int:
        return row[6] + (self.fee[row[2]] if "bags" in self.rules else 0)

    def _fees_needed(self, leg: int) -> list[str]:
        if "bags" not in self.rules:
            return []
        return sorted({row[2] for row in self.flights.values() if row[1] == leg and self._allowed(row)})

    def turn_limit(self) -> int:
        fees = {code for leg in range(len(self.legs)) for code in self._fees_needed(leg)}
        return 2 * len(self.legs) + len(fees) + 1 + self.params["spare_turns"]

    def status(self) -> str:
        booked = ", ".join(f"leg {leg + 1}: {fid}" for leg, fid in sorted(self.booked.items())) or "nothing"
        return f"Booked: {booked}. Turn {self.turn}/{self.max_turns}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "search" and len(args) == 3:
            route = (args[0].upper(), args[1].upper(), args[2])
            if not DATE.match(args[2]):
                raise InvalidAction("the date must look like 2024-07-02")
            if route not in self.legs:
                return Feedback(f"No flights found from {route[0][:10]} to {route[1][:10]} on {route[2]}.")
            leg = self.legs.index(route)
            self.searched.add(leg)
            if leg not in self.listings:
                self.listings[leg] = self._listing(leg)
            return Feedback(self.listings[leg])
        if verb == "fees" and len(args) == 1 and "bags" in self.rules:
            code = args[0].upper()
            if code not in AIRLINES:
                raise InvalidAction(f"unknown airline {args[0][:10]!r}; airlines: {', '.join(AIRLINE_CODES)}")
            self.fees_seen.add(code)
            return Feedback(f"{code} ({AIRLINES[code]}): checked bag {self.fee[code]} EUR per traveller")
        if verb == "book" and len(args) == 1:
            row = self.flights.get(args[0].upper())
            if row is None:
                raise InvalidAction(f"no flight with id {args[0][:10]!r}; use an id from the search results")
            self.booked[row[1]] = row[0]
            return Feedback(f"Booked {row[0]} for leg {row[1] + 1} (replaces any earlier booking for that leg).")
        if verb == "confirm" and not args:
            wrong = [leg + 1 for leg, best in enumerate(self.best) if self.booked.get(leg) != best]
            if not wrong:
                return win("Itinerary confirmed: every leg has its cheapest valid flight. You win!")
            return lose(f"Itinerary rejected: leg(s) {wrong} do not have the cheapest valid flight. {self._reveal()}")
        raise InvalidAction("commands: 'search FROM TO DATE', 'fees AIRLINE' (if listed), 'book FLIGHT', 'confirm'")

    def _listing(self, leg: int) -> str:
        start, end, date = self.legs[leg]
        lines = [f"Flights {start} -> {end} on {date}: id | airline | departs | arrives | stops | fare | seats left"]
        rows = sorted((row for row in self.flights.values() if row[1] == leg), key=lambda row: row[3])
        lines += [f"{fid} | {code} | {hhmm(dep)} | {hhmm(arr)} | {stops} | {fare} EUR | {seats}"
                  for fid, _, code, dep, arr, stops, fare, seats in rows]
        return "\n".join(lines)

    def _reveal(self) -> str:
        return "The right flights were " + ", ".join(self.best) + "."

    def oracle_action(self) -> str:
        for leg, best in enumerate(self.best):
            if leg not in self.searched:
                return "\\boxed{search %s %s %s}" % self.legs[leg]
            missing = [code for code in self._fees_needed(leg) if code not in self.fees_seen]
            if missing:
                return "\\boxed{fees %s}" % missing[0]
            if self.booked.get(leg) != best:
                return "\\boxed{book %s}" % best
        return "\\boxed{confirm}"

    def random_action(self, rng) -> str:
        roll = rng.random()
        if roll < 0.1:
            return "\\boxed{confirm}"
        if roll < 0.35:
            return "\\boxed{book %s}" % rng.choice(self.flight_ids)
        if roll < 0.5 and "bags" in self.rules:
            return "\\boxed{fees %s}" % rng.choice(AIRLINE_CODES)
        return "\\boxed{search %s %s %s}" % rng.choice(self.legs)
