"""Every seed of a run comes from ``gymverse.seeds`` by a named purpose, with the values the runs were measured with."""

import re
from pathlib import Path

import gymverse
from gymverse.seeds import (
    Purpose,
    StepPurpose,
    coordinate_seed,
    derive_seed,
    step_seed,
    train_envs_seed,
    train_games_seed,
)

PACKAGE = Path(gymverse.__file__).parent


def test_derived_seeds_keep_the_values_the_readmes_runs_were_measured_with():
    assert derive_seed(42, Purpose.WARM_START) == 1955881634
    assert derive_seed(42, Purpose.EVAL_DRAWS, 1, 4, 7) == 1167619309
    assert step_seed(42, 5, StepPurpose.BATCH) == 661958342
    assert train_envs_seed(42, 1) == 1181570228
    assert train_games_seed(42, 5, 1, 2) == 2067423311
    assert coordinate_seed(42, "gymverse:GridCourier", 3, 2) == 642719838


def test_every_call_site_names_its_purpose():
    calls = re.compile(r"\b(derive_seed|step_seed)\(([^()]*)\)")
    purposes = {"derive_seed": ("Purpose.", 1), "step_seed": ("StepPurpose.", 2)}
    checked = 0
    for path in PACKAGE.rglob("*.py"):
        if path.name == "seeds.py":
            continue
        for function, arguments in calls.findall(path.read_text()):
            prefix, position = purposes[function]
            purpose = [argument.strip() for argument in arguments.split(",")][position]
            assert purpose.startswith(prefix), f"{path.name}: {function}({arguments}) names no purpose"
            checked += 1
    assert checked >= 15
