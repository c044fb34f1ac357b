"""The contract between gymverse/oat and the real oat-llm 0.2.4 sources (read with ast, never imported).

The sources are downloaded once into ``.cache/oat-llm-0.2.4``; these tests skip only when they are
not cached and PyPI cannot be reached.
"""

import ast
import re
import shutil
import subprocess
import sys
import urllib.error
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))  # a developer tool, not in the package
import oat_contract  # noqa: E402
from oat_contract import (  # noqa: E402
    DEFAULT_CACHE,
    GLUE_DIR,
    GPU_STACK,
    Module,
    OatSources,
    SourcesUnavailable,
    check,
    check_gpu_pins,
    check_shared_flags,
    command_flags,
    fetch_oat_sources,
    pinned_versions,
)


@pytest.fixture(scope="module")
def oat_sources() -> Path:
    try:
        return fetch_oat_sources(DEFAULT_CACHE)
    except SourcesUnavailable as error:
        pytest.skip(f"skipped because PyPI is unreachable and the oat-llm sources are not cached: {error}")


@pytest.fixture
def sources_copy(oat_sources, tmp_path) -> Path:
    copy = tmp_path / "oat-llm"
    shutil.copytree(oat_sources, copy)
    return copy


def test_the_glue_matches_oat_0_2_4(oat_sources):
    report = check(oat_sources)
    assert report.problems == []
    assert report.checked >= len(glue_overrides())


def test_the_command_line_check_passes_on_the_real_sources(oat_sources, capsys):
    assert oat_contract.main(["--sources", str(oat_sources)]) == 0
    assert "0 broken" in capsys.readouterr().out


def test_the_check_can_read_an_installed_oat(oat_sources, tmp_path, monkeypatch, capsys):
    site = tmp_path / "site-packages"
    shutil.copytree(oat_sources, site)
    monkeypatch.syspath_prepend(str(site))
    assert oat_contract.main(["--installed"]) == 0
    assert f"({site}): 0 broken" in capsys.readouterr().out


# ---------------------------------------------------------------- renaming what we override


def glue_overrides() -> list[tuple[str, str]]:
    """(glue class, method) for every method of the glue marked @override."""
    found = []
    for path in sorted(GLUE_DIR.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                found += [
                    (node.name, item.name)
                    for item in node.body
                    if isinstance(item, ast.FunctionDef)
                    and any(getattr(d, "id", None) == "override" for d in item.decorator_list)
                ]
    return found


def rename_in_oat_bases(root: Path, glue_class: str, method: str) -> int:
    """Rename ``method`` in every OAT class that ``glue_class`` inherits it from; how many were renamed."""
    sources = OatSources(root)
    for path in GLUE_DIR.glob("*.py"):
        module = Module.parse(f"gymverse.oat.{path.stem}", path)
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == glue_class:
                bases = [sources.resolve_class(*module.imports[b.id]) for b in node.bases if b.id in module.imports]
                chain = [c for base in bases if base for c in sources.mro(base)]
    renamed = 0
    for info in chain:
        definition = info.methods().get(method)
        if definition is not None:
            lines = info.module.path.read_text().splitlines(keepends=True)
            lines[definition.lineno - 1] = lines[definition.lineno - 1].replace(f"def {method}(", f"def {method}_v2(")
            info.module.path.write_text("".join(lines))
            renamed += 1
    return renamed


def test_the_glue_overrides_the_hooks_it_needs():
    assert {
        ("Actor", "step"),
        ("Learner", "compute_monte_carlo_advantages"),
        ("Learner", "evaluate"),
        ("Learner", "process_feedback_data"),
    } <= set(glue_overrides())


@pytest.mark.parametrize("glue_class, method", glue_overrides())
def test_the_check_fails_when_oat_renames_a_method_we_override(sources_copy, glue_class, method):
    assert rename_in_oat_bases(sources_copy, glue_class, method) >= 1
    report = check(sources_copy)
    assert any(f"{glue_class}.{method}" in p.where and "marked @override" in p.message for p in report.problems), (
        report.problems
    )


def test_the_command_line_check_fails_on_a_renamed_override(sources_copy, capsys):
    rename_in_oat_bases(sources_copy, "Learner", "compute_monte_carlo_advantages")
    assert oat_contract.main(["--sources", str(sources_copy)]) == 1
    assert "Learner.compute_monte_carlo_advantages: is marked @override" in capsys.readouterr().out


# ---------------------------------------------------------------- other changes OAT could make


@pytest.mark.parametrize(
    "path, old, new, expected",
    [
        (
            "oat/types.py",
            "    response_logprobs: List[float]",
            "    response_logps: List[float]",
            "no field 'response_logprobs'",
        ),
        (
            "oat/utils/deepspeed.py",
            'def all_reduce(self, data, op="mean")',
            'def all_reduce(self, tensor, op="mean")',
            "DeepspeedStrategy.all_reduce: takes (self, tensor, op)",
        ),
        (
            "oat/algorithms/ppo.py",
            "    ignore_no_eos: bool = field(",
            "    skip_no_eos: bool = field(",
            "uses args.ignore_no_eos",
        ),
        ("oat/utils/data.py", "self.transitions = []", "self.samples = []", "uses self.transitions"),
        (
            "oat/algorithms/ppo.py",
            "def learning_step(self, trajectory):",
            "def learning_step(self, trajectory, step):",
            "Learner.learning_step: takes (self, trajectory) but OAT's takes (self, trajectory, step)",
        ),
        (
            "oat/algorithms/ppo.py",
            "advantages = self.compute_monte_carlo_advantages(",
            "advantages = self.compute_mc_advantages(",
            "which OAT never calls",
        ),
        ("oat/interface.py", "def get_program(", "def make_program(", "imports get_program from oat.interface"),
        (
            "oat/actors/base.py",
            "    def generate(\n        self,\n        prompts",
            "    def generate(\n        self,\n        sampling_params,\n        prompts",
            "ActorBase.generate: takes (self, sampling_params, prompts",
        ),
    ],
)
def test_the_check_fails_on_other_breaking_changes(sources_copy, path, old, new, expected):
    file = sources_copy / path
    text = file.read_text()
    assert old in text
    file.write_text(text.replace(old, new))
    problems = check(sources_copy).problems
    assert any(expected in str(p) for p in problems), problems


def test_the_check_fails_when_oat_gives_its_transition_a_field_we_add(sources_copy):
    file = sources_copy / "oat/types.py"
    file.write_text(
        file.read_text().replace("    loss_mask: bool = True\n", "    loss_mask: bool = True\n    env_id: str = ''\n")
    )
    problems = [str(p) for p in check(sources_copy).problems]
    assert any("has a field 'env_id' of its own" in p for p in problems), problems


# ---------------------------------------------------------------- our transition in OAT's own code


def oat_code(sources: Path, module: str, names: set[str], namespace: dict) -> dict:
    """The top-level definitions ``names`` of OAT's ``module``, run from its source in ``namespace``."""
    tree = ast.parse((sources / (module.replace(".", "/") + ".py")).read_text())
    body = [node for node in tree.body if getattr(node, "name", None) in names]
    exec(compile(ast.Module(body=body, type_ignores=[]), module, "exec"), namespace)
    return namespace


def test_oats_transition_dataset_takes_our_transitions_and_hands_the_learner_their_fields(oat_sources, monkeypatch):
    """Our records become OAT's real TransitionData subclass, and OAT's real TransitionDataset batches them."""
    import importlib.util
    import types
    from dataclasses import dataclass
    from typing import Any, Callable, List

    import torch
    import torch.nn.functional as F
    from torch.utils.data import Dataset
    from tqdm import tqdm

    from gymverse.episodes import Episode, Turn
    from gymverse.oat.transitions import transition_fields
    from gymverse.run.plan import turn_samples

    oat_types = oat_code(
        oat_sources, "oat.types", {"TransitionData"}, {"dataclass": dataclass, "List": List, "Metric": Any}
    )
    imported = dict(torch=torch, F=F, tqdm=tqdm, Dataset=Dataset, List=List, Callable=Callable, DeepspeedStrategy=Any)
    data = oat_code(
        oat_sources,
        "oat.utils.data",
        {"TransitionDataset", "zero_pad_sequences"},
        imported | {"TransitionData": oat_types["TransitionData"]},
    )
    for name, attributes in {
        "oat": {},
        "oat.utils": {},
        "oat.types": {"TransitionData": oat_types["TransitionData"]},
        "oat.utils.data": {"TransitionDataset": data["TransitionDataset"]},
    }.items():
        monkeypatch.setitem(sys.modules, name, types.SimpleNamespace(**attributes))
    spec = importlib.util.spec_from_file_location("oat_records_under_test", GLUE_DIR / "records.py")
    records = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(records)

    turns = [Turn("p", "r", [1, 2], [3, 4], [-0.5, -0.5], r, False) for r in (0.0, 1.0)]
    samples = turn_samples([Episode("g:A", 1, turns, True, 1.0, 2)], gamma=0.5)
    buffer = [records.GameTransition(**transition_fields(s), info={}) for s in samples]
    strategy = types.SimpleNamespace(is_rank_0=lambda: False, args=types.SimpleNamespace(dry_run=False))
    dataset = records.GameTransitionDataset(buffer, types.SimpleNamespace(pad_token_id=0), strategy)
    batch = dataset.collate_fn([dataset[i] for i in range(len(dataset))])
    assert batch["env_ids"] == ["g:A", "g:A"] and batch["turn_returns"] == [0.5, 1.0]
    assert [r[-1] for r in batch["rewards"]] == [0.5, 1.0]  # where OAT's own code reads a reply's reward
    with pytest.raises(TypeError):
        records.GameTransition(**{k: v for k, v in transition_fields(samples[0]).items() if k != "turn_return"})


def test_a_moved_module_is_reported(sources_copy):
    (sources_copy / "oat/types.py").rename(sources_copy / "oat/datatypes.py")
    assert any("imports module oat.types" in str(p) for p in check(sources_copy).problems)


# ---------------------------------------------------------------- the GPU install files


def test_the_gpu_install_files_pin_what_oat_requires(oat_sources):
    assert check_gpu_pins(oat_sources) == []
    pins = pinned_versions(oat_contract.GPU_FILES[1].read_text())
    assert {name: pins[name] for name in GPU_STACK} == {
        "torch": "2.6.0",
        "vllm": "0.8.4",
        "transformers": "4.51.3",
        "deepspeed": "0.16.8",
        "flash-attn": "2.7.4.post1",
        "oat-llm": "0.2.4",
        "gem-llm": "0.1.0",
    }
    assert "- python=3.10" in oat_contract.GPU_FILES[0].read_text()


def test_the_gpu_install_files_cite_only_files_that_exist():
    for file in oat_contract.GPU_FILES:
        for cited in re.findall(r"[\w./-]+\.(?:md|txt|yml|py)\b", file.read_text()):
            assert (oat_contract.REPO_ROOT / cited).exists(), f"{file.name} cites {cited}, which does not exist"


def test_a_flag_of_both_trainers_is_declared_once_for_both(oat_sources):
    from dataclasses import dataclass

    from gymverse.run.config import RunConfig

    assert check_shared_flags(oat_sources) == []

    @dataclass
    class Native(RunConfig):
        whiten_adv: bool = False  # an OAT flag given its own default by one trainer only

    [problem] = check_shared_flags(oat_sources, Native)
    assert "--whiten_adv is a flag of OAT's PPOArgs too: declare it in RunConfig" in str(problem)


@pytest.mark.parametrize(
    "file_index, old, new, expected",
    [
        (1, "vllm==0.8.4", "vllm==0.8.5", "oat-llm 0.2.4 requires vllm==0.8.4"),
        (1, "flash-attn==2.7.4.post1", "flash-attn>=2.7", "does not pin flash-attn exactly"),
        (0, "transformers==4.51.3", "transformers==4.52.0", "requires transformers==4.51.3"),
        (0, "torch==2.6.0", "torch==2.7.0", "pins torch==2.6.0, environment.yml pins 2.7.0"),
        (0, "python=3.10", "python=3.11", "outside oat-llm's Requires-Python"),
    ],
)
def test_a_wrong_pin_is_reported(oat_sources, tmp_path, file_index, old, new, expected):
    files = []
    for i, original in enumerate(oat_contract.GPU_FILES):
        text = original.read_text()
        if i == file_index:
            assert old in text
            text = text.replace(old, new)
        (tmp_path / original.name).write_text(text)
        files.append(tmp_path / original.name)
    assert any(expected in str(p) for p in check_gpu_pins(oat_sources, tuple(files))), expected


# ---------------------------------------------------------------- rules, on a small fake OAT

FAKE_OAT = """
class Base:
    def __init__(self, args):
        self.args = args
        self.known = 1

    def hook(self, a, b=1):
        return a

    def helper(self, x, *, flag=False):
        return x

    def run(self):
        return self.hook(1) + self.helper(2)


def build(args, name, *, verbose=False):
    return Base(args)
"""


def fake_check(tmp_path: Path, glue: str) -> list[str]:
    (tmp_path / "src/oat").mkdir(parents=True)
    (tmp_path / "src/oat/__init__.py").write_text("")
    (tmp_path / "src/oat/base.py").write_text(FAKE_OAT)
    (tmp_path / "glue").mkdir()
    (tmp_path / "glue/g.py").write_text(glue)
    report = check(tmp_path / "src", tmp_path / "glue", own_fields={"mine"})
    return [str(p) for p in report.problems if "g.py" in p.where]


GOOD_GLUE = """
from oat.base import Base, build
from typing_extensions import override


class Ours(Base):
    @override
    def hook(self, a, b=1, c=None):
        return self.known + self.mine + super().hook(a, b=b) + self.helper(1, flag=True)

    def extra(self):
        self.mine = 2
        return build(self.args, "x", verbose=self.args.mine)
"""


@pytest.mark.parametrize(
    "change, expected",
    [
        (None, None),
        (("    @override\n    def hook", "    def hook"), "overrides oat.base.Base.hook without @override"),
        (
            ("def hook(self, a, b=1, c=None)", "def hook(self, x, b=1)"),
            "takes (self, x, b) but OAT's takes (self, a, b)",
        ),
        (("def extra(self)", "def helper(self)"), "overrides oat.base.Base.helper without @override"),
        (("self.known", "self.unknown"), "uses self.unknown"),
        (("flag=True", "flags=True"), "Base.helper has no parameter 'flags'"),
        (('build(self.args, "x"', "build(self.args"), "oat.base.build needs name"),
        (("super().hook(a, b=b)", "super().hooks(a)"), "calls super().hooks"),
        (("verbose=self.args.mine", "verbose=self.args.other"), "uses args.other"),
        (("import Base, build", "import Base, build, missing"), "imports missing from oat.base"),
        (("from oat.base import", "import oat.extra\nfrom oat.base import"), "imports module oat.extra"),
    ],
)
def test_each_rule_on_a_fake_oat(tmp_path, change, expected):
    glue = GOOD_GLUE if change is None else GOOD_GLUE.replace(*change)
    assert change is None or glue != GOOD_GLUE
    problems = fake_check(tmp_path, glue)
    if expected is None:
        assert problems == []
    else:
        assert any(expected in p for p in problems), problems


# ---------------------------------------------------------------- fetching the sources


def test_cached_sources_are_reused_without_pip(tmp_path, monkeypatch):
    (tmp_path / "oat").mkdir()
    (tmp_path / "oat/__init__.py").write_text("")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("pip ran although the cache is filled"))
    assert fetch_oat_sources(tmp_path) == tmp_path


def failing_pip(*args, **kwargs):
    return subprocess.CompletedProcess(args, 1, "", "ERROR: could not fetch")


def test_no_pypi_and_no_cache_means_sources_unavailable(tmp_path, monkeypatch):
    monkeypatch.setattr(subprocess, "run", failing_pip)

    def offline(*args, **kwargs):
        raise urllib.error.URLError("no route to host")

    monkeypatch.setattr(oat_contract.urllib.request, "urlopen", offline)
    with pytest.raises(SourcesUnavailable, match="PyPI is unreachable"):
        fetch_oat_sources(tmp_path / "cache")


def test_a_pip_failure_with_pypi_reachable_is_an_error_not_a_skip(tmp_path, monkeypatch):
    class Reply:
        def close(self):
            pass

    monkeypatch.setattr(subprocess, "run", failing_pip)
    monkeypatch.setattr(oat_contract.urllib.request, "urlopen", lambda *a, **k: Reply())
    with pytest.raises(RuntimeError, match="could not fetch") as raised:
        fetch_oat_sources(tmp_path / "cache")
    assert not isinstance(raised.value, SourcesUnavailable)


def test_command_flags_are_normalized_like_tyro():
    assert command_flags('--env_id "a|b" --rnd-seed --no-norm_return --gamma=0.9 -x 1') == [
        "env_id",
        "rnd_seed",
        "norm_return",
        "gamma",
    ]
