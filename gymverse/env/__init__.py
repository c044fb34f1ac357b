"""The environment contract: the base class, complexity, action parsing, checking and registration."""

from gymverse.env.complexity import line_value, sample_params, validate_complexity
from gymverse.env.core import EvolvableEnv, Feedback, lose, win
from gymverse.env.draws import between, distinct_draws, pick
from gymverse.env.parsing import (
    CommandTable,
    InvalidAction,
    command_table,
    expect_command,
    extract_boxed,
    parse_index,
    parse_int,
    split_command,
)

__all__ = [
    "CommandTable",
    "EvolvableEnv",
    "Feedback",
    "InvalidAction",
    "between",
    "command_table",
    "distinct_draws",
    "expect_command",
    "extract_boxed",
    "line_value",
    "lose",
    "parse_index",
    "parse_int",
    "pick",
    "sample_params",
    "split_command",
    "validate_complexity",
    "win",
]

from gymverse.env.registry import (  # noqa: E402
    RebuildOnComplexity,
    RegistrationReport,
    builtin_env_classes,
    env_class,
    get_env_complexity,
    highest_complexity,
    import_env_dir,
    register_library,
    register_plugins,
    registered_ids,
    set_env_complexity,
)

__all__ += [
    "RebuildOnComplexity",
    "RegistrationReport",
    "builtin_env_classes",
    "env_class",
    "get_env_complexity",
    "highest_complexity",
    "import_env_dir",
    "register_library",
    "register_plugins",
    "registered_ids",
    "set_env_complexity",
]
