"""Book the earliest common meeting slot by querying each attendee's free/busy calendar, across time zones."""

import re

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_int, split_command, win

PEOPLE = ["Ana", "Ben", "Chen", "Dara", "Eli", "Femi", "Gus", "Hana", "Ivo", "Jun", "Kofi", "Lea"]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri"]
SLOTS = 16  # half hours from 09:00 to 17:00 in the organizer's time zone
CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")


def clock(slot: int) -> str:
    return f"{9 + slot // 2:02d}:{30 * (slot % 2):02d}"


class MeetingScheduler(EvolvableEnv):
    domain = "tool_use"
    complexity_params = {"attendees": (2, 6), "days": (1, 4), "length": (1, 3), "remote": (0, 3),
                         "busy_blocks": (2, 4), "spare_turns": (3, 2)}
    param_variance = {"length": 0.5, "busy_blocks": 1}
    example_command = "freebusy Ana 1"

    def _new_episode(self) -> str:
        rng, p = self.rng, self.params
        self.people = rng.sample(PEOPLE, min(p["attendees"], len(PEOPLE)))
        remote = rng.sample(self.people, min(p["remote"], len(self.people)))
        self.offset = {name: rng.choice([-3, -2, -1, 1, 2, 3]) if name in remote else 0 for name in self.people}
        self.length, days = p["length"], p["days"]
        # busy[day][person]: set of half-hour slots (organizer time) the person is busy
        self.busy = [{name: self._random_busy() for name in self.people} for _ in range(days)]
        self.target_day = rng.randint((days - 1) // 2, days - 1)
        for day in range(self.target_day):
            while (start := self._earliest(day)) is not None:  # close every common gap before the target day
                self.busy[day][rng.choice(self.people)].add(start + rng.randrange(self.length))
        if self._earliest(self.target_day) is None:
            start = rng.randint(0, SLOTS - self.length)
            for slots in self.busy[self.target_day].values():
                slots.difference_update(range(start, start + self.length))
        self.answer = (self.target_day, self._earliest(self.target_day))
        self.shown: set[tuple[str, int]] = set()
        self.calendars: dict[tuple[str, int], str] = {}  # each calendar's text, written when first shown
        day_names = ", ".join(f"{d + 1} ({WEEKDAYS[d % 5]})" for d in range(days))
        return (
            f"Schedule a {30 * self.length}-minute meeting for {', '.join(self.people)}.\n"
            f"It must fall between 09:00 and 17:00 of your time zone on one of the days {day_names}, start on\n"
            "the hour or half hour, and overlap nobody's busy time. Book the earliest such slot: the first day\n"
            "that has one, and the earliest start on that day. Calendars are private: ask for them one at a time.\n"
            "A calendar is shown in its owner's local time, and its header says how that differs from yours.\n"
            "Commands:\n"
            "  \\boxed{freebusy NAME DAY}: the busy intervals of one attendee on day DAY (a number)\n"
            "  \\boxed{book DAY HH:MM}: book the meeting at HH:MM of your time on day DAY; this ends the game,\n"
            "  and only the earliest valid slot wins.\n"
            f"Example: \\boxed{{freebusy {self.people[0]} 1}}"
        )

    def _random_busy(self) -> set[int]:
        slots: set[int] = set()
        for _ in range(self.rng.randint(1, self.params["busy_blocks"])):
            start = self.rng.randrange(SLOTS)
            slots.update(range(start, min(SLOTS, start + self.rng.randint(1, 4))))
        return slots

    def _earliest(self, day: int, among: list[str] | None = None) -> int | None:
        taken = set().union(*(self.busy[day][name] for name in (self.people if among is None else among)))
        return next((s for s in range(SLOTS - self.length + 1)
                     if taken.isdisjoint(range(s, s + self.length))), None)

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
            day = parse_int(args[1], 1, len(self.busy), "day") - 1
            self.shown.add((name, day))
            if (name, day) not in self.calendars:
                self.calendars[name, day] = self._calendar(name, day)
            return Feedback(self.calendars[name, day])
        if verb == "book" and len(args) == 2:
            day = parse_int(args[0], 1, len(self.busy), "day") - 1
            match = CLOCK.match(args[1])
            if not match or match.group(2) not in ("00", "30"):
                raise InvalidAction("time must be HH:MM on the hour or half hour, e.g. 10:30")
            slot = (int(match.group(1)) - 9) * 2 + int(match.group(2)) // 30
            if not 0 <= slot <= SLOTS - self.length:
                raise InvalidAction(f"the meeting must start between 09:00 and {clock(SLOTS - self.length)}")
            best = f"The earliest valid slot was day {self.answer[0] + 1} at {clock(self.answer[1])}."
            if (day, slot) == self.answer:
                return win(f"Booked day {day + 1} at {clock(slot)}: everyone is free and no slot is earlier. You win!")
            clash = [n for n in self.people if self.busy[day][n] & set(range(slot, slot + self.length))]
            reason = f"{', '.join(clash)} busy then" if clash else "not the earliest"
            return lose(f"Booking rejected ({reason}). {best} You lost.")
        raise InvalidAction("commands: 'freebusy NAME DAY', 'book DAY HH:MM'")

    def _calendar(self, name: str, day: int) -> str:
        shift = self.offset[name]
        side = "ahead of" if shift > 0 else "behind"
        zone = f"local time is {abs(shift)} h {side} you" if shift else "your time zone"
        blocks, slots = [], sorted(self.busy[day][name])
        for slot in slots:
            if blocks and blocks[-1][1] == slot:
                blocks[-1][1] = slot + 1
            else:
                blocks.append([slot, slot + 1])
        local = [f"{clock(a + 2 * shift)}-{clock(b + 2 * shift)}" for a, b in blocks]
        return f"{name}, day {day + 1} ({zone}): busy {', '.join(local) or 'never'}"

    def _reveal(self) -> str:
        return f"The earliest valid slot was day {self.answer[0] + 1} at {clock(self.answer[1])}."

    def oracle_action(self) -> str:
        for day in range(len(self.busy)):
            for name in self.people:
                if (name, day) not in self.shown:
                    return "\\boxed{freebusy %s %d}" % (name, day + 1)
            if day == self.answer[0]:
                return "\\boxed{book %d %s}" % (day + 1, clock(self.answer[1]))
        raise AssertionError("unreachable: the target day always has a slot")

    def random_action(self, rng) -> str:
        day = rng.randint(1, len(self.busy))
        if rng.random() < 0.2:
            return "\\boxed{book %d %s}" % (day, clock(rng.randint(0, SLOTS - self.length)))
        return "\\boxed{freebusy %s %d}" % (rng.choice(self.people), day)
