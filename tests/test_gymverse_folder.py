"""GymVerse's folder as its users have it: ids from its registration file (read, never run), domains from its
file names, scripts that are not games. Folders are imported in this process here (``trusted=True``)."""

import sys
from pathlib import Path

import gem
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gymverse  # noqa: F401  (registers the built-in games)
from gymverse.env.gymverse_ids import (
    default_game_name,
    defines_a_class,
    domain_from_file_name,
    parse_registrations,
    read_registrations,
)
from gymverse.env.registry import (
    NOT_A_GAME,
    env_class,
    folder_env_ids,
    folder_env_specs,
    game_domain,
    import_env_dir,
)
from gymverse.evaluation.targets import resolve_env_ids, target_for

REGISTRATIONS = """
import heavy_package_that_is_not_installed
from gem.envs.registration import register

register("example:Runic", "gem.envs.example.game_Runic_x_env:RunicEnv")
register("example:Runic-hard", "gem.envs.example.game_Runic_x_env:RunicEnv", size=6, mode=None, sizes=(1, 2))
register(env_id="example:Ledger", entry_point="gem.envs.example.logic_Ledger_env:LedgerEnv")
register("example:Runic", "gem.envs.example.game_Other_env:OtherEnv")   # taken: the first one keeps it
for i in range(3):
    register(f"example:Loop{i}", "gem.envs.example.game_Loop_env:LoopEnv")
register("example:Opaque", "gem.envs.example.game_Opaque_env:OpaqueEnv", **settings)
register("example:Computed", "gem.envs.example.game_Computed_env:ComputedEnv", size=len(x))
register("example:Elsewhere", "gem.envs.new_example.game_Elsewhere_env:ElsewhereEnv")
gem.register("example:Dotted", "gem.envs.example.math_Dotted_env:DottedEnv")
"""


def test_the_register_calls_give_each_class_its_ids_and_kwargs_in_order():
    assert parse_registrations(REGISTRATIONS, "example") == {
        ("game_Runic_x_env", "RunicEnv"): [
            ("example:Runic", {}),
            ("example:Runic-hard", {"size": 6, "mode": None, "sizes": (1, 2)}),
        ],
        ("logic_Ledger_env", "LedgerEnv"): [("example:Ledger", {})],
        ("math_Dotted_env", "DottedEnv"): [("example:Dotted", {})],
    }
    assert parse_registrations(REGISTRATIONS, "new_example") == {
        ("game_Elsewhere_env", "ElsewhereEnv"): [("example:Elsewhere", {})]
    }


@pytest.mark.parametrize("source", ["register(", "\0", "register('a:B')", "register(1, 2)", "x = [" * 200, b"\xff\xfe"])
def test_a_registration_file_that_cannot_be_read_gives_no_ids_and_no_error(source):
    assert parse_registrations(source, "example") == {}


@given(st.text(max_size=300))
def test_any_text_parses_without_raising(text):
    assert isinstance(parse_registrations("register(" + text, "example"), dict)


def test_the_registration_file_is_read_without_being_run(gymverse_folder):
    registrations = read_registrations(gymverse_folder)  # its first line imports a package that does not exist
    assert registrations[("logic_TruthLedger_diagram_coloring_env", "TruthLedgerEnv")] == [
        ("example:TruthLedger", {}),
        ("example:TruthLedger-hard", {"rows": 6}),
    ]
    # the later registration of example:RaidPartyPlanner for another class loses, as in GymVerse's registry
    assert registrations[("game_RuneRingPuzzle_black_white_copy_env", "RuneRingPuzzleEnv")] == [
        ("example:RuneRingPuzzle", {})
    ]
    assert read_registrations(gymverse_folder / "nowhere" / "deeper") == {}


def test_a_folder_takes_gymverse_ids_where_registered_and_name_ids_elsewhere():
    files = {
        Path("game_Runic_x_env.py"): ["RunicEnv", "RunicEnvWithFeedback"],
        Path("tool_use_Desk_env.py"): ["DeskEnv"],
        Path("a.py"): ["Twin"],
        Path("b.py"): ["Twin"],
        Path("c.py"): ["Runic"],
    }
    registrations = {("game_Runic_x_env", "RunicEnv"): [("example:Runic", {}), ("example:Runic-hard", {"size": 6})]}
    specs = folder_env_specs("example", files, registrations)
    assert specs == {
        "example:Runic": (Path("game_Runic_x_env.py"), "RunicEnv", {}),
        "example:Runic-hard": (Path("game_Runic_x_env.py"), "RunicEnv", {"size": 6}),
        "example:RunicEnvWithFeedback": (Path("game_Runic_x_env.py"), "RunicEnvWithFeedback", {}),
        "example:Desk": (Path("tool_use_Desk_env.py"), "DeskEnv", {}),
        "example:a.Twin": (Path("a.py"), "Twin", {}),
        "example:b.Twin": (Path("b.py"), "Twin", {}),
        "example:c.Runic": (Path("c.py"), "Runic", {}),  # example:Runic is GymVerse's id of another class
    }
    ids = folder_env_ids("example", files, registrations)
    assert ids[Path("game_Runic_x_env.py"), "RunicEnv"] == "example:Runic"  # one row per class: its first id
    assert len(ids) == 6 and folder_env_ids("mine", {Path("a.py"): ["EchoGame"]}) == {
        (Path("a.py"), "EchoGame"): "mine:EchoGame"
    }


@pytest.mark.parametrize(
    "name, expected",
    [
        ("RunicPotionGameEnv", "RunicPotionGame"),
        ("RunicPotionGameEnvWithFeedback", "RunicPotionGameEnvWithFeedback"),
        ("EchoGame", "EchoGame"),
        ("Env", "Env"),
    ],
)
def test_default_game_names_drop_the_env_suffix(name, expected):
    assert default_game_name(name) == expected


@pytest.mark.parametrize(
    "file_name, domain",
    [
        ("algorithm_AlgorithmRuntime_SpeciesCollectionEnv_GEM_env.py", "algorithms"),
        ("dynamicprogramming_algorithm_BellmanVerifier_SymmetricPaintingEnv_GEM_env.py", "algorithms"),
        ("code_CodebaseSummary_SpeciesCollectionEnv_GEM_env.py", "code"),
        ("tool_use_CampusWeave_env.py", "tool_use"),
        ("logic_LogicGlyphDeductor_MarathonTimeEnv_GEM_env.py", "logic"),
        ("logic_game_DeductionLedger_diagram_coloring_env.py", "logic"),
        ("math_AlgebraFlow_pol_polarization_env_env.py", "math"),
        ("calculationgame_FormulaFoundry_one_touch_drawing_env.py", "math"),
        ("game_CardComboGame_StringOperationsEnv_GEM_env.py", "games"),
        ("ggame_ComboChoreographer_pipeline_arrangement_env_env.py", "games"),
        ("maze_game_LabyrinthCourier_sorting_env_env.py", "navigation"),
        ("puzzle_game_AquaConflux_city_path_env.py", "puzzles"),
        ("chemistry_TitrationBench_env.py", "chemistry"),
        ("SubroutineBlacksmithForge_env.py", None),
        ("number_hunt.py", None),
    ],
)
def test_gymverse_file_prefixes_name_a_domain(file_name, domain):
    assert domain_from_file_name(file_name) == domain


def test_a_solver_script_is_not_a_game_and_is_never_imported(gymverse_folder):
    assert not defines_a_class((gymverse_folder / "tool_use_SupplyDesk_solver.py").read_text())
    core = sys.modules["gem.core"]
    report = import_env_dir(gymverse_folder)
    assert sys.modules["gem.core"] is core
    assert report.failed == {str(gymverse_folder / "tool_use_SupplyDesk_solver.py"): NOT_A_GAME}
    assert sorted(report.registered) == [
        "example:GuildRegionsGame",
        "example:RaidPartyPlanner",
        "example:RuneRingPuzzle",
        "example:RunicPotionGame",
        "example:RunicPotionGameEnvWithFeedback",
        "example:SupplyDesk",
        "example:TruthLedger",
        "example:TruthLedger-hard",
    ]


def test_a_file_that_swaps_gem_core_does_not_break_the_files_after_it(tmp_path):
    folder = tmp_path / "swapped"
    folder.mkdir()
    (folder / "a_helper.py").write_text(
        "import sys, types\nsys.modules['gem.core'] = types.ModuleType('gem.core')\nclass Helper:\n    pass\n"
    )
    (folder / "b_game.py").write_text(
        (
            Path(__file__).parent
            / "fixtures"
            / "gymverse_layout"
            / "gem"
            / "envs"
            / "example"
            / "game_RaidPartyPlanner_difference_constraint_system_dag_env.py"
        ).read_text()
    )
    try:
        assert import_env_dir(folder).registered == ["swapped:RaidPartyPlanner"]
    finally:
        gem.envs.registration.ENV_REGISTRY.pop("swapped:RaidPartyPlanner", None)


def test_a_kwargs_variant_is_its_own_game(gymverse_folder):
    import_env_dir(gymverse_folder)
    plain, hard = gem.make("example:TruthLedger", complexity=1), gem.make("example:TruthLedger-hard", complexity=1)
    assert plain.reset(seed=0)[1]["suffix"] == "2 rows." and hard.reset(seed=0)[1]["suffix"] == "6 rows."


def test_games_keep_the_domain_their_file_names(gymverse_folder):
    ids = resolve_env_ids(["example:TruthLedger"], folder=gymverse_folder, log=lambda line: None, trusted=True)
    assert "example:SupplyDesk" in ids and "example:RunicPotionGame" in ids
    assert target_for("example:TruthLedger").domain == "logic"
    assert target_for("example:SupplyDesk").domain == "tool_use"
    assert game_domain(env_class("example:RunicPotionGame")) == "games"
    assert game_domain(env_class("gymverse:PeakFinder")) == "algorithms"  # a declared domain wins


def test_id_patterns_name_every_matching_game(gymverse_folder):
    import_env_dir(gymverse_folder)
    assert resolve_env_ids(["example:Truth*"]) == ["example:TruthLedger", "example:TruthLedger-hard"]
    with pytest.raises(gymverse.errors.BadInput, match="no registered environment id matches 'example:Nothing\\*'"):
        resolve_env_ids(["example:Nothing*"])
