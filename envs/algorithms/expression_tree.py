"""Evaluate a hidden expression tree by inspecting its nodes, skipping the branches a condition rules out."""

from collections.abc import Callable

from gymverse.env import EvolvableEnv, Feedback, expect_command, lose, parse_index, parse_int, win

OPERATIONS: dict[str, Callable[[int, int], int]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "max": max,
    "min": min,
}
OPERATION_NAMES = sorted(OPERATIONS)
NUMBER_NODES = tuple(("num", value) for value in range(-9, 10))  # every leaf there can be
# What inspecting a node shows, per kind, formatted with the node's number and the rest of its entry.
DESCRIPTIONS = {
    "num": "Node %d is the number %d.",
    "if": "Node %d is if(node %d, node %d, node %d).",
    **{name: f"Node %d is {name}(node %d, node %d)." for name in OPERATIONS},
}


class ExpressionTree(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"operations": (2, 16), "if_share": (0.2, 0.5), "spare_inspects": (4, 0)}
    param_variance = {"operations": 2, "if_share": 0.05}
    example_command = "inspect 0"

    def _new_episode(self) -> str:
        # Pick the operations, then grow the tree by turning a random leaf into each in turn. Node numbers
        # are handed out in a random order, so they say nothing about the shape.
        rng, if_share = self.rng, self.params["if_share"]
        kinds = [
            "if" if rng.random() < if_share else OPERATION_NAMES[int(rng.random() * len(OPERATION_NAMES))]
            for _ in range(self.params["operations"])
        ]
        size = 1 + 2 * len(kinds) + kinds.count("if")  # the root, two children per operation, a third per if
        labels = sorted(range(size), key=lambda _: rng.random())  # a random order; cheaper than shuffle
        nodes: dict[int, tuple] = {}
        leaves, used = [labels[0]], 1
        for kind in kinds:
            node = leaves.pop(int(rng.random() * len(leaves)))
            children = labels[used : used + (3 if kind == "if" else 2)]
            used += len(children)
            nodes[node] = (kind, *children)
            leaves += children
        for leaf in leaves:
            nodes[leaf] = NUMBER_NODES[int(rng.random() * len(NUMBER_NODES))]
        self.nodes, self.root = nodes, labels[0]
        touched: list[int] = []
        self.value = _evaluate(self.nodes, self.root, touched)
        self.budget: int = len(touched) + self.params["spare_inspects"]
        self.seen: dict[int, tuple] = {}
        return (
            f"A hidden expression tree has {len(self.nodes)} nodes numbered 0 to {len(self.nodes) - 1}; "
            f"the root is node {self.root}.\n"
            "Each node is a number, or an operation on other nodes: add(a, b) = a + b, sub(a, b) = a - b,\n"
            "max(a, b), min(a, b), and if(c, a, b) = a when c > 0, otherwise b (the branch not taken does not "
            "matter).\n"
            "Goal: find the value of the root.\n"
            f"Commands: \\boxed{{inspect k}} shows what node k is (you have {self.budget} inspections; "
            "asking for more loses);\n"
            "\\boxed{answer x} claims the root's value is x and ends the game (a wrong claim loses).\n"
            f"Example: \\boxed{{inspect {self.root}}}"
        )

    def status(self) -> str:
        return f"Inspections used: {len(self.seen)}/{self.budget}. Root: node {self.root}."

    def _play(self, command: str) -> Feedback:
        verb, args = expect_command(command, ("inspect", "answer"), 1, "use 'inspect k' or 'answer x' with one integer")
        if verb == "answer":
            claim = parse_int(args[0], -(10**9), 10**9, "value")
            if claim == self.value:
                return win(f"Correct: the root's value is {claim}. You win!")
            return lose(f"Wrong: the root's value is {self.value}, not {claim}. You lost.")
        node = parse_index(args[0], len(self.nodes), "node")
        entry = self.nodes[node]
        if node not in self.seen:
            if len(self.seen) >= self.budget:
                return lose(f"No inspections left ({self.budget} used). You lost. " + self._reveal())
            self.seen[node] = entry
        return Feedback(DESCRIPTIONS[entry[0]] % (node, *entry[1:]))

    def _reveal(self) -> str:
        return f"The root's value was {self.value}."

    def _solve(self) -> str:
        touched: list[int] = []
        value = _evaluate(self.seen, self.root, touched)
        return "\\boxed{inspect %d}" % touched[-1] if value is None else "\\boxed{answer %d}" % value

    def random_action(self, rng) -> str:
        if rng.random() < 0.1:
            return "\\boxed{answer %d}" % (int(rng.random() * 41) - 20)
        return "\\boxed{inspect %d}" % int(rng.random() * len(self.nodes))


def _evaluate(nodes: dict[int, tuple], node: int, touched: list[int]) -> int | None:
    """Value of ``node`` reading only the nodes it depends on (appended to ``touched`` in reading order).

    Gives None when it meets a node missing from ``nodes``; that node is then the last one in ``touched``.
    """
    touched.append(node)
    entry = nodes.get(node)
    if entry is None:
        return None
    kind = entry[0]
    if kind == "num":
        return entry[1]
    if kind == "if":
        condition = _evaluate(nodes, entry[1], touched)
        if condition is None:
            return None
        return _evaluate(nodes, entry[2] if condition > 0 else entry[3], touched)
    left = _evaluate(nodes, entry[1], touched)
    right = None if left is None else _evaluate(nodes, entry[2], touched)
    return None if left is None or right is None else OPERATIONS[kind](left, right)
