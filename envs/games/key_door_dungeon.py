"""Explore a dungeon room by room, collecting coloured keys to open doors on the way to the treasure."""

import itertools
import math
from functools import cache
from typing import NamedTuple

from gymverse.env import CommandTable, EvolvableEnv, Feedback, InvalidAction, pick, win

Room = int  # row * width + col: reading order (north to south, west to east) is numeric order
DIRECTIONS = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}
OPPOSITE = {"north": "south", "south": "north", "east": "west", "west": "east"}
# Every command, spaced and lower-cased, and what it does.
COMMANDS = {"take": "take"} | {f"go {d}": d for d in DIRECTIONS} | {f"go {d[0]}": d for d in DIRECTIONS}


def parse_action(command: str) -> str:
    """'take', or the direction of a 'go' command, however spaced, cased or spelled short."""
    action = COMMANDS.get(" ".join(command.replace(",", " ").lower().split()))
    if action is None:
        raise InvalidAction("use 'go DIRECTION' (north, east, south, west) or 'take'")
    return action


ACTIONS = CommandTable(parse_action)
GO_ACTIONS = tuple("\\boxed{go %s}" % d for d in DIRECTIONS)
COLORS = ["red", "blue", "green", "yellow", "purple", "orange", "white", "black", "silver", "golden"]


class Grid(NamedTuple):
    """What a maze of a given size starts from (worked out once per size)."""

    names: tuple[str, ...]  # each room's name as observations write it, "(row, col)"
    exit_orders: tuple[list[tuple[tuple[Room, str, Room, str], ...]], ...]  # every order of a room's ways out


@cache
def grid(height: int, width: int) -> Grid:
    ways_out = [
        [
            (r * width + c, d, (r + dr) * width + c + dc, OPPOSITE[d])
            for d, (dr, dc) in DIRECTIONS.items()
            if 0 <= r + dr < height and 0 <= c + dc < width
        ]
        for r in range(height)
        for c in range(width)
    ]
    return Grid(
        tuple(f"({r}, {c})" for r in range(height) for c in range(width)),
        tuple(list(itertools.permutations(ways)) for ways in ways_out),
    )


class KeyDoorDungeon(EvolvableEnv):
    max_complexity = 100
    complexity_params = {"width": (3, 5), "height": (3, 5), "locks": (1, 4), "spare_percent": (80, 15)}
    param_variance = {"width": 1, "height": 1, "spare_percent": 5}
    example_command = "go north"

    def _new_episode(self) -> str:
        rng = self.rng
        self.height, self.width = self.params["height"], self.params["width"]
        self.grid = grid(self.height, self.width)
        self.exits = self._dig_maze()
        self.start = rng.randrange(len(self.exits))
        order, parent, depth = self._tree_from(self.start)
        self.goal = order[-1]  # a farthest room
        path = [self.goal]
        while path[-1] != self.start:
            path.append(parent[path[-1]])
        path.reverse()
        cut = sorted(rng.sample(range(len(path) - 1), min(self.params["locks"], len(path) - 1)))
        behind = {path[i + 1]: COLORS[n % len(COLORS)] for n, i in enumerate(cut)}  # door colours, by the far room
        self.doors = {}  # colour of the door between two rooms, both ways round
        for room, color in behind.items():
            self.doors[room, parent[room]] = self.doors[parent[room], room] = color
        # Every room hangs off the start-treasure path at one of its rooms: ``joins`` is that room's index.
        joins = [-1] * len(order)
        for i, room in enumerate(path):
            joins[room] = i
        for room in order:  # a room's parent comes first
            if joins[room] < 0:
                joins[room] = joins[parent[room]]
        self.keys: dict[Room, list[str]] = {}
        for n, i in enumerate(cut):  # key n lies where you can walk once doors 0..n-1 are open (not at the start)
            room = rng.choice([room for room in order[1:] if joins[room] <= i] or [self.start])
            self.keys.setdefault(room, []).append(COLORS[n % len(COLORS)])
        need = self._solver_need(parent, depth, joins, behind)
        self.budget = need + math.ceil(need * self.params["spare_percent"] / 100)
        self._enter()
        return (
            f"You are in a dungeon of {self.height}x{self.width} rooms, each named (row, col): row 0 is the north "
            "edge, column 0 the west edge.\nFind the treasure room. Some doors are locked; a door of a colour opens "
            "only if you carry the key of that colour (walking through it unlocks it).\nKeys lie in rooms and must "
            f"be picked up. Every command costs one move; you have {self.budget} moves.\n"
            "Commands: \\boxed{go DIRECTION} with DIRECTION one of north, east, south, west (or n, e, s, w); "
            "\\boxed{take} picks up the keys in your room.\nExample: \\boxed{go north}\n\n" + self._describe()
        )

    def _dig_maze(self) -> list[dict[str, Room]]:
        """A random spanning tree of the room grid, dug depth-first from room 0, each room's ways out tried in a
        random order: exactly one path between rooms. Gives each room's exits, direction -> room."""
        orders, random = self.grid.exit_orders, self.rng.random
        exits: list[dict[str, Room]] = [{} for _ in orders]
        dug = [True] + [False] * (len(orders) - 1)
        stack = list(orders[0][int(random() * len(orders[0]))])  # ways to try, the latest first
        while stack:
            here, d, room, back = stack.pop()
            if dug[room]:
                continue
            dug[room] = True
            exits[here][d] = room
            exits[room][back] = here
            ways = orders[room]
            stack += ways[int(random() * len(ways))]
        return exits

    def _tree_from(self, root: Room) -> tuple[list[Room], list[Room], list[int]]:
        """The maze hanging from ``root``: its rooms in breadth-first order, each room's parent (``root``'s is
        -1) and depth."""
        parent, depth = [-1] * len(self.exits), [0] * len(self.exits)
        order = [root]
        for room in order:  # grows as it goes
            for nxt in self.exits[room].values():
                if nxt != parent[room]:
                    parent[nxt], depth[nxt] = room, depth[room] + 1
                    order.append(nxt)
        return order, parent, depth

    def _solver_need(self, parent, depth, joins, behind) -> int:
        """The moves the solver (``_solver_command``) makes from the start, counted without playing it.

        The solver takes the keys where it finds them and otherwise walks to the nearest room on offer
        (``frontier``: not visited, next to a visited room, through no door it cannot open; the treasure room
        first, else the first in reading order of the nearest), so it is enough to add up the distances, along
        the maze's tree, from each of those rooms to the next.
        """

        def distance(a: Room, b: Room) -> int:
            if joins[a] != joins[b]:  # on different branches off the start-treasure path: they meet on it
                return depth[a] + depth[b] - 2 * min(joins[a], joins[b])
            steps = 0
            while a != b:  # climb from the deeper room until they meet
                if depth[a] < depth[b]:
                    a, b = b, a
                a, steps = parent[a], steps + 1
            return steps

        exits, keys, goal = self.exits, self.keys, self.goal
        pos, need, held = self.start, 0, set()
        frontier: list[Room] = []
        locked: dict[str, list[Room]] = {}  # colour -> unvisited rooms behind a seen door of that colour
        while True:
            if pos in keys:
                need += 1
                for color in keys[pos]:
                    held.add(color)
                    frontier += locked.pop(color, [])
            ahead = []  # the rooms on offer one step away
            for room in exits[pos].values():
                if room == parent[pos]:
                    continue
                color = behind.get(room)
                if color is None or color in held:
                    ahead.append(room)
                else:
                    locked.setdefault(color, []).append(room)
            if goal in ahead or goal in frontier:
                return need + distance(pos, goal)
            if ahead:
                pos = min(ahead)
                ahead.remove(pos)
                frontier += ahead
                need += 1
            else:
                steps, pos = min((distance(pos, room), room) for room in frontier)
                frontier.remove(pos)
                need += steps

    def _enter(self) -> None:
        self.pos, self.held, self.moves = self.start, list[str](), 0
        self.locked, self.visited = dict(self.doors), {self.start}
        self.left = {room: list(colors) for room, colors in self.keys.items()}
        self.descriptions: dict[Room, str] = {}  # kept until a door beside the room opens or its keys go

    def _solver_command(self) -> str:
        """Take keys here; else go to the treasure room once it is in sight (next to a visited room) and its
        door can be passed; else to the nearest room not visited yet or holding a seen key, of equally near
        ones the first in reading order (north to south, west to east)."""
        if self.left.get(self.pos):
            return "take"
        first_move: dict[Room, str | None] = {self.pos: None}
        layer, best = [self.pos], None
        while layer:  # breadth-first through visited rooms, one distance at a time
            found, after = [], []
            for room in layer:
                for d, nxt in self.exits[room].items():
                    door = self.locked.get((room, nxt))
                    if nxt in first_move or (door and door not in self.held):
                        continue
                    first_move[nxt] = first_move[room] or d
                    if nxt not in self.visited or self.left.get(nxt):
                        found.append(nxt)
                    else:
                        after.append(nxt)
            if self.goal in found:
                return f"go {first_move[self.goal]}"
            if best is None:
                best = min(found, default=None)
            layer = after
        assert best is not None, "a room not visited yet or holding a seen key is always in reach"
        return f"go {first_move[best]}"

    def _take(self) -> str:
        found = self.left.pop(self.pos, None)
        if not found:
            return "There is no key here."
        self.held += found
        self.descriptions.pop(self.pos, None)
        return f"You pick up the {' and '.join(found)} key."

    def _go(self, direction: str) -> str:
        nxt = self.exits[self.pos].get(direction)
        if nxt is None:
            return f"There is no door to the {direction}."
        door = self.locked.get((self.pos, nxt))
        text = ""
        if door:
            if door not in self.held:
                return f"The {door} door to the {direction} is locked."
            del self.locked[self.pos, nxt], self.locked[nxt, self.pos]
            self.descriptions.pop(self.pos, None)
            self.descriptions.pop(nxt, None)
            text = f"You unlock the {door} door. "
        self.pos = nxt
        self.visited.add(nxt)
        return text + f"You go {direction}."

    def _describe(self) -> str:
        text = self.descriptions.get(self.pos)
        if text is None:
            text = self.descriptions[self.pos] = self._room_text()
        return text

    def _room_text(self) -> str:
        parts = []
        ways = self.exits[self.pos]
        for d in DIRECTIONS:
            if d not in ways:
                continue
            link = (self.pos, ways[d])
            door = self.doors.get(link)
            state = f"{door} door, {'locked' if link in self.locked else 'unlocked'}" if door else "open doorway"
            parts.append(f"{d} ({state}{', treasure glitters beyond' if ways[d] == self.goal else ''})")
        keys = self.left.get(self.pos)
        floor = f" On the floor: {' and '.join(keys)} key." if keys else ""
        return f"You are in room {self.grid.names[self.pos]}. Exits: {'; '.join(parts)}.{floor}"

    def status(self) -> str:
        held = ", ".join(self.held) or "none"
        return f"Room {self.grid.names[self.pos]}. Keys: {held}. Moves used: {self.moves}/{self.budget}."

    def _play(self, command: str) -> Feedback:
        action = ACTIONS[command]
        self.moves += 1
        text = self._take() if action == "take" else self._go(action)
        if self.pos == self.goal:
            return win(f"{text} You found the treasure room. You win!")
        text += "\n" + self._describe()
        return self._within_budget(text, self.moves, "moves")

    def _reveal(self) -> str:
        return f"The treasure room was {self.grid.names[self.goal]}."

    def _solve(self) -> str:
        return "\\boxed{%s}" % self._solver_command()

    def random_action(self, rng) -> str:
        if rng.random() < 0.2:
            return "\\boxed{take}"
        return pick(rng, GO_ACTIONS)
