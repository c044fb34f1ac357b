"""Find the shortest distance between two towns of a hidden road map, revealing one town's roads at a time."""

from functools import cache
from heapq import heappop, heappush
from math import inf

from gymverse.env import (
    EvolvableEnv,
    Feedback,
    command_table,
    expect_command,
    lose,
    parse_index,
    parse_int,
    pick,
    win,
)


class ShortestPath(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"towns": (6, 30), "extra_roads": (2, 16), "spare_queries": (4, 0)}
    param_variance = {"towns": 2, "extra_roads": 2}
    example_command = "neighbors 0"

    def _new_episode(self) -> str:
        n = self.params["towns"]
        self.roads = _random_map(n, self.params["extra_roads"], self.rng)
        self.start = int(self.rng.random() * n)
        self.distance = _distances(self.roads, self.start)
        far = max(self.distance)
        self.goal = self.distance.index(far)  # the first of the farthest towns
        # Dijkstra must open every town strictly closer than the goal before the goal's distance is final.
        self.budget: int = n - self.distance.count(far) + self.params["spare_queries"]
        self.opened: dict[int, str] = {}  # each town asked for, with its road list as shown
        self.commands = commands(n)  # random play's commands
        self.parsed = command_table(parse_command, n)
        self.road_texts = road_texts(n)
        self.route = f"Route: {self.start} -> {self.goal}."  # the status line's fixed part
        return (
            f"A hidden map has {n} towns, numbered 0 to {n - 1}, joined by two-way roads with positive lengths.\n"
            f"Goal: find the length of the shortest route from town {self.start} to town {self.goal}.\n"
            f"Commands: \\boxed{{neighbors v}} lists every road at town v with its length "
            f"(you may ask {self.budget} times; asking more loses);\n"
            "\\boxed{answer d} claims the shortest distance is d and ends the game (a wrong claim loses).\n"
            f"Example: \\boxed{{neighbors {self.start}}}"
        )

    def status(self) -> str:
        return f"Queries used: {len(self.opened)}/{self.budget}. {self.route}"

    def _play(self, command: str) -> Feedback:
        verb, number = self.parsed[command]
        if verb == "answer":
            if number == self.distance[self.goal]:
                return win(f"Correct: the shortest distance is {number}. You win!")
            return lose(f"Wrong: the shortest distance is {self.distance[self.goal]}, not {number}. You lost.")
        town = number
        listed = self.opened.get(town)
        if listed:
            return Feedback(f"Town {town} was already listed: {listed}")
        if len(self.opened) >= self.budget:
            return lose(f"No queries left ({self.budget} used). You lost. " + self._reveal())
        texts = self.road_texts
        listed = ", ".join([texts[other][length] for other, length in sorted(self.roads[town].items())])
        self.opened[town] = listing = f"Town {town} has roads to: {listed}."
        return Feedback(listing)

    def _reveal(self) -> str:
        return f"The shortest distance from {self.start} to {self.goal} was {self.distance[self.goal]}."

    def _solve(self) -> str:
        # Dijkstra over what is known: only opened towns have all their roads listed, so only they are relaxed.
        # The goal is taken before any tie, so no town at the goal's distance is opened needlessly.
        best = {self.start: 0}
        heap = [(0, True, self.start)]
        done = set()
        while heap:
            dist, _, town = heappop(heap)
            if town in done:
                continue
            if town == self.goal:
                return "\\boxed{answer %d}" % dist
            if town not in self.opened:
                return "\\boxed{neighbors %d}" % town
            done.add(town)
            for other, length in self.roads[town].items():
                if dist + length < best.get(other, inf):
                    best[other] = dist + length
                    heappush(heap, (dist + length, other != self.goal, other))
        raise AssertionError("the goal is always reachable")

    def random_action(self, rng) -> str:
        neighbors, answers = self.commands
        return pick(rng, answers) if rng.random() < 0.1 else pick(rng, neighbors)


def parse_command(command: str, towns: int) -> tuple[str, int]:
    """('neighbors', town) or ('answer', claimed distance)."""
    verb, args = expect_command(command, ("neighbors", "answer"), 1, "use 'neighbors v' or 'answer d' with one number")
    if verb == "answer":
        return verb, parse_int(args[0], 0, 10**9, "distance")
    return verb, parse_index(args[0], towns, "town")


@cache
def commands(towns: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Random play's boxed commands for a map of ``towns`` towns: every query, and claims 1 .. 9 * towns."""
    neighbors = tuple(f"\\boxed{{neighbors {v}}}" for v in range(towns))
    answers = tuple(f"\\boxed{{answer {d}}}" for d in range(1, 9 * towns + 1))
    return neighbors, answers


@cache
def road_texts(towns: int) -> list[list[str]]:
    """How a listing shows each road, by its other end and length (index 0 unused): formatted once per map size."""
    return [[f"{other} (length {length})" for length in range(10)] for other in range(towns)]


def _random_map(towns: int, extra_roads: int, rng) -> list[dict[int, int]]:
    """Each town's roads (neighbour -> length 1..9): a random spanning tree, so every town is
    reachable, plus ``extra_roads`` random roads (one already there is skipped)."""
    random = rng.random
    roads: list[dict[int, int]] = [{} for _ in range(towns)]
    order = sorted(range(towns), key=lambda _: random())  # the towns in random order
    for i in range(1, towns):  # each town in the random order joins one before it
        a, b = order[i], order[int(random() * i)]
        roads[a][b] = roads[b][a] = 1 + int(random() * 9)
    for _ in range(extra_roads):
        a, b = int(random() * towns), int(random() * (towns - 1))
        b += b >= a  # a town other than a, all equally likely
        if b not in roads[a]:
            roads[a][b] = roads[b][a] = 1 + int(random() * 9)
    return roads


def _distances(roads: list[dict[int, int]], source: int) -> list[float]:
    """Shortest distances from ``source``. On these sparse maps, re-relaxing a town each time its distance
    drops (a plain FIFO queue, Bellman-Ford style) is faster than Dijkstra's heap."""
    distance = [inf] * len(roads)
    distance[source] = 0
    queue = [source]
    for town in queue:  # the loop also visits the towns appended below
        dist = distance[town]
        for other, length in roads[town].items():
            if dist + length < distance[other]:
                distance[other] = dist + length
                queue.append(other)
    return distance
