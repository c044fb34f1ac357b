"""The two games the CPU training demo learns: GridCourier and MailSorter."""

import pytest

from gymverse.envs.games.grid_courier import GridCourier
from gymverse.envs.games.mail_sorter import MailSorter

from episodes import play

GAMES = [GridCourier, MailSorter]
BAD = ["", "no box", "\\boxed{}", "\\boxed{fly}", "\\boxed{up 3}", "\\boxed{bin}", "\\boxed{bin Z}",
       "\\boxed{bin AB}", "\\boxed{bin 1}", "\\boxed{ünï ☃ {nested {x}}}", "\\boxed{" + "9" * 5000 + "}"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
@pytest.mark.parametrize("level", [1, 5, 10, 15, 20])
def test_solver_wins_with_no_move_to_spare_at_every_level(game, level):
    env = game(complexity=level)
    for seed in range(5):
        episode = play(env, seed)
        assert episode.success, episode.steps[-1].observation
        assert [step.reward for step in episode.steps] == [0.0] * (len(episode.steps) - 1) + [1.0]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_random_moves_hurt_more_at_higher_levels(game):
    def rate(level):
        return sum(play(game(complexity=level), s, epsilon=0.3, agent_seed=s).success for s in range(60)) / 60

    assert rate(1) - rate(10) >= 0.5


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_same_seed_same_trace(game):
    assert play(game(complexity=4), 11, 0.3, 2) == play(game(complexity=4), 11, 0.3, 2)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_bad_commands_cost_a_tenth_and_the_game_goes_on(game):
    env = game(complexity=3)
    env.reset(seed=0)
    for command in BAD:
        observation, reward, terminated, truncated, _ = env.step(command)
        assert (reward, terminated) == (-0.1, False), command
        assert observation
        if truncated:
            env.reset(seed=0)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_every_observation_ends_with_the_whole_state(game):
    """The demo plays without history wrappers: the latest observation must be enough."""
    env = game(complexity=2)
    observation, info = env.reset(seed=3)
    while True:
        assert observation.endswith(info["suffix"])
        observation, _, terminated, truncated, info = env.step(env.oracle_action())
        if terminated or truncated:
            break


def test_courier_budget_counts_fence_bumps_as_moves():
    env = GridCourier(complexity=1)
    env.reset(seed=0)
    env.position = (0, 0)
    left = env.moves_left
    observation, *_ = env.step("\\boxed{up}")
    assert "fence" in observation and env.position == (0, 0) and env.moves_left == left - 1


def test_courier_status_gives_the_way_to_the_address():
    env = GridCourier(complexity=1)
    env.reset(seed=0)
    env.position, env.stops, env.delivered = (2, 0), [(0, 1)], 0
    assert "the address (0,1) is 2 up and 1 right." in env.status()


def test_mail_sorter_charges_a_mistake_for_a_wrong_bin_and_loses_when_none_are_left():
    env = MailSorter(complexity=1)
    env.reset(seed=0)
    env.stack, env.mistakes_left = ["Berlin", "Cairo"], 1
    observation, reward, terminated, *_ = env.step("\\boxed{athens}")
    assert (reward, terminated, env.mistakes_left) == (0.0, False, 0) and "goes to Berlin" in observation
    observation, reward, terminated, *_ = env.step("\\boxed{Athens}")
    assert (reward, terminated) == (0.0, True) and "lost" in observation
