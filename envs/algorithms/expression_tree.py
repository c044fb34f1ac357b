"""Evaluate a hidden expression tree by inspecting its nodes, skipping the branches a condition rules out."""

from gymverse.env import EvolvableEnv, Feedback, InvalidAction, lose, parse_index, parse_int, split_command, win

OPERATIONS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "max": max, "min": min}
OPERATION_NAMES = sorted(OPERATIONS)


class ExpressionTree(EvolvableEnv):
    domain = "algorithms"
    complexity_params = {"operations": (2, 16), "if_share": (0.2, 0.5), "spare_inspects": (4, 0)}
    param_variance = {"operations": 2, "if_share": 0.05}
    example_command = "inspect 0"

    def _new_episode(self) -> str:
        # Grow the tree by turning a random leaf into an operation, then relabel the nodes at random.
        shape: list[tuple] = [("num",)]
        leaves = [0]
        for _ in range(self.params["operations"]):
            node = leaves.pop(self.rng.randrange(len(leaves)))
            kind = "if" if self.rng.random() < self.params["if_share"] else self.rng.choice(OPERATION_NAMES)
            children = list(range(len(shape), len(shape) + (3 if kind == "if" else 2)))
            shape += [("num",)] * len(children)
            shape[node] = (kind, *children)
            leaves += children
        labels = list(range(len(shape)))
        self.rng.shuffle(labels)
        numbers = iter(self.rng.choices(range(-9, 10), k=len(leaves)))  # one per leaf
        self.nodes: dict[int, tuple] = {}
        for i, (kind, *children) in enumerate(shape):
            rest = [labels[c] for c in children] if children else [next(numbers)]
            self.nodes[labels[i]] = (kind, *rest)
        self.root = labels[0]
        touched: list[int] = []
        self.value = _evaluate(self.nodes, self.root, touched)
        self.budget = len(touched) + self.params["spare_inspects"]
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

    def turn_limit(self) -> int:
        return self.budget + 3

    def status(self) -> str:
        return f"Inspections used: {len(self.seen)}/{self.budget}. Root: node {self.root}."

    def _play(self, command: str) -> Feedback:
        verb, args = split_command(command)
        if verb not in ("inspect", "answer") or len(args) != 1:
            raise InvalidAction("use 'inspect k' or 'answer x' with one integer")
        if verb == "answer":
            claim = parse_int(args[0], -10**9, 10**9, "value")
            if claim == self.value:
                return win(f"Correct: the root's value is {claim}. You win!")
            return lose(f"Wrong: the root's value is {self.value}, not {claim}. You lost.")
        node = parse_index(args[0], len(self.nodes), "node")
        if node not in self.seen:
            if len(self.seen) >= self.budget:
                return lose(f"No inspections left ({self.budget} used). You lost. " + self._reveal())
            self.seen[node] = self.nodes[node]
        kind, *rest = self.nodes[node]
        if kind == "num":
            return Feedback(f"Node {node} is the number {rest[0]}.")
        return Feedback(f"Node {node} is {kind}({', '.join(f'node {c}' for c in rest)}).")

    def _reveal(self) -> str:
        return f"The root's value was {self.value}."

    def oracle_action(self) -> str:
        touched: list[int] = []
        value = _evaluate(self.seen, self.root, touched)
        return "\\boxed{inspect %d}" % touched[-1] if value is None else "\\boxed{answer %d}" % value

    def random_action(self, rng) -> str:
        if rng.random() < 0.1:
            return "\\boxed{answer %d}" % rng.randint(-20, 20)
        return "\\boxed{inspect %d}" % rng.randrange(len(self.nodes))


def _evaluate(nodes: dict[int, tuple], node: int, touched: list[int]) -> int | None:
    """Value of ``node`` reading only the nodes it depends on (appended to ``touched`` in reading order).

    Gives None when it meets a node missing from ``nodes``; that node is then the last one in ``touched``.
    """
    touched.append(node)
    if node not in nodes:
        return None
    kind, *rest = nodes[node]
    if kind == "num":
        return rest[0]
    if kind == "if":
        condition = _evaluate(nodes, rest[0], touched)
        if condition is None:
            return None
        return _evaluate(nodes, rest[1] if condition > 0 else rest[2], touched)
    left = _evaluate(nodes, rest[0], touched)
    right = None if left is None else _evaluate(nodes, rest[1], touched)
    return None if right is None else OPERATIONS[kind](left, right)
