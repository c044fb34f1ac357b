"""Curricula: the controllers that turn success statistics into complexity (``controllers``: threshold, alpha,
ratchet, uniform, and any other subclass of ``Curriculum``; pure, with serializable state), their flags and
validation (``settings``), and the driver that runs one for a trainer (``driver``)."""

from gymverse.curriculum.controllers import (
    CONTROLLERS,
    AlphaCurriculum,
    AlphaParams,
    Curriculum,
    Level,
    NoParams,
    RatchetCurriculum,
    RatchetParams,
    ThresholdCurriculum,
    UniformCurriculum,
    alpha_reward,
    is_informative,
    make_curriculum,
)
from gymverse.curriculum.driver import CurriculumDriver, apply_levels, highest_complexities
from gymverse.curriculum.settings import (
    CurriculumSettings,
    make_controller,
    params_of,
    validate_curriculum,
    with_controller_flags,
)

__all__ = [
    "CONTROLLERS",
    "AlphaCurriculum",
    "AlphaParams",
    "Curriculum",
    "CurriculumDriver",
    "CurriculumSettings",
    "Level",
    "NoParams",
    "RatchetCurriculum",
    "RatchetParams",
    "ThresholdCurriculum",
    "UniformCurriculum",
    "alpha_reward",
    "apply_levels",
    "highest_complexities",
    "is_informative",
    "make_controller",
    "make_curriculum",
    "params_of",
    "validate_curriculum",
    "with_controller_flags",
]
