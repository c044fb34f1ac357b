"""Shared by all tests: reproducible Hypothesis examples, a cache of the run's own, the groups that keep an expensive
fixture on one worker, the built-in tiny model and a one-layer micro model."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# The same examples on every run, so that a CI verdict can be reproduced;
# `HYPOTHESIS_PROFILE=explore pytest` searches afresh on each run.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))

# Module fixtures that take tens of seconds to build (a synthesis run, an audit, a judged folder). The tests that
# use one of them run on a single pytest-xdist worker, so that it is built once; every other test goes to
# whichever worker is free. (xdist's own `xdist_group` marks are lost under pytest 9, whose node ids they edit.)
SHARED_BUILDS = {"scripted_run", "audit", "twins_audit", "judged", "oat_sources"}
SLOW_BUILDS = SHARED_BUILDS - {"oat_sources"}  # their tests are `slow` too (oat_sources is a download, kept once)
# A test that reads what an earlier test of its module left in a module fixture (the escape suite's journal of a
# `check --dir` run) runs after it, on its worker.
RUNS_AFTER = {
    "test_sandbox": {
        "test_what_each_payload_did_is_named_in_its_row": "test_check_dir_contains_every_payload_and_passes_the_control"
    }
}
GROUPS = "GYMVERSE_TEST_GROUPS"  # the file where the workers leave each grouped test's group for the scheduler

# The tests that run a whole command, a training run or the escape suite end to end, and the shared builds of
# SLOW_BUILDS, as "module::test" or "module::fixture", the longest first (by their time beside the suite's other
# workers on 2 cores). They are marked `slow` (`pytest -m "not slow"` is the quick loop) and start in this order,
# so that the longest are under way from the first minute and no worker is left with a long one at the end.
LONGEST_FIRST = [
    "test_synthesis::scripted_run",
    "test_sandbox::test_audit_dir_contains_every_payload",
    "test_gymverse_evaluation::test_the_multi_model_workflow_runs_on_a_cpu_resumes_by_timestamp_and_aggregates",
    "test_synthesis::test_resume_after_a_kill_loses_and_repeats_nothing",
    "test_sandbox::test_adopt_refuses_every_payload_and_adopts_the_control",
    "test_code_style::test_every_package_type_checks",  # mypy without its cache, as on a fresh clone
    "test_sandbox::test_the_synthesis_pipeline_refuses_every_payload_a_writer_answers_and_accepts_the_control",
    "test_sandbox::test_eval_dir_gives_each_payload_its_rows_and_plays_the_control",
    "test_sandbox::test_eval_dir_with_a_model_policy_sends_the_endpoint_nothing_of_the_callers",
    "test_train_signal::test_the_same_run_gives_the_same_logs_beside_a_busy_process_another_hash_seed_and_more_workers",
    "test_experiments::test_a_quick_study_writes_its_table_figure_and_results_then_skips_what_is_done",
    "test_sandbox::test_check_dir_contains_every_payload_and_passes_the_control",
    "test_sandbox::test_what_each_payload_did_is_named_in_its_row",  # runs after the one above (RUNS_AFTER)
    "test_genenv_loop::test_ctrl_c_finishes_the_step_saves_and_resume_ends_like_an_uninterrupted_run",
    "test_genenv_loop::test_a_games_run_on_an_episode_budget_killed_and_resumed_ends_like_an_uninterrupted_one",
    "test_gymverse_evaluation::test_bad_settings_stop_the_script_with_one_line",
    "test_train::test_gymverses_four_games_train_on_cpu_from_the_untrained_tiny_model",
    "test_experiments::test_every_study_runs_end_to_end_on_the_smoke_budget",
    "test_train::test_a_run_killed_and_resumed_ends_like_an_uninterrupted_one",
    "test_sandbox::test_train_on_a_game_whose_replies_a_trainer_cannot_use_stops_in_one_line_naming_it",
    "test_library::test_a_new_game_is_one_file_that_every_game_test_accepts",
    "test_sandbox::test_a_file_with_10000_games_is_refused_within_its_time_and_leaves_nothing_behind",
    "test_train_signal::test_seeds_flag_runs_each_seed_and_saves_the_aggregate",
    "test_cli::test_bad_input_is_refused_before_torch_loads",
    "test_evaluation::test_a_tiny_model_sweep_stopped_and_resumed_logs_what_an_uninterrupted_one_does",
    "test_sandbox::test_check_dir_stops_a_jail_at_its_memory_and_process_limits",
    "test_sandbox::test_train_env_dir_registers_the_folder_jailed_and_trains_on_the_control",
    "test_genenv_loop::test_a_run_killed_and_resumed_ends_like_an_uninterrupted_one",
    "test_audit::audit",
    "test_synthesis::test_adopt_copies_only_what_passes_and_marks_games_without_a_solver",
    "test_audit::test_diversity_flags_the_renamed_copy_but_not_a_different_game",
    "test_gymverse_evaluation::test_with_gpus_each_one_plays_every_nth_game_of_a_category_in_its_own_process",
    "test_audit::test_audit_command_writes_the_report_for_a_folder",
    "test_train::test_a_short_run_leaves_logs_checkpoints_state_and_figure",
    "test_genenv_keys::test_genenvs_launch_script_runs_with_its_keys_and_overrides",
    "test_sandbox::test_unreadable_entries_are_rows_not_crashes",
    "test_genenv_loop::test_uniform_specs_train_the_agent_with_perpo",
    "test_genenv_failures::test_a_failing_environment_endpoint_stops_the_run_in_one_line_and_resume_ends_it_as_if_nothing_happened",
    "test_sandbox::test_the_synthesis_gates_refuse_a_payload_that_patches_and_forges",
    "test_train::test_env_dir_registers_a_folder_of_games_under_its_name",
    "test_genenv_loop::test_game_space_end_to_end_with_a_garbage_writing_environment_policy",
    "test_genenv_loop::test_env_dir_registers_a_folder_of_games_for_the_run",
    "test_experiments::test_a_half_finished_run_resumes_from_its_checkpoint",
    "test_train::test_ctrl_c_stops_at_the_end_of_a_step_with_a_checkpoint_and_resume_says_from_where",
    "test_evaluation::test_a_model_checkpoint_is_scored_for_format_errors_and_context_overflow",
    "test_genenv_budget::test_the_run_ends_once_the_budget_is_spent_whatever_a_step_plays",
    "test_genenv_budget::test_schedules_are_sized_for_the_budget_and_hold_their_last_rate",
    "test_genenv_failures::test_a_full_disk_is_one_line_and_the_last_save_stays_whole",
    "test_genenv_failures::test_a_log_line_the_disk_cannot_take_stops_the_step_and_resume_redoes_it",
    "test_train::test_the_readme_command_starts_on_cpu",
    "test_genenv_budget::test_games_runs_evaluate_the_agent_online_as_the_perpo_trainer_does",
    "test_audit::twins_audit",
    "test_train::test_a_mistyped_value_is_refused_before_torch_is_imported_naming_the_flag_as_typed",
    "test_sandbox::judged",
    "test_genenv_rewards::test_embedding_similarity_ranks_paraphrases_above_unrelated_text",
    "test_policy::test_a_shared_prompt_read_once_scores_and_trains_as_each_row_read_whole",
]
RANKS = {name: rank for rank, name in enumerate(LONGEST_FIRST)}


def pytest_configure(config):
    """One gymverse cache for the whole run, shared by its workers (they inherit the environment) and by no other
    run: what a test lists, judges or builds never comes from, or lands in, the user's ~/.cache."""
    if hasattr(config, "workerinput"):
        return
    folder = tempfile.mkdtemp(prefix="gymverse-tests-")
    os.environ.pop("GYMVERSE_CACHE", None)
    os.environ["XDG_CACHE_HOME"] = os.path.join(folder, "cache")
    os.environ[GROUPS] = os.path.join(folder, "groups.json")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_xdist_make_scheduler(config, log):
    """Like `--dist load`, except that the tests in one group of :data:`SHARED_BUILDS` go to one worker together,
    in the order collected (the longest first), and a worker is sent its next test when it has one left to run,
    not three: a long test bound early to a busy worker would wait for it while another stands idle."""
    if config.getvalue("dist") != "load":  # -n's default; another --dist asked for is left to xdist
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False  # keep the collected order, not the largest groups first

    class SharedBuildScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            if not hasattr(self, "groups"):  # read once every worker has collected, when the first test is sent
                self.groups = json.loads(Path(os.environ[GROUPS]).read_text())
            return self.groups.get(nodeid, nodeid)

        def _reschedule(self, node):
            if node.shutting_down:
                return
            if not self.workqueue:
                node.shutdown()
                return
            if self._pending_of(self.assigned_work[node]) < 2:  # a worker runs a test once it knows the next one
                self._assign_work_unit(node)

    return SharedBuildScheduling(config, log)


def shared_builds(item) -> list[str]:
    return sorted(SHARED_BUILDS.intersection(getattr(item, "fixturenames", ())))


def write_groups(items):
    groups = {}
    for item in items:
        module, name = item.module.__name__, getattr(item, "originalname", None)
        shared = shared_builds(item)
        earlier = RUNS_AFTER.get(module, {})
        if shared:
            groups[item.nodeid] = f"{module}.{shared[0]}"
        elif name in earlier or name in earlier.values():
            groups[item.nodeid] = f"{module}.{earlier.get(name, name)}"
    path = Path(os.environ[GROUPS])
    staging = path.with_name(f"{path.name}.{os.getpid()}")
    staging.write_text(json.dumps(groups))
    os.replace(staging, path)  # the workers collect the same tests: whichever writes last writes the same map


def rank(item) -> int:
    """Where the item's test or shared build stands in LONGEST_FIRST (after all of them if in neither)."""
    module = item.module.__name__
    names = [getattr(item, "originalname", None), *shared_builds(item)]
    return min((RANKS[f"{module}::{name}"] for name in names if f"{module}::{name}" in RANKS), default=len(RANKS))


def stale_longest_first(items) -> list[str] | None:
    """The names of LONGEST_FIRST that no collected test or shared build has (None when ``items`` leave out a
    module that the list names, as a run of a few tests does)."""
    if not {item.module.__name__ for item in items} >= {name.split("::")[0] for name in LONGEST_FIRST}:
        return None
    collected = {
        f"{item.module.__name__}::{name}" for item in items for name in (item.originalname, *shared_builds(item))
    }
    return [name for name in LONGEST_FIRST if name not in collected]


STALE: list[str] | None = None  # LONGEST_FIRST's names that this run's collection lacks (None: a partial run)


@pytest.hookimpl(tryfirst=True)  # before -m and -k deselect: the whole collection
def pytest_collection_modifyitems(config, items):
    global STALE
    STALE = stale_longest_first(items)
    for item in items:
        if rank(item) < len(RANKS) or SLOW_BUILDS.intersection(shared_builds(item)):
            item.add_marker(pytest.mark.slow)
    items.sort(key=rank)  # stable: the longest first, the rest as collected
    if hasattr(config, "workerinput") and GROUPS in os.environ:
        write_groups(items)


@pytest.fixture(scope="session")
def tiny_dir():
    """The built-in tiny model in the run's own cache, where `--pretrain tiny` finds it: built once for the run, by
    whichever worker (or command a test runs) asks first."""
    from gymverse.policy.tiny import resolve_pretrain

    return resolve_pretrain("tiny")


@pytest.fixture(scope="session")
def tokenizer(tiny_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_dir)


@pytest.fixture(scope="session")
def micro_model(tmp_path_factory):
    """A one-layer model with the tiny model's byte tokenizer: fast enough for end-to-end runs."""
    from gymverse.policy.tiny import TINY_ARCHITECTURE, build_tiny_model

    micro = dict(TINY_ARCHITECTURE, hidden_size=32, intermediate_size=64, num_hidden_layers=1)
    micro.update(num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048)
    return build_tiny_model(tmp_path_factory.mktemp("micro"), architecture=micro)


@pytest.fixture(scope="session")
def embedder():
    """The audit's sentence embedder (its weights ship inside the package)."""
    from gymverse.evaluation.audit.diversity import load_embedder

    return load_embedder()


GYMVERSE_LAYOUT = os.path.join(os.path.dirname(__file__), "fixtures", "gymverse_layout")


@pytest.fixture(autouse=True)
def isolated_registry():
    """Each test leaves GEM's registry as it found it, so that an id one test registers from its own folder
    (``example:RunicPotionGame``) is never the one another test finds."""
    from gem.envs.registration import ENV_REGISTRY

    import gymverse  # noqa: F401  (the built-in games and plugins are registered at import, before the snapshot)

    before = dict(ENV_REGISTRY)
    yield
    ENV_REGISTRY.clear()
    ENV_REGISTRY.update(before)


@pytest.fixture
def gymverse_folder(tmp_path):
    """A copy of GymVerse's layout (tests/fixtures/gymverse_layout): the game folder ``.../gem/envs/example``."""
    import shutil

    root = shutil.copytree(GYMVERSE_LAYOUT, tmp_path / "GymVerse")
    return root / "gem" / "envs" / "example"
