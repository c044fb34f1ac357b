"""Curricula: the controllers that turn success statistics into complexity (``controllers``: threshold, alpha,
ratchet, uniform; pure, with serializable state) and the driver that runs one for a trainer (``driver``)."""

from gymverse.curriculum.controllers import (
    CURRICULA,
    AlphaCurriculum,
    Curriculum,
    RatchetCurriculum,
    ThresholdCurriculum,
    UniformCurriculum,
    alpha_reward,
    highest_complexities,
    is_informative,
    make_curriculum,
)
from gymverse.curriculum.driver import CurriculumDriver, apply_levels, curriculum_params

__all__ = [
    "CURRICULA",
    "AlphaCurriculum",
    "Curriculum",
    "CurriculumDriver",
    "RatchetCurriculum",
    "ThresholdCurriculum",
    "UniformCurriculum",
    "alpha_reward",
    "apply_levels",
    "curriculum_params",
    "highest_complexities",
    "is_informative",
    "make_curriculum",
]
