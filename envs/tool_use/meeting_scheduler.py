"""Book the earliest common meeting slot by querying each attendee's free/busy calendar, across time zones."""

import re
from functools import lru_cache
from typing import Iterator

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win

PEOPLE = ["Ana", "Ben", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kofi", "Lea"]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri"]
SLOTS = 16  # half hours from 09:00 to 17:00 in the organizer's time zone; a day's busy slots are a bitmask
WHOLE_DAY = (1 << SLOTS) - 1
# A busy block: 1 to 4 half hours from any slot, cut at the end of the day.
BLOCKS = tuple(((1 << length) - 1) << start & WHOLE_DAY for start in range(SLOTS) for length in range(1, 5))
CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
SHIFTS = (-3, -2, -1, 1, 2, 3)  # a remote attendee's hours ahead of the organizer
ZONES = {0: "your time zone"} | {
    shift: f"local time is {abs(shift)} h {'ahead of' if shift > 0 else 'behind'} you" for shift in SHIFTS
}  # a calendar's header, by its hours ahead
OPENING = (
    "Schedule a %d-minute meeting for %s.\n"
    "It must fall between 09:00 and 17:00 of your time zone on one of the days %s, start on\n"
    "the hour or half hour, and overlap nobody's busy time. Book the earliest such slot: the first day\n"
    "that has one, and the earliest start on that day. Calendars are private: ask for them one at a time.\n"
    "A calendar is shown in its owner's local time, and its header says how that differs from yours.\n"
    "Commands:\n"
    "  \\boxed{freebusy NAME DAY}: the busy intervals of one attendee on day DAY (a number)\n"
    "  \\boxed{book DAY HH:MM}: book the meeting at HH:MM of your time on day DAY; this ends the game,\n"
    "  and only the earliest valid slot wins.\n"
    "Example: \\boxed{freebusy %s 1}"
)


@lru_cache(maxsize=None)
def clock(slot: int) -> str:
    return f"{9 + slot // 2:02d}:{30 * (slot % 2):02d}"


def busy_runs(busy: int) -> Iterator[tuple[int, int]]:
    """(first slot, slot after the last) of each run of busy slots, in order."""
    while busy:
        start = end = (busy & -busy).bit_length() - 1
        while busy >> end & 1:
            end += 1
        yield start, end
        busy &= -1 << end  # the slots from ``end`` on


def earliest(busy: int, length: int) -> int | None:
    """The first start of ``length`` free slots in a day with the ``busy`` slots, or None."""
    free = starts = WHOLE_DAY & ~busy
    for k in range(1, length):
        starts &= free >> k  # the slot k later is free too
    return (starts & -starts).bit_length() - 1 if starts else None


@lru_cache(maxsize=16)
def day_names(days: int) -> str:
    return ", ".join(f"{d + 1} ({WEEKDAYS[d % 5]})" for d in range(days))


@lru_cache(maxsize=64)
def book_commands(days: int, length: int) -> tuple[str, ...]:
    """Every well-formed booking, for random play."""
    return tuple(
        f"\\boxed{{book {day} {clock(slot)}}}" for day in range(1, days + 1) for slot in range(SLOTS - length + 1)
    )


class MeetingScheduler(EvolvableEnv):
    max_complexity = 60  # the meeting no longer fits in a day from level 75 on
    complexity_params = {
        "attendees": (2, 6),
        "days": (1, 4),
        "length": (1, 3),
        "remote": (0, 3),
        "busy_blocks": (2, 4),
        "spare_turns": (3, 2),
    }
    param_variance = {"length": 0.5, "busy_blocks": 1}
    example_command = "freebusy Ana 1"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        self.people = rng.sample(PEOPLE, min(p["attendees"], len(PEOPLE)))
        remote = self.people[: p["remote"]]  # the people come in random order
        self.offset = {name: rng.choice(SHIFTS) if name in remote else 0 for name in self.people}
        self.length, days = p["length"], p["days"]
        # busy[day][person]: the half-hour slots (organizer time) the person is busy
        self.busy = [{name: self._random_busy() for name in self.people} for _ in range(days)]
        self.target_day = rng.randint((days - 1) // 2, days - 1)
        for day in range(self.target_day):  # close every common gap before the target day
            taken = self._taken(day)
            while (start := earliest(taken, self.length)) is not None:
                slot = 1 << (start + int(rng.random() * self.length))
                self.busy[day][self.people[int(rng.random() * len(self.people))]] |= slot
                taken |= slot
        taken = self._taken(self.target_day)
        if earliest(taken, self.length) is None:
            meeting = ((1 << self.length) - 1) << rng.randint(0, SLOTS - self.length)
            for name in self.people:
                self.busy[self.target_day][name] &= ~meeting
            taken &= ~meeting
        self.answer = (self.target_day, earliest(taken, self.length))
        self.shown: dict[tuple[str, int], str] = {}  # (name, day) -> the calendar's text, for those shown
        return OPENING % (30 * self.length, ", ".join(self.people), day_names(days), self.people[0])

    def _random_busy(self) -> int:
        busy, random = 0, self.rng.random
        for _ in range(1 + int(random() * self.params["busy_blocks"])):
            busy |= BLOCKS[int(random() * len(BLOCKS))]
        return busy

    def _taken(self, day: int) -> int:
        """The slots of ``day`` when someone is busy."""
        taken = 0
        for busy in self.busy[day].values():
            taken |= busy
        return taken

    def turn_limit(self) -> int:
        return len(self.people) * len(self.busy) + 1 + self.params["spare_turns"]

    def status(self) -> str:
        return f"Calendars viewed: {len(self.shown)}. Turn {self.turn}/{self.max_turns}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "freebusy" and len(args) == 2:
            name = args[0].capitalize()
            if name not in self.people:
                raise InvalidAction(f"no attendee named {args[0][:20]!r}; attendees: {', '.join(self.people)}")
            return self._freebusy(name, parse_int(args[1], 1, len(self.busy), "day") - 1)
        if verb == "book" and len(args) == 2:
            day = parse_int(args[0], 1, len(self.busy), "day") - 1
            match = CLOCK.match(args[1])
            if not match or match.group(2) not in ("00", "30"):
                raise InvalidAction("time must be HH:MM on the hour or half hour, e.g. 10:30")
            slot = (int(match.group(1)) - 9) * 2 + int(match.group(2)) // 30
            if not 0 <= slot <= SLOTS - self.length:
                raise InvalidAction(f"the meeting must start between 09:00 and {clock(SLOTS - self.length)}")
            if (day, slot) == self.answer:
                return win(f"Booked day {day + 1} at {clock(slot)}: everyone is free and no slot is earlier. You win!")
            meeting = ((1 << self.length) - 1) << slot
            clash = [name for name in self.people if self.busy[day][name] & meeting]
            reason = f"{', '.join(clash)} busy then" if clash else "not the earliest"
            return lose(f"Booking rejected ({reason}). {self._reveal()} You lost.")
        raise InvalidAction("commands: 'freebusy NAME DAY', 'book DAY HH:MM'")

    def _freebusy(self, name: str, day: int) -> Feedback:
        """The attendee's busy intervals that day, in their local time; written when first asked for."""
        if (name, day) not in self.shown:
            shift = self.offset[name]
            runs = busy_runs(self.busy[day][name])
            local = [f"{clock(start + 2 * shift)}-{clock(end + 2 * shift)}" for start, end in runs]
            self.shown[name, day] = f"{name}, day {day + 1} ({ZONES[shift]}): busy {', '.join(local) or 'never'}"
        return Feedback(self.shown[name, day])

    def _reveal(self) -> str:
        return f"The earliest valid slot was day {self.answer[0] + 1} at {clock(self.answer[1])}."

    def _solve(self) -> str:
        for day in range(len(self.busy)):
            for name in self.people:
                if (name, day) not in self.shown:
                    return "\\boxed{freebusy %s %d}" % (name, day + 1)
            if day == self.answer[0]:
                return "\\boxed{book %d %s}" % (day + 1, clock(self.answer[1]))
        raise AssertionError("unreachable: the target day always has a slot")

    def random_action(self, rng) -> str:
        if rng.random() < 0.2:
            return rng.choice(book_commands(len(self.busy), self.length))
        return "\\boxed{freebusy %s %d}" % (rng.choice(self.people), 1 + int(rng.random() * len(self.busy)))
