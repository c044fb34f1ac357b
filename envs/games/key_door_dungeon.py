"""Explore a dungeon room by room, collecting coloured keys to open doors on the way to the treasure."""

import math
from collections import deque
from functools import cache

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, split_command, win

Room = tuple[int, int]
DIRECTIONS = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
SHORT = {d[0]: d for d in DIRECTIONS}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
COLORS = ["red", "blue", "green", "yellow", "purple", "orange", "white", "black", "silver", "golden"]


def edge(a: Room, b: Room) -> tuple[Room, Room]:
    return (a, b) if a < b else (b, a)


@cache
def grid_neighbours(height: int, width: int) -> dict[Room, list[tuple[str, Room]]]:
    """Each room's (direction, room) neighbours on a height x width grid, in ``DIRECTIONS`` order."""
    return {(r, c): [(d, (r + dr, c + dc)) for d, (dr, dc) in DIRECTIONS.items()
                     if 0 <= r + dr < height and 0 <= c + dc < width]
            for r in range(height) for c in range(width)}


class KeyDoorDungeon(EvolvableEnv):
    domain = "games"
    complexity_params = {"width": (3, 5), "height": (3, 5), "locks": (1, 4), "spare_percent": (80, 15)}
    param_variance = {"width": 1, "height": 1, "spare_percent": 5}
    example_command = "go north"

    def _new_episode(self) -> str:
        self.height, self.width = self.params["height"], self.params["width"]
        self.exits = self._carve_maze()
        self.start = (self.rng.randrange(self.height), self.rng.randrange(self.width))
        distance, parent = self._tree_from(self.start)
        self.goal = max(sorted(distance), key=distance.__getitem__)
        path = [self.goal]
        while path[-1] != self.start:
            path.append(parent[path[-1]])
        path.reverse()
        cut = sorted(self.rng.sample(range(len(path) - 1), min(self.params["locks"], len(path) - 1)))
        self.doors = {edge(path[i], path[i + 1]): COLORS[n % len(COLORS)] for n, i in enumerate(cut)}
        # Each room's ways out as (direction, room, door colour or None, edge), for the walks below.
        self.links = {room: [(d, nxt, self.doors.get(edge(room, nxt)), edge(room, nxt)) for d, nxt in out.items()]
                      for room, out in self.exits.items()}
        self.keys: dict[Room, list[str]] = {}
        for n, i in enumerate(cut):  # key n lies where you can walk once doors 0..n-1 are open
            reachable = sorted(self._reachable(self.start, set(COLORS[:n])))
            room = self.rng.choice([r for r in reachable if r != self.start] or reachable)
            self.keys.setdefault(room, []).append(COLORS[n % len(COLORS)])
        need = self._solver_need()  # other exploration orders cost more, so the spare grows with the walk
        self.budget = need + math.ceil(need * self.params["spare_percent"] / 100)
        return (
            f"You are in a dungeon of {self.height}x{self.width} rooms, each named (row, col): row 0 is the north "
            f"edge, column 0 the west edge.\nFind the treasure room. Some doors are locked; a door of a colour "
            "opens only if you carry the key of that colour (walking through it unlocks it).\nKeys lie in "
            f"rooms and must be picked up. Every command costs one move; you have {self.budget} moves.\n"
            "Commands: \\boxed{go DIRECTION} with DIRECTION one of north, east, south, west (or n, e, s, w); "
            "\\boxed{take} picks up the keys in your room.\nExample: \\boxed{go north}\n\n" + self._describe()
        )

    def _carve_maze(self) -> dict[Room, dict[str, Room]]:
        """A random spanning tree of the room grid (depth-first carving): exactly one path between rooms."""
        neighbours = grid_neighbours(self.height, self.width)
        exits: dict[Room, dict[str, Room]] = {room: {} for room in neighbours}
        stack, seen = [(0, 0)], {(0, 0)}
        while stack:
            here = stack[-1]
            options = [(d, room) for d, room in neighbours[here] if room not in seen]
            if not options:
                stack.pop()
                continue
            d, room = self.rng.choice(options)
            exits[here][d] = room
            exits[room][OPPOSITE[d]] = here
            seen.add(room)
            stack.append(room)
        return exits

    def _tree_from(self, start: Room) -> tuple[dict[Room, int], dict[Room, Room]]:
        distance, parent, queue = {start: 0}, {}, deque([start])
        while queue:
            room = queue.popleft()
            for nxt in self.exits[room].values():
                if nxt not in distance:
                    distance[nxt], parent[nxt] = distance[room] + 1, room
                    queue.append(nxt)
        return distance, parent

    def _reachable(self, start: Room, held: set[str]) -> set[Room]:
        seen, stack = {start}, [start]
        while stack:
            room = stack.pop()
            for _, nxt, door, _ in self.links[room]:
                if nxt not in seen and (door is None or door in held):
                    seen.add(nxt)
                    stack.append(nxt)
        return seen

    def _enter(self) -> None:
        self.pos, self.held, self.moves = self.start, [], 0
        self.opened, self.visited = set(), {self.start}
        self.left = {room: list(colors) for room, colors in self.keys.items()}
        self.descriptions: dict[Room, str] = {}  # kept until a door beside the room opens or its keys go

    def _solver_need(self) -> int:
        self._enter()
        while self.pos != self.goal:
            for command in self._solver_plan():
                self._act(command)
        need = self.moves
        self._enter()
        return need

    def _solver_command(self) -> str:
        return self._solver_plan()[0]

    def _solver_plan(self) -> list[str]:
        """Explore with what has been seen: take keys here, else walk to the nearest unvisited room
        (the treasure room first when one is known to be next door) or to a seen key.

        Gives the whole walk to that room. Walking it through visited rooms teaches nothing, so
        asking again at each step would pick the same room: the walk costs one search, not one per step.
        """
        if self.left.get(self.pos):
            return ["take"]
        came_from, queue, best = {self.pos: None}, deque([self.pos]), None
        while queue:
            room = queue.popleft()
            if room not in self.visited or self.left.get(room):
                if room == self.goal:
                    best = room
                    break
                best = best or room
                continue
            for d, nxt, door, link in self.links[room]:
                if nxt not in came_from and (door is None or door in self.held or link in self.opened):
                    came_from[nxt] = (room, d)
                    queue.append(nxt)
        walk = []
        while best != self.pos:
            best, d = came_from[best]
            walk.append("go " + d)
        return walk[::-1]

    def _act(self, command: str) -> str:
        self.moves += 1
        if command == "take":
            found = self.left.pop(self.pos, [])
            self.held += found
            self.descriptions.pop(self.pos, None)
            return f"You pick up the {' and '.join(found)} key." if found else "There is no key here."
        direction = command.split()[1]
        nxt = self.exits[self.pos].get(direction)
        if nxt is None:
            return f"There is no door to the {direction}."
        link = edge(self.pos, nxt)
        door = self.doors.get(link)
        if door and door not in self.held and link not in self.opened:
            return f"The {door} door to the {direction} is locked."
        text = ""
        if door and link not in self.opened:
            self.opened.add(link)
            self.descriptions.pop(self.pos, None)
            self.descriptions.pop(nxt, None)
            text = f"You unlock the {door} door. "
        self.pos = nxt
        self.visited.add(nxt)
        return text + f"You go {direction}."

    def _describe(self) -> str:
        if self.pos not in self.descriptions:
            self.descriptions[self.pos] = self._room_text()
        return self.descriptions[self.pos]

    def _room_text(self) -> str:
        parts = []
        for d, nxt, door, link in self.links[self.pos]:
            state = "open doorway" if not door else f"{door} door, " + (
                "unlocked" if link in self.opened else "locked")
            parts.append(f"{d} ({state}{', treasure glitters beyond' if nxt == self.goal else ''})")
        keys = self.left.get(self.pos)
        text = f"You are in room {self.pos}. Exits: {'; '.join(parts)}."
        return text + (f" On the floor: {' and '.join(keys)} key." if keys else "")

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        held = ", ".join(self.held) or "none"
        return f"Room {self.pos}. Keys: {held}. Moves used: {self.moves}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        word = args[0].lower() if len(args) == 1 else ""
        direction = SHORT.get(word) or (word if word in DIRECTIONS else None)
        if verb == "take" and not args:
            text = self._act("take")
        elif verb == "go" and direction:
            text = self._act("go " + direction)
        else:
            raise InvalidAction("use 'go DIRECTION' (north, east, south, west) or 'take'")
        if self.pos == self.goal:
            return win(f"{text} You found the treasure room. You win!")
        text += "\n" + self._describe()
        if self.moves >= self.budget:
            return lose(f"{text}\nNo moves left. You lost. {self._reveal()}")
        return Feedback(text)

    def _reveal(self) -> str:
        return f"The treasure room was {self.goal}."

    def oracle_action(self) -> str:
        return "\\boxed{%s}" % self._solver_command()

    def random_action(self, rng) -> str:
        return "\\boxed{take}" if rng.random() < 0.2 else "\\boxed{go %s}" % rng.choice(list(DIRECTIONS))
