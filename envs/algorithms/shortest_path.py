"""Find the shortest distance between two towns of a hidden road map, revealing one town's roads at a time."""

import heapq

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, parse_int, split_command, win


class ShortestPath(EvolvableEnv):
    domain = "algorithms"
    complexity_params = {"towns": (6, 30), "extra_roads": (2, 16), "spare_queries": (4, 0)}
    param_variance = {"towns": 2, "extra_roads": 2}
    example_command = "neighbors 0"

    def _new_episode(self) -> str:
        n = self.params["towns"]
        self.roads = _random_map(n, self.params["extra_roads"], self.rng)
        self.start = int(self.rng.random() * n)
        self.distance = _dijkstra(self.roads, self.start)
        far = max(self.distance)
        self.goal = self.distance.index(far)  # the first of the farthest towns
        # Dijkstra must open every town strictly closer than the goal before the goal's distance is final.
        self.budget = n - self.distance.count(far) + self.params["spare_queries"]
        self.opened: dict[int, str] = {}  # each town asked for, with its road list as shown
        return (
            f"A hidden map has {n} towns, numbered 0 to {n - 1}, joined by two-way roads with positive lengths.\n"
            f"Goal: find the length of the shortest route from town {self.start} to town {self.goal}.\n"
            f"Commands: \\boxed{{neighbors v}} lists every road at town v with its length "
            f"(you may ask {self.budget} times; asking more loses);\n"
            "\\boxed{answer d} claims the shortest distance is d and ends the game (a wrong claim loses).\n"
            f"Example: \\boxed{{neighbors {self.start}}}"
        )

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        return f"Queries used: {len(self.opened)}/{self.budget}. Route: {self.start} -> {self.goal}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb not in ("neighbors", "answer") or len(args) != 1:
            raise InvalidAction("use 'neighbors v' or 'answer d' with one number")
        if verb == "answer":
            claim = parse_int(args[0], 0, 10**9, "distance")
            if claim == self.distance[self.goal]:
                return win(f"Correct: the shortest distance is {claim}. You win!")
            return lose(f"Wrong: the shortest distance is {self.distance[self.goal]}, not {claim}. You lost.")
        town = parse_index(args[0], len(self.roads), "town")
        if town in self.opened:
            return Feedback(f"Town {town} was already listed: {self.opened[town]}")
        if len(self.opened) >= self.budget:
            return lose(f"No queries left ({self.budget} used). You lost. " + self._reveal())
        self.opened[town] = listing = _describe(town, self.roads[town])
        return Feedback(listing)

    def _reveal(self) -> str:
        return f"The shortest distance from {self.start} to {self.goal} was {self.distance[self.goal]}."

    def oracle_action(self) -> str:
        # Dijkstra over what is known: only opened towns have all their roads listed, so only they are relaxed.
        # The goal is taken before any tie, so no town at the goal's distance is opened needlessly.
        best = {self.start: 0}
        heap = [(0, True, self.start)]
        done = set()
        while heap:
            dist, _, town = heapq.heappop(heap)
            if town in done:
                continue
            if town == self.goal:
                return "\\boxed{answer %d}" % dist
            if town not in self.opened:
                return "\\boxed{neighbors %d}" % town
            done.add(town)
            for other, length in self.roads[town].items():
                if dist + length < best.get(other, float("inf")):
                    best[other] = dist + length
                    heapq.heappush(heap, (dist + length, other != self.goal, other))
        raise AssertionError("the goal is always reachable")

    def random_action(self, rng) -> str:
        n = len(self.roads)
        if rng.random() < 0.1:
            return "\\boxed{answer %d}" % (1 + int(rng.random() * 9 * n))
        return "\\boxed{neighbors %d}" % int(rng.random() * n)


def _random_map(towns: int, extra_roads: int, rng) -> list[dict[int, int]]:
    """Each town's roads (neighbour -> length 1..9): a random spanning tree, so every town is
    reachable, plus ``extra_roads`` random roads (one already there is skipped)."""
    roads: list[dict[int, int]] = [{} for _ in range(towns)]
    order = sorted(range(towns), key=lambda _: rng.random())  # the towns in random order
    for i in range(1, towns):  # each town in the random order joins one before it
        a, b = order[i], order[int(rng.random() * i)]
        roads[a][b] = roads[b][a] = 1 + int(rng.random() * 9)
    for _ in range(extra_roads):
        a, b = int(rng.random() * towns), int(rng.random() * (towns - 1))
        b += b >= a  # a town other than a, all equally likely
        if b not in roads[a]:
            roads[a][b] = roads[b][a] = 1 + int(rng.random() * 9)
    return roads


def _dijkstra(roads: list[dict[int, int]], source: int) -> list[int]:
    distance = [float("inf")] * len(roads)
    distance[source] = 0
    heap = [(0, source)]
    while heap:
        dist, town = heapq.heappop(heap)
        if dist > distance[town]:
            continue
        for other, length in roads[town].items():
            if dist + length < distance[other]:
                distance[other] = dist + length
                heapq.heappush(heap, (dist + length, other))
    return distance


def _describe(town: int, roads: dict[int, int]) -> str:
    listed = ", ".join([f"{other} (length {length})" for other, length in sorted(roads.items())])
    return f"Town {town} has roads to: {listed}."
