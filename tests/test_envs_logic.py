"""The logic games: solvable at every level, harder with complexity, deterministic, and each rule holds."""

import itertools

import pytest

from gymverse.envs.logic.boolean_satisfiability import BooleanSatisfiability
from gymverse.envs.logic.graph_coloring import GraphColoring
from gymverse.envs.logic.hidden_rule_induction import HiddenRuleInduction, holds
from gymverse.envs.logic.horn_clause_proof import HornClauseProof
from gymverse.envs.logic.knights_and_knaves import KnightsAndKnaves
from gymverse.envs.logic.zebra_puzzle import ZebraPuzzle

from episodes import play

GAMES = [KnightsAndKnaves, ZebraPuzzle, BooleanSatisfiability, GraphColoring, HiddenRuleInduction, HornClauseProof]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("level", [1, 5, 10, 15, 20])
def test_oracle_wins(game, level):
    env = game(complexity=level)
    for seed in range(4):
        episode = play(env, seed)
        assert episode.success, f"seed {seed}: {episode.steps[-1].observation}"
        assert episode.steps[-1].reward == 1.0


@pytest.mark.parametrize("game", GAMES)
def test_epsilon_solver_wins_clearly_less_at_level_10(game):
    rates = []
    for level in (1, 10):
        env = game(complexity=level)
        rates.append(sum(play(env, seed, 0.3, agent_seed=seed).success for seed in range(100)) / 100)
    assert rates[0] - rates[1] >= 0.2, f"success at level 1 {rates[0]:.2f}, level 10 {rates[1]:.2f}"


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_trace(game):
    first = play(game(complexity=7), seed=11, epsilon=0.4, agent_seed=3)
    second = play(game(complexity=7), seed=11, epsilon=0.4, agent_seed=3)
    assert first == second


@pytest.mark.parametrize("game", GAMES)
def test_bad_commands_cost_a_little_and_change_nothing(game):
    env = game(complexity=1)
    opening = env.reset(seed=5)[0]
    verb = env.example_command.split()[0]
    for bad in ["no box", "\\boxed{dance 1}", f"\\boxed{{{verb}}}", f"\\boxed{{{verb} 99999999999 -1}}",
                f"\\boxed{{{verb} ☃ {'9' * 5000}}}"]:
        assert env.reset(seed=5)[0] == opening
        status = env.status()
        observation, reward, terminated, truncated, _ = env.step(bad)
        assert (reward, terminated, truncated) == (-0.1, False, False), observation
        assert env.status() == status
    while not env.done:
        *_, info = env.step(env.oracle_action())
    assert info["success"]


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
        "same": lambda a, b: a == b, "diff": lambda a, b: a != b, "left": lambda a, b: a + 1 == b,
        "next": lambda a, b: abs(a - b) == 1, "before": lambda a, b: a < b,
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
