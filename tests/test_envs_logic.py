"""The logic games' own rules (the contract every game keeps is tested in test_library.py)."""

import itertools

from gymverse.envs.logic.boolean_satisfiability import BooleanSatisfiability
from gymverse.envs.logic.graph_coloring import GraphColoring
from gymverse.envs.logic.hidden_rule_induction import HiddenRuleInduction, holds
from gymverse.envs.logic.horn_clause_proof import HornClauseProof
from gymverse.envs.logic.knights_and_knaves import KnightsAndKnaves
from gymverse.envs.logic.zebra_puzzle import ZebraPuzzle


def test_knights_reply_says_whether_two_islanders_share_a_type():
    env = KnightsAndKnaves(complexity=5)
    env.reset(seed=2)
    for i, j in [(0, 1), (1, 2), (2, 2), (3, 0)]:
        observation = env.step("\\boxed{ask %d %d}" % (i, j))[0]
        assert ("Yes" in observation) == (env.is_knight[i] == env.is_knight[j])
    wrong = "".join("N" if k else "K" for k in env.is_knight)
    _, reward, terminated, _, info = env.step("\\boxed{answer %s}" % wrong)
    assert (reward, terminated, info["success"]) == (0.0, True, False)


def test_zebra_clues_have_exactly_one_solution():
    rules = {
        "same": lambda a, b: a == b,
        "diff": lambda a, b: a != b,
        "left": lambda a, b: a + 1 == b,
        "next": lambda a, b: abs(a - b) == 1,
        "before": lambda a, b: a < b,
    }
    for seed in range(5):
        env = ZebraPuzzle(complexity=1, enable_param_randomization=False)
        env.reset(seed=seed)
        solutions = []
        for rows in itertools.product(itertools.permutations(range(env.n)), repeat=len(env.names)):
            house = [h for row in rows for h in row]
            if all(house[x] == y if kind == "at" else rules[kind](house[x], house[y]) for kind, x, y in env.clues):
                solutions.append(house)
        assert solutions == [env.house]


def test_sat_plant_satisfies_the_formula_and_unsetting_is_not_possible():
    env = BooleanSatisfiability(complexity=12)
    env.reset(seed=4)
    assert all(any(env._true(lit, env.hidden) for lit in clause) for clause in env.clauses)
    v = abs(env.clauses[0][0])
    observation, reward, terminated, *_ = env.step("\\boxed{set x%d maybe}" % v)
    assert reward == -0.1 and not terminated and env.moves == 0


def test_graph_coloring_refuses_a_clash_but_spends_the_move():
    env = GraphColoring(complexity=5)
    env.reset(seed=1)
    u = next(u for u, nb in enumerate(env.neighbors) if nb)
    w = env.neighbors[u][0]
    env.step("\\boxed{color %d red}" % u)
    observation = env.step("\\boxed{color %d red}" % w)[0]
    assert observation.startswith("Refused") and env.color[w] is None and env.moves == 2
    assert all(env.hidden[a] != env.hidden[b] for a in range(len(env.color)) for b in env.neighbors[a])


def test_rule_examples_are_positives_and_near_misses():
    for seed in range(10):
        env = HiddenRuleInduction(complexity=10)
        env.reset(seed=seed)
        for digits in env.examples[True]:
            assert all(holds(c, digits) for c in env.rule)
        for digits in env.examples[False]:
            assert sum(not holds(c, digits) for c in env.rule) == 1


def _closure(facts, rules):
    known, changed = set(facts), True
    while changed:
        changed = False
        for premises, conclusion in rules:
            if conclusion not in known and all(p in known for p in premises):
                known.add(conclusion)
                changed = True
    return known


def test_horn_proof_needs_every_intended_step():
    for seed in range(10):
        env = HornClauseProof(complexity=10)
        env.reset(seed=seed)
        assert env.goal in _closure(env.facts, env.rules)
        for rule in env.proof:
            others = [r for r in env.rules if r is not rule]
            assert env.goal not in _closure(env.facts, others)
