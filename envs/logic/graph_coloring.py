"""Colour a graph with three colours so that no edge joins equal colours, within a move budget.

A colour that clashes with a neighbour is refused (the move is still spent), so colouring
greedily runs into dead ends that cost extra moves to undo.
"""

from itertools import combinations

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win

COLORS = ("red", "green", "blue")
COLOR_INDEX = {name: c for c, name in enumerate(COLORS)}


def planted_graph(hidden: list[int], edges: int, rng) -> list[list[int]]:
    """Sorted neighbour lists of a random graph with ``edges`` edges (fewer if there are not that many
    pairs of vertices with different ``hidden`` colours), each joining two different colours; every
    such graph is equally likely.

    Selection sampling: each allowed pair is taken with probability (edges still needed) / (pairs still to see).
    """
    n = len(hidden)
    left = n * (n - 1) // 2 - sum(k * (k - 1) // 2 for k in map(hidden.count, range(3)))  # allowed pairs
    needed = min(edges, left)
    neighbors: list[list[int]] = [[] for _ in range(n)]
    for u, v in combinations(range(n), 2):
        if hidden[u] != hidden[v]:
            if rng.random() * left < needed:
                neighbors[u].append(v)
                neighbors[v].append(u)
                needed -= 1
            left -= 1
    return neighbors


class GraphColoring(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"vertices": (6, 15), "mean_degree": (2.0, 4.0), "spare_moves": (3, 0)}
    param_variance = {"vertices": 1, "mean_degree": 0.3, "spare_moves": 1}
    example_command = "color 0 red"
    extra_turns = 2

    def _new_episode(self) -> str:
        n = self.params["vertices"]
        self.hidden = self.rng.choices(range(3), k=n)  # a planted proper colouring
        self.neighbors = planted_graph(self.hidden, round(self.params["mean_degree"] * n / 2), self.rng)
        self.color: list[int | None] = [None] * n
        self.shown = [f"{v}:-" for v in range(n)]  # each vertex as the status line shows it
        self.budget: int = n + self.params["spare_moves"]
        self.moves = 0
        edges = sum(map(len, self.neighbors)) // 2
        lists = "\n".join([f"  {u}: {', '.join(map(str, nb)) or '(none)'}" for u, nb in enumerate(self.neighbors)])
        return (
            f"A graph has {n} vertices, numbered 0 to {n - 1}, and {edges} edges. Neighbours of each vertex:\n"
            f"{lists}\n"
            "Goal: give every vertex one of the colours red, green, blue so that no two neighbours share one.\n"
            f"Commands (each costs one move, and you have {self.budget} moves):\n"
            "  \\boxed{color V C}  colours vertex V with colour C (replacing its colour). It is refused, and the\n"
            "                    move lost, if a neighbour of V already has colour C.\n"
            "  \\boxed{erase V}    removes the colour of vertex V.\n"
            "You win as soon as every vertex is coloured. Example: \\boxed{color 0 red}"
        )

    def status(self) -> str:
        return f"Moves: {self.moves}/{self.budget}. Colours: {' '.join(self.shown)}."

    def _set_color(self, v: int, c: int | None) -> None:
        self.color[v] = c
        self.shown[v] = f"{v}:{'-' if c is None else 'RGB'[c]}"

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb == "color" and len(args) == 2:
            v = parse_index(args[0], len(self.color), "vertex")
            name = args[1].lower()
            c = COLOR_INDEX.get(name)
            if c is None:
                raise InvalidAction(f"the colour must be one of {', '.join(COLORS)}")
            clash = [w for w in self.neighbors[v] if self.color[w] == c]
            if clash:
                text = f"Refused: vertex {v} has {name} neighbour(s) {', '.join(map(str, clash))}."
            else:
                self._set_color(v, c)
                text = f"Vertex {v} is now {name}."
        elif verb == "erase" and len(args) == 1:
            v = parse_index(args[0], len(self.color), "vertex")
            self._set_color(v, None)
            text = f"Vertex {v} is now uncoloured."
        else:
            raise InvalidAction("use 'color V C' or 'erase V'")
        self.moves += 1
        left = self.color.count(None)
        if not left:
            return win(text + " Every vertex is properly coloured. You win!")
        if self.moves >= self.budget:
            return lose(text + f" Out of moves. You lost. {self._reveal()}")
        return Feedback(f"{text} {left} vertex(es) still uncoloured; {self.budget - self.moves} move(s) left.")

    def _reveal(self) -> str:
        return "One proper colouring: " + ", ".join(f"{v} {COLORS[c]}" for v, c in enumerate(self.hidden)) + "."

    def _solve(self) -> str:
        # Move every vertex to its planted colour; a neighbour holding that colour is off-plan, so
        # first send it to its own planted colour (or erase it when that is blocked too).
        v = next(v for v, c in enumerate(self.color) if c != self.hidden[v])
        blocker = next((w for w in self.neighbors[v] if self.color[w] == self.hidden[v]), None)
        if blocker is None:
            return "\\boxed{color %d %s}" % (v, COLORS[self.hidden[v]])
        if any(self.color[x] == self.hidden[blocker] for x in self.neighbors[blocker]):
            return "\\boxed{erase %d}" % blocker
        return "\\boxed{color %d %s}" % (blocker, COLORS[self.hidden[blocker]])

    def random_action(self, rng) -> str:
        v = int(rng.random() * len(self.color))
        if rng.random() < 0.15:
            return "\\boxed{erase %d}" % v
        return "\\boxed{color %d %s}" % (v, COLORS[int(rng.random() * 3)])
