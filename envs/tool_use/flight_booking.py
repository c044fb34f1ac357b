"""Plan a multi-leg trip with a flight-search API: book the cheapest flight per leg that meets a travel policy."""

import re
from collections.abc import Callable
from functools import lru_cache
from operator import itemgetter
from typing import Any

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win

CITIES = ["LIS", "MAD", "PAR", "BER", "ROM", "VIE", "OSL", "DUB", "ATH", "WAW", "PRG", "CPH", "HEL", "BUD"]
AIRLINES = {"AX": "Axis Air", "BZ": "Breeze", "CQ": "Coastal", "DL": "Delta Lux"}
AIRLINE_CODES = sorted(AIRLINES)
RULES = ["seats", "arrival", "stops", "airline", "bags"]
STOPS = (0, 0, 1, 1, 2)  # a flight's stops are drawn from these
DATE = re.compile(r"^2024-07-(\d{2})$")


@lru_cache(maxsize=None)
def hhmm(minute: int) -> str:
    day, rest = divmod(minute, 24 * 60)
    return f"{rest // 60:02d}:{rest % 60:02d}" + (" (+1 day)" if day else "")


POLICY: dict[str, Callable[[Any], str]] = {  # each rule's line in the opening, written for an episode
    "seats": lambda env: f"- The party is {env.party} travellers on the same flight: it needs {env.party} free seats.",
    "arrival": lambda env: f"- Every flight must land by {hhmm(env.latest)} on its departure day.",
    "stops": lambda env: f"- At most {env.max_stops} stop{'s' if env.max_stops != 1 else ''} per flight.",
    "airline": lambda env: f"- Never fly {env.banned} ({AIRLINES[env.banned]}).",
    "bags": lambda _: "- Each traveller checks one bag: a flight costs (fare + that airline's bag fee) per traveller.",
}
FEES_COMMAND = "  \\boxed{fees AIRLINE}: the checked-bag fee of an airline code, e.g. \\boxed{fees AX}\n"
OPENING = (
    "You are a travel agent. Trip: %s.\nTravel policy:\n%s\n"
    "For every leg, book the cheapest flight that meets the whole policy (fares are per traveller).\n"
    "Commands:\n"
    "  \\boxed{search FROM TO DATE}: flights on a route and date, e.g. \\boxed{%s}\n"
    "%s"
    "  \\boxed{book FLIGHT}: book a flight by id for its leg (booking again for a leg replaces it)\n"
    "  \\boxed{confirm}: submit the itinerary; it wins only if every leg has its cheapest valid flight.\n"
    "Example: \\boxed{%s}"
)


class FlightBooking(EvolvableEnv):
    max_complexity = 60  # distinct flight numbers run out from level 88 on (reset never ends)
    complexity_params = {"legs": (1, 4), "flights": (4, 10), "rules": (1, 5), "spare_turns": (3, 2)}
    param_variance = {"flights": 1}
    example_command = "search LIS MAD 2024-07-02"

    def _new_episode(self) -> str:
        p = self.params
        draw = self.rng.random
        self.rules = RULES[: p["rules"]]
        self.party = 2 + int(draw() * 4)  # 2 to 5 travellers
        self.latest = (18 + int(draw() * 4)) * 60  # 18:00 to 21:00
        self.max_stops = int(draw() * 2)
        self.banned = AIRLINE_CODES[int(draw() * len(AIRLINE_CODES))]
        self.fee = {code: 20 + 5 * int(draw() * 14) for code in AIRLINES}  # 20 to 85 EUR
        # What the rules in force ask of a flight: free seats, landing time, stops, airline (a rule not in
        # force asks nothing), and what a traveller pays on top of the fare.
        rules = self.rules
        self.limits = (
            self.party if "seats" in rules else 0,
            self.latest if "arrival" in rules else 48 * 60,
            self.max_stops if "stops" in rules else max(STOPS),
            self.banned if "airline" in rules else None,
        )
        self.bag_fee = self.fee if "bags" in rules else dict.fromkeys(AIRLINES, 0)
        legs = min(p["legs"], 9)  # dates stay within July
        cities = self.rng.sample(CITIES, legs + 1)
        self.legs = [(cities[i], cities[i + 1], f"2024-07-{2 + 3 * i:02d}") for i in range(legs)]
        self.leg_of = {"search %s %s %s" % route: leg for leg, route in enumerate(self.legs)}  # the usual spelling
        self.flights: dict[str, tuple] = {}  # id -> (id, leg, airline, depart, arrive, stops, fare, seats)
        self.leg_flights: list[list[tuple]] = []  # per leg: its flights
        self.allowed_airlines: list[set[str]] = []  # per leg: the airlines of its flights the policy allows
        self.best = [self._make_leg(leg) for leg in range(legs)]
        self.flight_ids = list(self.flights)
        self.searched: dict[int, str] = {}  # leg -> its search results, written on the first search
        self.fees_seen: set[str] = set()
        self.booked: dict[int, str] = {}
        self.booked_text = "nothing"  # the bookings as the status line shows them
        policy = "\n".join([POLICY[rule](self) for rule in self.rules])
        trip = "; ".join([f"leg {i + 1}: {a} to {b} on {d}" for i, (a, b, d) in enumerate(self.legs)])
        search = "search %s %s %s" % self.legs[0]
        return OPENING % (trip, policy, search, FEES_COMMAND if "bags" in self.rules else "", search)

    def _make_leg(self, leg: int) -> str:
        """Draws the leg's flights until one allowed flight is cheaper than every other; returns its id."""
        draw, count = self.rng.random, self.params["flights"]
        min_seats, land_by, max_stops, banned = self.limits
        while True:
            flights, offers = {}, []  # offers: (cost, id, airline) of each flight the policy allows
            for _ in range(count):
                code = AIRLINE_CODES[int(draw() * len(AIRLINE_CODES))]
                stops = STOPS[int(draw() * len(STOPS))]
                depart = 6 * 60 + 5 * int(draw() * 192)  # 06:00 to 21:55
                arrive = depart + 60 + 5 * int(draw() * 48) + 75 * stops  # 1 h to 4 h 55 min in the air
                fid = f"{code}{100 + int(draw() * 900)}"
                fare, seats = 49 + int(draw() * 351), int(draw() * 10)
                flights[fid] = (fid, leg, code, depart, arrive, stops, fare, seats)
                if seats >= min_seats and arrive <= land_by and stops <= max_stops and code != banned:
                    offers.append((fare + self.bag_fee[code], fid, code))
            offers.sort()
            unique_ids = len(flights) == count and flights.keys().isdisjoint(self.flights)
            if offers and (len(offers) == 1 or offers[0][0] < offers[1][0]) and unique_ids:
                self.flights.update(flights)
                self.leg_flights.append(list(flights.values()))
                self.allowed_airlines.append({code for _, _, code in offers})
                return offers[0][1]

    def _fees_needed(self, leg: int) -> list[str]:
        return sorted(self.allowed_airlines[leg]) if "bags" in self.rules else []

    def turn_limit(self) -> int:
        fees = set().union(*map(self._fees_needed, range(len(self.legs))))
        return 2 * len(self.legs) + len(fees) + 1 + self.params["spare_turns"]

    def status(self) -> str:
        return f"Booked: {self.booked_text}. Turn {self.turn}/{self.max_turns}."

    def _play(self, command: str) -> Feedback:
        if command in self.leg_of:  # a search as usually spelled
            return self._search(self.leg_of[command])
        verb, args = split_command(command)
        if verb == "search" and len(args) == 3:
            route = (args[0].upper(), args[1].upper(), args[2])
            if not DATE.match(args[2]):
                raise InvalidAction("the date must look like 2024-07-02")
            leg = self.leg_of.get("search %s %s %s" % route)
            if leg is None:
                return Feedback(f"No flights found from {route[0][:10]} to {route[1][:10]} on {route[2]}.")
            return self._search(leg)
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
            self.booked_text = ", ".join(f"leg {leg + 1}: {fid}" for leg, fid in sorted(self.booked.items()))
            return Feedback(f"Booked {row[0]} for leg {row[1] + 1} (replaces any earlier booking for that leg).")
        if verb == "confirm" and not args:
            wrong = [leg + 1 for leg, best in enumerate(self.best) if self.booked.get(leg) != best]
            if not wrong:
                return win("Itinerary confirmed: every leg has its cheapest valid flight. You win!")
            return lose(f"Itinerary rejected: leg(s) {wrong} do not have the cheapest valid flight. {self._reveal()}")
        raise InvalidAction("commands: 'search FROM TO DATE', 'fees AIRLINE' (if listed), 'book FLIGHT', 'confirm'")

    def _search(self, leg: int) -> Feedback:
        """The leg's flights by departure time, written on its first search."""
        if leg not in self.searched:
            start, end, date = self.legs[leg]
            rows = sorted(self.leg_flights[leg], key=itemgetter(3))
            self.searched[leg] = "\n".join(
                [f"Flights {start} -> {end} on {date}: id | airline | departs | arrives | stops | fare | seats left"]
                + [
                    f"{fid} | {code} | {hhmm(dep)} | {hhmm(arr)} | {stops} | {fare} EUR | {seats}"
                    for fid, _, code, dep, arr, stops, fare, seats in rows
                ]
            )
        return Feedback(self.searched[leg])

    def _reveal(self) -> str:
        return "The right flights were " + ", ".join(self.best) + "."

    def _solve(self) -> str:
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
