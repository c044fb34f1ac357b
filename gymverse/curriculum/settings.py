"""The curriculum's flags: whether and which controller moves the complexity, its range, each controller's
parameters; their validation; the controller they name.

:class:`CurriculumSettings` is made of the built-in controllers' ``Params`` and the choice between them, and
``RunConfig`` inherits it, so the flags stay flat (``--curriculum alpha --alpha 0.6``). ``--curriculum`` offers
every registered controller (``CONTROLLERS``, read when the command line is parsed), and
:func:`with_controller_flags` adds the parameters of one defined elsewhere to a trainer's flags.
"""

from dataclasses import dataclass, fields
from typing import Annotated, Any, Literal, Mapping

import tyro

from gymverse.curriculum.controllers import CONTROLLERS, AlphaParams, Curriculum, RatchetParams
from gymverse.env.evolve import Thresholds
from gymverse.errors import BadInput


def controller_names() -> Any:
    """``--curriculum``'s choices: the registered controllers' names."""
    return Literal[tuple(CONTROLLERS)]  # type: ignore[valid-type]


DEFAULT = "threshold"
SHOWN = f"(default: {DEFAULT})"  # tyro shows a default with a choice factory as a list


@dataclass
class CurriculumChoice:
    evolve: bool = True
    """Let a curriculum move each environment's complexity with its success rate [GymVerse: off]."""
    curriculum: Annotated[str, tyro.conf.arg(constructor_factory=controller_names, help_behavior_hint=SHOWN)] = DEFAULT
    """threshold (GymVerse's evolve), alpha (GenEnv: success near --alpha), ratchet (RLVE: up only) or uniform
    (a static baseline: each batch a complexity drawn uniformly from --min_difficulty to --max_difficulty)."""
    train_difficulty: int = 1
    """Complexity every training environment starts at."""
    min_difficulty: int = 1
    """Lowest complexity the curriculum may set."""
    max_difficulty: int = 10
    """Highest complexity the curriculum may set."""


@dataclass
class CurriculumSettings(RatchetParams, AlphaParams, Thresholds, CurriculumChoice):
    """The curriculum flags of every trainer (GymVerse's names: the axis is called difficulty there)."""


def with_controller_flags(args_class: type) -> type:
    """``args_class``, plus the parameters of registered controllers it does not hold yet as flags (a controller
    defined outside this package); ``args_class`` itself when it holds them all."""
    missing = [c.Params for c in CONTROLLERS.values() if fields(c.Params) and not issubclass(args_class, c.Params)]
    if not missing:
        return args_class
    return dataclass(type(args_class.__name__, (args_class, *dict.fromkeys(missing)), {}))


def params_of(controller: type[Curriculum], settings: Any) -> Any:
    """``controller``'s parameters as ``settings`` (flags) give them."""
    return controller.Params(**{f.name: getattr(settings, f.name) for f in fields(controller.Params)})


def validate_curriculum(settings: CurriculumSettings) -> None:
    """Raise :class:`BadInput` for a complexity range or a chosen controller's parameters no run can use."""
    if not 1 <= settings.min_difficulty <= settings.train_difficulty <= settings.max_difficulty:
        raise BadInput(
            "complexities must satisfy 1 <= --min_difficulty <= --train_difficulty <= --max_difficulty, got "
            f"{settings.min_difficulty}, {settings.train_difficulty}, {settings.max_difficulty}"
        )
    if settings.curriculum not in CONTROLLERS:
        raise BadInput(f"unknown --curriculum {settings.curriculum!r}; choose one of {sorted(CONTROLLERS)}")
    params_of(CONTROLLERS[settings.curriculum], settings).validate()


def make_controller(settings: CurriculumSettings, seed: int, highest: Mapping[str, int]) -> Curriculum:
    """The controller ``--curriculum`` names, with its flags, the complexity range and each game's ``highest``."""
    controller = CONTROLLERS[settings.curriculum]
    return controller(
        params_of(controller, settings),
        start=settings.train_difficulty,
        min_complexity=settings.min_difficulty,
        max_complexity=settings.max_difficulty,
        highest=dict(highest),
        seed=seed,
    )
