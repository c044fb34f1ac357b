"""gymverse: complexity-controlled text games for LLM agents, and the tools to train and evaluate on them.

Importing it registers every built-in game in GEM's registry as ``gymverse:<Name>`` and loads
installed plugins (entry-point group ``gymverse.envs``).
"""

from gymverse.env import (
    EvolvableEnv, Feedback, InvalidAction, RebuildOnComplexity, extract_boxed, get_env_complexity, lose,
    register_env_dir, register_library, register_plugins, set_env_complexity, win,
)

__all__ = [
    "EvolvableEnv", "Feedback", "InvalidAction", "RebuildOnComplexity", "extract_boxed", "get_env_complexity",
    "lose", "register_env_dir", "set_env_complexity", "win",
]

import gymverse.curriculum  # noqa: E402,F401  (puts GymVerse's evolve rule behind EvolvableEnv.evolve)

register_library("gymverse.envs")
register_plugins()
