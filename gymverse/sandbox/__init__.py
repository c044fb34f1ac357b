"""The jail for code that is not ours (a user's folder, a synthesized candidate, GymVerse's released
games), and the proxy that plays a jailed game from the trusted process.

Each file runs in its own bubblewrap jail (:mod:`gymverse.sandbox.jail`) under a small host program
(:mod:`gymverse.sandbox.host`) that imports it and answers requests with plain data. The judge, the
checker, the audit and the synthesis gates all run here, outside, on :class:`ProxyEnv`::

    from gymverse.sandbox import JailedFile, ProxyEnv, judge_folder, register_env_dir

    report = register_env_dir("my_envs")              # ids behind jailed proxies; gem.make works as usual
    judgement = judge_folder("my_envs", on_verdict=print)   # the env checker on every game, streamed
    with JailedFile("candidate.py") as jail:
        env = ProxyEnv(jail, jail.games()[0]["name"], complexity=3)
        observation, info = env.reset(seed=0)
"""

from gymverse.sandbox.folders import register_env_dir
from gymverse.sandbox.jail import Limits, jail_problem
from gymverse.sandbox.judge import FileVerdict, FolderJudgement, GameVerdict, judge_file, judge_folder
from gymverse.sandbox.proxy import GameFailure, GameRaised, JailBroken, JailedFile, ProxyEnv, ProxyFactory

__all__ = [
    "FileVerdict",
    "FolderJudgement",
    "GameFailure",
    "GameRaised",
    "GameVerdict",
    "JailBroken",
    "JailedFile",
    "Limits",
    "ProxyEnv",
    "ProxyFactory",
    "jail_problem",
    "judge_file",
    "judge_folder",
    "register_env_dir",
]
