"""The two games the CPU training demo learns: GridCourier and MailSorter."""

import pytest
from episodes import play
from gymverse.envs.games.grid_courier import GridCourier
from gymverse.envs.games.mail_sorter import MailSorter

import gymverse  # noqa: F401  (registers the games)
from gymverse.env.groups import make_env_group

GAMES = [GridCourier, MailSorter]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_random_moves_hurt_more_at_higher_levels(game):
    def rate(level):
        return sum(play(game(complexity=level), s, epsilon=0.3, agent_seed=s).success for s in range(60)) / 60

    assert rate(1) - rate(10) >= 0.5


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.__name__)
def test_every_prompt_without_a_history_wrapper_ends_with_the_whole_state_once(game):
    """The demo plays without history wrappers: the latest observation and its status must be enough."""
    group = make_env_group(f"gymverse:{game.__name__}", 1, wrappers="", complexity=2, seed=3)
    (prompt,), _ = group.reset()
    while True:
        status = group.envs[0].unwrapped.status()
        assert prompt.endswith("\n" + status) and prompt.count(status) == 1
        (prompt,), _, (terminated,), (truncated,), _ = group.step([group.envs[0].unwrapped.oracle_action()])
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
