"""gymverse: complexity-controlled text games for LLM agents, and the tools to train and evaluate on them.

Importing it registers every built-in game in GEM's registry as ``gymverse:<Name>`` and loads
installed plugins (entry-point group ``gymverse.envs``); ``gymverse.registration`` is what that
registered and what failed (a failure is also a warning).
"""

import warnings

from gymverse.cache import cache_dir
from gymverse.gem_import import import_gem

import_gem(cache_dir())  # before anything of gymverse imports GEM: its registry without reasoning-gym

from gymverse.env import (  # noqa: E402
    EvolvableEnv,
    Feedback,
    InvalidAction,
    RebuildOnComplexity,
    extract_boxed,
    get_env_complexity,
    lose,
    register_library,
    register_plugins,
    set_env_complexity,
    win,
)
from gymverse.env.core import LIBRARY_PACKAGE  # noqa: E402
from gymverse.sandbox.folders import register_env_dir  # noqa: E402

__all__ = [
    "EvolvableEnv",
    "Feedback",
    "InvalidAction",
    "RebuildOnComplexity",
    "extract_boxed",
    "get_env_complexity",
    "lose",
    "register_env_dir",
    "set_env_complexity",
    "win",
]

registration = register_library(LIBRARY_PACKAGE)
registration.merge(register_plugins())
for _what, _error in registration.failed.items():
    warnings.warn(f"gymverse: {_what} was not registered: {_error}", stacklevel=2)
