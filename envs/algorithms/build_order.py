"""Build a target module by discovering its hidden prerequisites and building them in a valid order."""

from gymverse.env import EvolvableEnv, Feedback, expect_command, lose, parse_index, win


class BuildOrder(EvolvableEnv):
    max_complexity = 200
    complexity_params = {"required": (4, 22), "distractors": (3, 16), "spare_turns": (6, 0)}
    param_variance = {"required": 2, "distractors": 2}
    example_command = "prereqs 0"

    def _new_episode(self) -> str:
        m, d = self.params["required"], self.params["distractors"]
        rng = self.rng
        # Module order[i] sits at hidden position i; the first m are required, position m - 1 is the goal.
        order = sorted(range(m + d), key=lambda _: rng.random())  # a random order; cheaper than shuffle
        needs: list[list[int]] = [[] for _ in range(m + d)]
        for i in range(m - 1):  # every required module feeds a later one, so the goal depends on all of them
            needs[order[i + 1 + int(rng.random() * (m - 1 - i))]].append(order[i])
        for i in range(1, m + d):  # extra links only point backwards, so there is never a cycle
            if rng.random() < 0.5:
                before, k = needs[order[i]], order[int(rng.random() * i)]
                if k not in before:
                    before.append(k)
        for before in needs:
            before.sort()
        self.needs = needs
        self.goal = order[m - 1]
        self.required = m
        self.listed: set[int] = set()
        self.built: set[int] = set()
        return (
            f"A project has {m + d} modules numbered 0 to {m + d - 1}. Goal: build module {self.goal}.\n"
            "A module can only be built once every module it requires is built; which modules require which\n"
            "is hidden. Some modules are not needed for the goal at all.\n"
            "Commands: \\boxed{prereqs k} lists the modules that module k directly requires;\n"
            "\\boxed{build k} builds module k (building it before its requirements fails and loses the game).\n"
            f"You have {self.turn_limit()} turns in all. Building module {self.goal} wins.\n"
            f"Example: \\boxed{{prereqs {self.goal}}}"
        )

    def turn_limit(self) -> int:
        # One listing and one build per required module, plus two turns' grace for slips.
        return 2 * self.required + self.params["spare_turns"] + 2

    def status(self) -> str:
        return f"Modules built: {len(self.built)}. Turn {self.turn}/{self.max_turns}. Goal: module {self.goal}."

    def _play(self, command: str) -> Feedback:
        verb, args = expect_command(
            command, ("prereqs", "build"), 1, "use 'prereqs k' or 'build k' with one module number"
        )
        module = parse_index(args[0], len(self.needs), "module")
        if verb == "prereqs":
            self.listed.add(module)
            before = ", ".join(map(str, self.needs[module])) or "nothing"
            return Feedback(f"Module {module} requires: {before}.")
        missing = [k for k in self.needs[module] if k not in self.built]
        if missing:
            return lose(f"Building {module} failed: it requires {', '.join(map(str, missing))} first. You lost.")
        self.built.add(module)
        if module == self.goal:
            return win(f"Module {module} built. You win!")
        return Feedback(f"Module {module} built.")

    def _reveal(self) -> str:
        return f"A valid order was: {', '.join(map(str, self._order_for(self.goal, [], set())))}."

    def _order_for(self, module: int, order: list[int], seen: set[int]) -> list[int]:
        if module not in seen:
            seen.add(module)
            for k in self.needs[module]:
                self._order_for(k, order, seen)
            order.append(module)
        return order

    def _solve(self) -> str:
        # Depth-first from the goal: list a module before looking below it, build it once all below are built.
        def next_step(module: int, seen: set[int]) -> str | None:
            seen.add(module)
            if module in self.built:
                return None
            if module not in self.listed:
                return "\\boxed{prereqs %d}" % module
            for k in self.needs[module]:
                if k not in seen and (step := next_step(k, seen)):
                    return step
            return "\\boxed{build %d}" % module

        step = next_step(self.goal, set())
        assert step is not None, "the goal is built only once the episode is over"
        return step

    def random_action(self, rng) -> str:
        verb = "build" if rng.random() < 0.3 else "prereqs"
        return f"\\boxed{{{verb} {int(rng.random() * len(self.needs))}}}"
