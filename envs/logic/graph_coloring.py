"""Colour a graph with three colours so that no edge joins equal colours, within a move budget.

A colour that clashes with a neighbour is refused (the move is still spent), so colouring
greedily runs into dead ends that cost extra moves to undo.
"""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, split_command, win

COLORS = ["red", "green", "blue"]


class GraphColoring(EvolvableEnv):
    domain = "logic"
    complexity_params = {"vertices": (6, 15), "mean_degree": (2.0, 4.0), "spare_moves": (3, 0)}
    param_variance = {"vertices": 1, "mean_degree": 0.3, "spare_moves": 1}
    example_command = "color 0 red"

    def _new_episode(self) -> str:
        n = self.params["vertices"]
        self.hidden = self.rng.choices(range(3), k=n)  # a planted proper colouring
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n) if self.hidden[u] != self.hidden[v]]
        edges = self.rng.sample(pairs, min(len(pairs), round(self.params["mean_degree"] * n / 2)))
        self.neighbors: list[list[int]] = [[] for _ in range(n)]
        for u, v in sorted(edges):
            self.neighbors[u].append(v)
            self.neighbors[v].append(u)
        self.color: list[int | None] = [None] * n
        self.shown = [f"{v}:-" for v in range(n)]  # each vertex as the status line shows it
        self.budget = n + self.params["spare_moves"]
        self.moves = 0
        return "\n".join([
            f"A graph has {n} vertices, numbered 0 to {n - 1}, and {len(edges)} edges. Neighbours of each vertex:",
            *(f"  {u}: {', '.join(map(str, nb)) or '(none)'}" for u, nb in enumerate(self.neighbors)),
            f"Goal: give every vertex one of the colours {', '.join(COLORS)} so that no two neighbours share one.",
            "Commands (each costs one move, and you have " + f"{self.budget} moves):",
            "  \\boxed{color V C}  colours vertex V with colour C (replacing its colour). It is refused, and the",
            "                    move lost, if a neighbour of V already has colour C.",
            "  \\boxed{erase V}    removes the colour of vertex V.",
            "You win as soon as every vertex is coloured. Example: \\boxed{color 0 red}",
        ])

    def turn_limit(self) -> int:
        return self.budget + 2

    def status(self) -> str:
        return f"Moves: {self.moves}/{self.budget}. Colours: {' '.join(self.shown)}."

    def _set_color(self, v: int, c: int | None) -> None:
        self.color[v] = c
        self.shown[v] = f"{v}:{'-' if c is None else COLORS[c][0].upper()}"

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        n = len(self.color)
        if verb == "color" and len(args) == 2:
            v = parse_index(args[0], n, "vertex")
            if args[1].lower() not in COLORS:
                raise InvalidAction(f"the colour must be one of {', '.join(COLORS)}")
            c = COLORS.index(args[1].lower())
            clash = [w for w in self.neighbors[v] if self.color[w] == c]
            if clash:
                text = f"Refused: vertex {v} has {COLORS[c]} neighbour(s) {', '.join(map(str, clash))}."
            else:
                self._set_color(v, c)
                text = f"Vertex {v} is now {COLORS[c]}."
        elif verb == "erase" and len(args) == 1:
            v = parse_index(args[0], n, "vertex")
            self._set_color(v, None)
            text = f"Vertex {v} is now uncoloured."
        else:
            raise InvalidAction("use 'color V C' or 'erase V'")
        self.moves += 1
        if None not in self.color:
            return win(text + " Every vertex is properly coloured. You win!")
        if self.moves >= self.budget:
            return lose(text + f" Out of moves. You lost. {self._reveal()}")
        left = self.color.count(None)
        return Feedback(f"{text} {left} vertex(es) still uncoloured; {self.budget - self.moves} move(s) left.")

    def _reveal(self) -> str:
        return "One proper colouring: " + ", ".join(f"{v} {COLORS[c]}" for v, c in enumerate(self.hidden)) + "."

    def oracle_action(self) -> str:
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
        v = rng.randrange(len(self.color))
        if rng.random() < 0.15:
            return "\\boxed{erase %d}" % v
        return "\\boxed{color %d %s}" % (v, rng.choice(COLORS))
