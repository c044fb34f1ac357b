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
        self.roads: list[dict[int, int]] = [{} for _ in range(n)]
        order = list(range(n))
        self.rng.shuffle(order)
        for i in range(1, n):  # a random spanning tree keeps every town reachable
            self._add_road(order[i], order[self.rng.randrange(i)])
        for _ in range(self.params["extra_roads"]):
            a, b = self.rng.sample(range(n), 2)
            self._add_road(a, b)
        self.start = self.rng.randrange(n)
        self.distance = _dijkstra(self.roads, self.start)
        self.goal = max(range(n), key=lambda v: (self.distance[v], v))
        # Dijkstra must open every town strictly closer than the goal before the goal's distance is final.
        needed = sum(d < self.distance[self.goal] for d in self.distance)
        self.budget = needed + self.params["spare_queries"]
        self.opened: dict[int, dict[int, int]] = {}
        self.listings: dict[int, str] = {}  # each town's road list, written when first asked for
        return (
            f"A hidden map has {n} towns, numbered 0 to {n - 1}, joined by two-way roads with positive lengths.\n"
            f"Goal: find the length of the shortest route from town {self.start} to town {self.goal}.\n"
            f"Commands: \\boxed{{neighbors v}} lists every road at town v with its length "
            f"(you may ask {self.budget} times; asking more loses);\n"
            "\\boxed{answer d} claims the shortest distance is d and ends the game (a wrong claim loses).\n"
            f"Example: \\boxed{{neighbors {self.start}}}"
        )

    def _add_road(self, a: int, b: int) -> None:
        if b not in self.roads[a]:
            length = self.rng.randint(1, 9)
            self.roads[a][b] = self.roads[b][a] = length

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
            return Feedback(f"Town {town} was already listed: {self.listings[town]}")
        if len(self.opened) >= self.budget:
            return lose(f"No queries left ({self.budget} used). You lost. " + self._reveal())
        self.opened[town] = self.roads[town]
        self.listings[town] = _describe(town, self.roads[town])
        return Feedback(self.listings[town])

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
            for other, length in self.opened[town].items():
                if dist + length < best.get(other, float("inf")):
                    best[other] = dist + length
                    heapq.heappush(heap, (dist + length, other != self.goal, other))
        raise AssertionError("the goal is always reachable")

    def random_action(self, rng) -> str:
        if rng.random() < 0.1:
            return "\\boxed{answer %d}" % rng.randint(1, 9 * len(self.roads))
        return "\\boxed{neighbors %d}" % rng.randrange(len(self.roads))


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
    listed = ", ".join(f"{other} (length {length})" for other, length in sorted(roads.items()))
    return f"Town {town} has roads to: {listed}."
