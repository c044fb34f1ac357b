"""Check that the OAT glue in ``gymverse/oat/`` matches the real oat-llm 0.2.4 sources, without importing OAT.

OAT needs GPUs and Python 3.10, so CI cannot run the glue. Instead this reads both sides with
:mod:`ast`: the oat-llm wheel (downloaded once into a cache) and our glue files. What we assume is
derived from the glue itself:

- every ``from oat... import name`` resolves to a module of the wheel that defines ``name``;
- every method of a class built on an OAT class is either marked ``@override`` and exists in
  that class's OAT bases with the same parameters (ours may only add parameters with defaults),
  or is unmarked and does not exist there (no silent overrides); OAT still calls each override;
- every ``self.x`` a glue class reads is defined by the class itself or by its OAT bases;
- calls to OAT callables (functions, classes, dataclasses, ``super()`` and inherited methods) pass
  positional and keyword arguments their OAT signatures accept;
- every ``args.x`` the glue reads is a field of OAT's ``PPOArgs`` or of our own args classes;

plus :data:`EXPLICIT_SIGNATURES` for what ``ast`` cannot type (the learner's strategy, the constructors
OAT's launcher calls with our classes, methods called positionally), the ``TransitionData`` fields the
actor fills, the flags of GymVerse's documented command, and the pins of the GPU install files
against oat-llm's own metadata, and that every flag both trainers take is declared once, in ``RunConfig`` or
``OatSettings``.

Run ``python tools/oat_contract.py`` (``--installed`` checks the OAT installed in the environment);
``tests/test_oat_contract.py`` runs it in CI and shows that it fails when OAT changes under us.
"""

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

OAT_VERSION = "0.2.4"
PACKAGE = "oat"
REPO_ROOT = Path(__file__).resolve().parent.parent
GLUE_DIR = REPO_ROOT / "gymverse" / "oat"
DEFAULT_CACHE = REPO_ROOT / ".cache" / f"oat-llm-{OAT_VERSION}"
OVERRIDE_MARKERS = {"override"}  # typing_extensions.override / typing.override

# Methods of objects whose class ast cannot infer: (module, "Class.method", parameter names).
EXPLICIT_SIGNATURES = [
    ("oat.utils.deepspeed", "DeepspeedStrategy.all_reduce", ["self", "data", "op"]),
    ("oat.utils.deepspeed", "DeepspeedStrategy.broadcast", ["self", "data"]),
    ("oat.utils.deepspeed", "DeepspeedStrategy.is_rank_0", ["self"]),
    ("oat.utils.deepspeed", "DeepspeedStrategy.is_group_rank_0", ["self"]),
    ("oat.utils.deepspeed", "DeepspeedStrategy.get_rank", ["self"]),
    ("oat.utils.deepspeed", "DeepspeedStrategy.print", ["self", "*msg"]),
    (
        "oat.utils.deepspeed",
        "DeepspeedStrategy.setup_dataloader",
        ["self", "replay_buffer", "batch_size", "pin_memory", "shuffle", "collate_fn", "drop_last", "sampler"],
    ),
    # get_program builds actors as actor_cls(ipc_server, vllm_args, args) and learners with these:
    ("oat.actors.base", "ActorBase.__init__", ["self", "ipc_server", "vllm_args", "args"]),
    (
        "oat.learners.base",
        "LearnerBase.__init__",
        [
            "self",
            "world_size",
            "rank",
            "local_rank",
            "master_addr",
            "master_port",
            "is_master",
            "args",
            "actors",
            "ipc_server",
        ],
    ),
    ("oat.interface", "get_program", ["args", "learner_cls", "actor_cls"]),
    # Called positionally by the glue, so the order of the parameters matters, not only their number:
    ("oat.actors.base", "ActorBase.generate", ["self", "prompts", "sampling_params"]),
    ("oat.utils.ipc", "PlasmaShmClient.serialize_ipc", ["self", "data"]),
    ("oat.utils.data", "TransitionDataset.collate_fn", ["self", "item_list"]),
]

# GymVerse's documented PERPO command (REFERENCE.md): every flag must be an argument of our OAT args.
GYMVERSE_COMMAND = (
    '--env_id "example:RunicPotionGame" --evolve --prompt_template qwen3_game --wrappers concat --gamma 0.9 '
    "--norm_return --gpus 4 --gradient-checkpointing --num_samples 1 --num_env 4 --rollout_batch_size 128 "
    "--rollout_batch_size_per_device 16 --pi_buffer_maxlen_per_device 16 --pretrain Qwen/Qwen3-4B-Base "
    "--enable_prefix_caching --collocate --vllm_sleep --vllm_gpu_ratio 0.45 --rnd-seed --learning_rate 0.000001 "
    "--lr_scheduler constant --lr_warmup_ratio 0 --num_ppo_epochs 2 --train_batch_size 128 "
    "--train_batch_size_per_device 1 --beta 0 --max_model_len 30000 --generate_max_length 8192 --temperature 1.0 "
    "--top_p 1 --eval_steps -1 --save_steps -1 --eval_temperature 0.6 --eval_top_p 0.95 "
    "--eval_generate_max_length 4096 --max_train 9000 --max_save_num 30 --use-wb --wb-run-name NAME "
    "--wb_project PROJECT"
)
# The GPU install files: each must pin these exactly where it names them, as oat-llm's metadata does.
GPU_FILES = (REPO_ROOT / "environment.yml", REPO_ROOT / "requirements.txt")
GPU_STACK = ("torch", "vllm", "transformers", "deepspeed", "flash-attn", "oat-llm", "gem-llm")
_PIN = re.compile(r"^\s*(?:-\s+)?([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==\s*([^\s;#,]+)")
_CONDA_PYTHON = re.compile(r"^\s*-\s*python\s*=+\s*([0-9.]+)\s*$", re.MULTILINE)
OAT_ARGS_CLASS = ("oat.algorithms.ppo", "PPOArgs")
TRANSITION_DATA = ("oat.types", "TransitionData")


class SourcesUnavailable(RuntimeError):
    """The oat-llm sources are not cached and PyPI cannot be reached."""


FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class Problem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


# ---------------------------------------------------------------- getting the sources


def fetch_oat_sources(cache_dir: Path = DEFAULT_CACHE) -> Path:
    """The folder holding the ``oat`` package of oat-llm 0.2.4, downloaded into ``cache_dir`` once."""
    cache_dir = Path(cache_dir)
    if (cache_dir / PACKAGE / "__init__.py").is_file():
        return cache_dir
    with tempfile.TemporaryDirectory() as download:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            f"oat-llm=={OAT_VERSION}",
            "--no-deps",
            "--ignore-requires-python",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "-d",
            download,
        ]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            _raise_if_offline()
            raise RuntimeError(f"pip could not download oat-llm=={OAT_VERSION}:\n{result.stderr.strip()}")
        wheel = next(Path(download).glob("oat_llm-*.whl"))
        cache_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=cache_dir.name + ".", dir=cache_dir.parent))
        with zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.namelist() if m.startswith((f"{PACKAGE}/", "oat_llm-"))]
            archive.extractall(staging, members)
    _check_version(staging)
    try:
        os.replace(staging, cache_dir)  # atomic: a killed download never leaves half a cache
    except OSError:  # another process filled the cache first
        shutil.rmtree(staging, ignore_errors=True)
    return cache_dir


def installed_oat_root() -> Path:
    """The folder (site-packages) holding the installed ``oat`` package, found without importing it."""
    import importlib.util

    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None:
        raise FileNotFoundError("oat-llm is not installed in this environment")
    return Path(spec.origin).parent.parent


def _raise_if_offline() -> None:
    try:
        urllib.request.urlopen("https://pypi.org/simple/oat-llm/", timeout=15).close()
    except (urllib.error.URLError, OSError) as error:
        raise SourcesUnavailable(f"PyPI is unreachable ({error}); cannot download oat-llm=={OAT_VERSION}") from None


def _check_version(root: Path) -> None:
    metadata = next(root.glob("oat_llm-*.dist-info/METADATA"), None)
    if metadata is None or f"Version: {OAT_VERSION}\n" not in metadata.read_text():
        raise RuntimeError(f"{root} does not hold oat-llm {OAT_VERSION}")


# ---------------------------------------------------------------- reading modules


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # local -> (module, name)
    defs: dict[str, ast.AST] = field(default_factory=dict)  # top-level def/class/assignment
    imported_modules: list[str] = field(default_factory=list)  # every module named by an import

    @classmethod
    def parse(cls, name: str, path: Path) -> "Module":
        module = cls(name, path, ast.parse(path.read_text(), filename=str(path)))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _top_level(module.tree.body):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                module.imported_modules.append(base)
                for alias in node.names:
                    module.imports[alias.asname or alias.name] = (base, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    module.imports[local] = (alias.name if alias.asname else local, None)
                    module.imported_modules.append(alias.name)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                module.defs[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name_node in ast.walk(target):
                        if isinstance(name_node, ast.Name):
                            module.defs[name_node.id] = node
        return module


def _top_level(body: list[ast.stmt]):
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
                yield from _top_level(block)
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


@dataclass
class ClassInfo:
    module: Module
    node: ast.ClassDef

    @property
    def qualname(self) -> str:
        return f"{self.module.name}.{self.node.name}"

    def methods(self) -> dict[str, FunctionNode]:
        return {n.name: n for n in self.node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def class_attributes(self) -> set[str]:
        names = set()
        for node in self.node.body:
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        return names

    def self_stores(self) -> set[str]:
        return {a.attr for a in _self_attributes(self.node) if isinstance(a.ctx, ast.Store)}

    def defines(self) -> set[str]:
        return set(self.methods()) | self.class_attributes() | self.self_stores()

    def dataclass_fields(self) -> list[str]:
        return [n.target.id for n in self.node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]

    def is_dataclass(self) -> bool:
        return any(_decorator_name(d) == "dataclass" for d in self.node.decorator_list)


def _self_attributes(node: ast.AST) -> list[ast.Attribute]:
    return [
        n
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    ]


def _decorator_name(node: ast.expr) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


class OatSources:
    """The ``oat`` package of a wheel, read with ast; names are resolved through re-exports."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if not (self.root / PACKAGE / "__init__.py").is_file():
            raise FileNotFoundError(f"no {PACKAGE} package under {self.root}")
        self._modules: dict[str, Module | None] = {}

    def module(self, name: str) -> Module | None:
        if name not in self._modules:
            relative = Path(*name.split("."))
            candidates = [self.root / relative.with_suffix(".py"), self.root / relative / "__init__.py"]
            path = next((p for p in candidates if p.is_file()), None)
            self._modules[name] = Module.parse(name, path) if path and name.split(".")[0] == PACKAGE else None
        return self._modules[name]

    def resolve(self, module_name: str, name: str, depth: int = 0) -> tuple[Module, ast.AST] | None:
        """The definition of ``name`` as seen from ``module_name`` (a def, class, assignment or module)."""
        module = self.module(module_name)
        if module is None or depth > 20:
            return None
        if name in module.defs:
            return module, module.defs[name]
        if name in module.imports:
            source, attr = module.imports[name]
            if source.split(".")[0] != PACKAGE:
                return module, ast.Pass()  # imported from outside OAT: it exists, we cannot look inside
            if attr is None:
                target = self.module(source)
                return (target, target.tree) if target else None
            return self.resolve(source, attr, depth + 1) or self._submodule(source, attr)
        return self._submodule(module_name, name)

    def _submodule(self, package: str, name: str) -> tuple[Module, ast.AST] | None:
        target = self.module(f"{package}.{name}")
        return (target, target.tree) if target else None

    def resolve_class(self, module_name: str, name: str) -> ClassInfo | None:
        found = self.resolve(module_name, name)
        if found and isinstance(found[1], ast.ClassDef):
            return ClassInfo(found[0], found[1])
        return None

    def mro(self, cls: ClassInfo) -> list[ClassInfo]:
        """``cls`` and its OAT bases, depth first left to right without repeats (enough for OAT's trees)."""
        order: list[ClassInfo] = []
        seen: set[str] = set()

        def visit(info: ClassInfo) -> None:
            if info.qualname in seen:
                return
            seen.add(info.qualname)
            order.append(info)
            for base in info.node.bases:
                base_name = _dotted(base)
                if base_name:
                    found = self._resolve_dotted(info.module.name, base_name)
                    if found:
                        visit(found)

        visit(cls)
        return order

    def _resolve_dotted(self, module_name: str, dotted: str) -> ClassInfo | None:
        head, _, rest = dotted.partition(".")
        if not rest:
            return self.resolve_class(module_name, head)
        found = self.resolve(module_name, head)
        if found and isinstance(found[1], ast.Module):
            return self._resolve_dotted(found[0].name, rest)
        return None

    def find_method(self, chain: list[ClassInfo], name: str) -> tuple[ClassInfo, FunctionNode] | None:
        for info in chain:
            if name in info.methods():
                return info, info.methods()[name]
        return None

    def all_modules(self) -> list[Module]:
        names = sorted(
            ".".join(p.relative_to(self.root).with_suffix("").parts).removesuffix(".__init__")
            for p in (self.root / PACKAGE).rglob("*.py")
        )
        return [m for m in map(self.module, names) if m is not None]


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


# ---------------------------------------------------------------- signatures


@dataclass
class Signature:
    positional: list[str]  # positional-only and positional-or-keyword names, in order
    defaults: int  # how many of the trailing positional ones have defaults
    keyword_only: dict[str, bool]  # name -> has a default
    var_positional: str | None = None
    var_keyword: str | None = None

    @classmethod
    def of_function(cls, node: FunctionNode) -> "Signature":
        args = node.args
        kw_defaults = {a.arg: d is not None for a, d in zip(args.kwonlyargs, args.kw_defaults)}
        return cls(
            [a.arg for a in args.posonlyargs + args.args],
            len(args.defaults),
            kw_defaults,
            args.vararg.arg if args.vararg else None,
            args.kwarg.arg if args.kwarg else None,
        )

    @classmethod
    def of_dataclass(cls, chain: list[ClassInfo]) -> "Signature":
        fields: dict[str, bool] = {}  # name -> has a default, base classes first
        for info in reversed(chain):
            for node in info.node.body:
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    fields[node.target.id] = node.value is not None
        return cls(["self", *fields], sum(fields.values()), {})

    def rendered(self) -> list[str]:
        return (
            self.positional
            + ([f"*{self.var_positional}"] if self.var_positional else [])
            + list(self.keyword_only)
            + ([f"**{self.var_keyword}"] if self.var_keyword else [])
        )

    def call_problem(self, n_positional: int, keywords: list[str | None], bound: bool) -> str | None:
        """Why a call with ``n_positional`` positional arguments and ``keywords`` would fail, or None.

        A ``None`` keyword stands for ``**mapping`` at the call site: then missing names are not reported.
        """
        params = self.positional[1:] if bound else self.positional
        if n_positional > len(params) and not self.var_positional:
            return f"takes at most {len(params)} positional arguments, the glue passes {n_positional}"
        filled = set(params[:n_positional])
        for keyword in filter(None, keywords):
            if keyword in filled:
                return f"gets {keyword!r} twice"
            if keyword not in params and keyword not in self.keyword_only and not self.var_keyword:
                return f"has no parameter {keyword!r}"
            filled.add(keyword)
        required = params[: len(params) - self.defaults] + [k for k, has in self.keyword_only.items() if not has]
        missing = [name for name in required if name not in filled]
        if missing and None not in keywords:
            return f"needs {', '.join(missing)}, which the glue does not pass"
        return None


def override_problem(ours: Signature, theirs: Signature) -> str | None:
    """Ours must take the same parameters in the same order; it may only add ones with defaults."""
    common = min(len(ours.positional), len(theirs.positional))
    if ours.positional[:common] != theirs.positional[:common] or len(ours.positional) < len(theirs.positional):
        if not ours.var_positional:
            return f"takes ({', '.join(ours.rendered())}) but OAT's takes ({', '.join(theirs.rendered())})"
    extra = ours.positional[len(theirs.positional) :]
    extra_required = extra[: max(0, len(extra) - ours.defaults)]
    missing_kw = [k for k in theirs.keyword_only if k not in ours.keyword_only and not ours.var_keyword]
    new_required_kw = [k for k, has in ours.keyword_only.items() if not has and k not in theirs.keyword_only]
    if extra_required or missing_kw or new_required_kw:
        return f"takes ({', '.join(ours.rendered())}) but OAT's takes ({', '.join(theirs.rendered())})"
    return None


# ---------------------------------------------------------------- checking the glue


class GlueChecker:
    """Collects every assumption the glue makes about OAT and whether the sources satisfy it."""

    def __init__(self, sources: OatSources, glue_files: list[Path], own_args_fields: set[str]) -> None:
        self.sources = sources
        self.glue_files = glue_files
        self.problems: list[Problem] = []
        self.checked = 0
        self.args_fields = self._class_fields(OAT_ARGS_CLASS) | own_args_fields
        self.called_in_oat = {
            n.attr for m in sources.all_modules() for n in ast.walk(m.tree) if isinstance(n, ast.Attribute)
        }

    def verify(self, holds: bool, where: str, message: str) -> bool:
        self.checked += 1
        if not holds:
            self.problems.append(Problem(where, message))
        return holds

    def _class_fields(self, where: tuple[str, str]) -> set[str]:
        info = self.sources.resolve_class(*where)
        if not self.verify(info is not None, f"oat-llm {OAT_VERSION}", f"has no class {'.'.join(where)}") or not info:
            return set()
        return {f for c in self.sources.mro(info) for f in c.dataclass_fields()}

    def check(self) -> list[Problem]:
        for path in self.glue_files:
            self.check_module(Module.parse(f"gymverse.oat.{path.stem}", path))
        self.check_explicit()
        self.check_record_fields()
        self.check_documented_command()
        return self.problems

    # imports and classes -------------------------------------------------------------------
    def check_module(self, module: Module) -> None:
        where = _where(module)
        imported = {local: target for local, target in module.imports.items() if target[0].split(".")[0] == PACKAGE}
        missing_modules = set()
        for source in dict.fromkeys(m for m in module.imported_modules if m.split(".")[0] == PACKAGE):
            if not self.verify(
                self.sources.module(source) is not None,
                where,
                f"imports module {source}, which oat-llm {OAT_VERSION} does not have",
            ):
                missing_modules.add(source)
        for source, name in imported.values():
            if name and source not in missing_modules:
                self.verify(
                    self.sources.resolve(source, name) is not None,
                    where,
                    f"imports {name} from {source}, which oat-llm {OAT_VERSION} does not define",
                )
        local_dataclasses: dict[str, Signature] = {}
        for node in module.tree.body:
            if isinstance(node, ast.ClassDef):
                self.check_class(module, node, imported, local_dataclasses)
        self.check_calls(module, module.tree, imported, local_dataclasses, None)
        self.check_args_reads(module)

    def oat_base_chain(self, node: ast.ClassDef, imported: dict) -> list[ClassInfo]:
        chain: list[ClassInfo] = []
        for base in node.bases:
            name = _dotted(base)
            info = self.sources.resolve_class(*imported[name]) if imported.get(name, (None, None))[1] else None
            if info:
                chain += [c for c in self.sources.mro(info) if c.qualname not in {i.qualname for i in chain}]
        return chain

    def check_class(self, module: Module, node: ast.ClassDef, imported: dict, local_dataclasses: dict) -> None:
        chain = self.oat_base_chain(node, imported)
        if not chain:
            return
        ours = ClassInfo(module, node)
        where = f"{_where(module)} {node.name}"
        if ours.is_dataclass():
            local_dataclasses[node.name] = Signature.of_dataclass([ours, *chain])
        for name, method in ours.methods().items():
            marked = any(_decorator_name(d) in OVERRIDE_MARKERS for d in method.decorator_list)
            found = self.sources.find_method(chain, name)
            if not marked:
                self.verify(
                    found is None,
                    f"{where}.{name}",
                    f"overrides {found[0].qualname}.{name} without @override" if found else "",
                )
            elif (
                self.verify(
                    found is not None,
                    f"{where}.{name}",
                    f"is marked @override but no OAT base class ({', '.join(c.node.name for c in chain)}) "
                    f"in oat-llm {OAT_VERSION} defines {name}",
                )
                and found
            ):
                base, theirs = found
                problem = override_problem(Signature.of_function(method), Signature.of_function(theirs))
                self.verify(problem is None, f"{where}.{name}", f"{problem} ({base.qualname}.{name})")
                self.verify(
                    name in self.called_in_oat or name == "__init__",
                    f"{where}.{name}",
                    f"overrides {base.qualname}.{name}, which OAT never calls",
                )
        inherited = set().union(*(c.defines() for c in chain))
        for attribute in sorted({a.attr for a in _self_attributes(node) if isinstance(a.ctx, ast.Load)}):
            if attribute not in ours.defines():
                self.verify(
                    attribute in inherited,
                    where,
                    f"uses self.{attribute}, which no OAT base class in oat-llm {OAT_VERSION} defines",
                )
        self.check_calls(module, node, imported, local_dataclasses, (ours, chain))

    # calls ------------------------------------------------------------------------------------
    def check_calls(
        self,
        module: Module,
        scope: ast.AST,
        imported: dict,
        local_dataclasses: dict,
        cls: tuple[ClassInfo, list[ClassInfo]] | None,
    ) -> None:
        in_classes = (
            set() if cls else {id(n) for c in module.tree.body if isinstance(c, ast.ClassDef) for n in ast.walk(c)}
        )
        for call in (n for n in ast.walk(scope) if isinstance(n, ast.Call)):
            if id(call) in in_classes:
                continue  # checked with its class
            if any(isinstance(a, ast.Starred) for a in call.args):
                continue  # cannot count the positional arguments
            target = self.call_target(module, call, imported, local_dataclasses, cls)
            if target is not None:
                label, signature, bound = target
                problem = signature.call_problem(len(call.args), [k.arg for k in call.keywords], bound)
                self.verify(problem is None, f"{_where(module)}:{call.lineno}", f"{label} {problem}")

    def call_target(
        self,
        module: Module,
        call: ast.Call,
        imported: dict,
        local_dataclasses: dict,
        cls: tuple[ClassInfo, list[ClassInfo]] | None,
    ) -> tuple[str, Signature, bool] | None:
        func = call.func
        if isinstance(func, ast.Name) and func.id in local_dataclasses:
            return func.id, local_dataclasses[func.id], True
        if isinstance(func, ast.Name) and imported.get(func.id, (None, None))[1]:
            found = self.sources.resolve(*imported[func.id])
            if found and isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
                return f"{found[0].name}.{found[1].name}", Signature.of_function(found[1]), False
            if found and isinstance(found[1], ast.ClassDef):
                return self.constructor(ClassInfo(found[0], found[1]))
            return None
        if cls is None or not isinstance(func, ast.Attribute):
            return None
        ours, chain = cls
        is_super = isinstance(func.value, ast.Call) and getattr(func.value.func, "id", "") == "super"
        is_self = isinstance(func.value, ast.Name) and func.value.id == "self"
        if not (is_super or (is_self and func.attr not in ours.methods())):
            return None
        method = self.sources.find_method(chain, func.attr)
        if is_super:
            self.verify(
                method is not None,
                f"{_where(module)}:{call.lineno}",
                f"calls super().{func.attr}, which no OAT base class defines",
            )
        return (f"{method[0].qualname}.{func.attr}", Signature.of_function(method[1]), True) if method else None

    def constructor(self, info: ClassInfo) -> tuple[str, Signature, bool] | None:
        chain = self.sources.mro(info)
        if info.is_dataclass():
            return info.qualname, Signature.of_dataclass(chain), True
        found = self.sources.find_method(chain, "__init__")
        return (info.qualname, Signature.of_function(found[1]), True) if found else None

    # args, explicit signatures, records, the documented command ---------------------------------
    def check_args_reads(self, module: Module) -> None:
        known = set(self.args_fields)
        for node in ast.walk(module.tree):
            if isinstance(node, ast.ClassDef):
                known |= set(ClassInfo(module, node).dataclass_fields())
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Attribute) and _is_args(node.value):
                self.verify(
                    node.attr in known,
                    f"{_where(module)}:{node.lineno}",
                    f"uses args.{node.attr}, which is neither a field of OAT's {OAT_ARGS_CLASS[1]} nor one of ours",
                )

    def check_explicit(self) -> None:
        for module_name, qualname, expected in EXPLICIT_SIGNATURES:
            owner, _, name = qualname.rpartition(".")
            where = f"oat-llm {OAT_VERSION} {module_name}.{qualname}"
            if owner:
                info = self.sources.resolve_class(module_name, owner)
                found = self.sources.find_method(self.sources.mro(info), name) if info else None
                node: ast.AST | None = found[1] if found else None
            else:
                resolved = self.sources.resolve(module_name, name)
                node = resolved[1] if resolved else None
            function = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if self.verify(function is not None, where, "does not exist") and function:
                actual = Signature.of_function(function).rendered()
                self.verify(
                    actual[: len(expected)] == expected,
                    where,
                    f"takes ({', '.join(actual)}), the glue assumes ({', '.join(expected)})",
                )

    def check_record_fields(self) -> None:
        """The records the actor builds (``transitions.transition_fields``) must fit OAT's TransitionData, and
        the fields GameTransition adds must be new to it."""
        from gymverse.oat.transitions import GAME_FIELDS, TRANSITION_FIELDS

        fields = self._class_fields(TRANSITION_DATA)
        where = f"oat-llm {OAT_VERSION} {'.'.join(TRANSITION_DATA)}"
        for name in (*TRANSITION_FIELDS, "info"):
            self.verify(
                name in fields, where, f"has no field {name!r}, which gymverse.oat.transitions.transition_fields fills"
            )
        for name in GAME_FIELDS:
            self.verify(
                name not in fields,
                where,
                f"has a field {name!r} of its own, which gymverse.oat.records.GameTransition adds",
            )

    def check_documented_command(self) -> None:
        for flag in command_flags(GYMVERSE_COMMAND):
            self.verify(
                flag in self.args_fields,
                "GymVerse's documented command",
                f"--{flag} is neither an OAT argument nor ours",
            )


def _is_args(node: ast.expr) -> bool:
    """``args``, ``self.args``, ``strategy.args``...: the parsed flags, whoever holds them."""
    return (isinstance(node, ast.Name) and node.id == "args") or (
        isinstance(node, ast.Attribute) and node.attr == "args"
    )


def _where(module: Module) -> str:
    try:
        return str(module.path.relative_to(REPO_ROOT))
    except ValueError:
        return str(module.path)


def command_flags(command: str) -> list[str]:
    """Flag names of a command line, normalized the way tyro accepts them (``-`` and ``_`` alike)."""
    import shlex

    flags = []
    for token in shlex.split(command):
        if token.startswith("--"):
            name = token[2:].split("=")[0].replace("-", "_")
            flags.append(name.removeprefix("no_") if name.startswith("no_") else name)
    return flags


def own_args_fields() -> set[str]:
    """Fields of the args classes gymverse defines itself (the flags that are not OAT's)."""
    import dataclasses

    from gymverse.oat.flags import OatSettings
    from gymverse.run.config import RunConfig

    return {f.name for cls in (RunConfig, OatSettings) for f in dataclasses.fields(cls)}


def pinned_versions(text: str) -> dict[str, str]:
    """``name==version`` lines of a requirements file or a conda file's pip section, names normalized."""
    pins = {}
    for line in text.splitlines():
        match = _PIN.match(line)
        if match:
            pins[_normalized(match.group(1))] = match.group(2)
    return pins


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def oat_metadata(sources_root: Path) -> tuple[dict[str, str], str]:
    """oat-llm's exact ``Requires-Dist`` pins and its ``Requires-Python``, from the wheel's METADATA."""
    metadata = next(Path(sources_root).glob("oat_llm-*.dist-info/METADATA"), None)
    if metadata is None:
        raise FileNotFoundError(f"no oat_llm-*.dist-info/METADATA under {sources_root}")
    text = metadata.read_text()
    pins = {}
    for line in text.splitlines():
        if line.startswith("Requires-Dist:") and ";" not in line:
            pins.update(pinned_versions(line.removeprefix("Requires-Dist:")))
    python = re.search(r"^Requires-Python:\s*(.+)$", text, re.MULTILINE)
    return pins, python.group(1).strip() if python else ""


def check_gpu_pins(sources_root: Path, files: tuple[Path, ...] = GPU_FILES) -> list[Problem]:
    """The GPU install files pin the stack exactly, agree with each other and with oat-llm's metadata."""
    from packaging.specifiers import SpecifierSet

    oat_pins, oat_python = oat_metadata(sources_root)
    oat_pins["oat-llm"] = OAT_VERSION
    problems = []
    seen: dict[str, tuple[str, Path]] = {}
    for path in files:
        text = Path(path).read_text()
        pins = pinned_versions(text)
        if path.suffix == ".txt":
            problems += [Problem(path.name, f"does not pin {name} exactly") for name in GPU_STACK if name not in pins]
        for name, version in pins.items():
            if name in oat_pins and version != oat_pins[name]:
                required = f"oat-llm {OAT_VERSION} requires {name}=={oat_pins[name]}"
                problems.append(Problem(path.name, f"pins {name}=={version}, {required}"))
            if name in seen and seen[name][0] != version:
                other = f"{seen[name][1].name} pins {seen[name][0]}"
                problems.append(Problem(path.name, f"pins {name}=={version}, {other}"))
            seen.setdefault(name, (version, path))
        for python in _CONDA_PYTHON.findall(text):
            if oat_python and python not in SpecifierSet(oat_python):
                allowed = f"oat-llm's Requires-Python {oat_python}"
                problems.append(Problem(path.name, f"python={python} is outside {allowed}"))
    return problems


@dataclass
class ContractReport:
    problems: list[Problem]
    checked: int  # assumptions checked, the failed ones included

    @property
    def ok(self) -> bool:
        return not self.problems


def check_shared_flags(sources_root: Path, native: type | None = None) -> list[Problem]:
    """A flag that both the native trainer (``native``: its args class) and OAT's PPO take must be declared
    in ``RunConfig`` or ``OatSettings``, which both backends' args classes inherit: one default, one help line,
    on both."""
    import dataclasses

    from gymverse.train.args import TrainArgs

    native = native or TrainArgs
    sources = OatSources(sources_root)
    info = sources.resolve_class(*OAT_ARGS_CLASS)
    oat_fields = {f for c in sources.mro(info) for f in c.dataclass_fields()} if info else set()
    shared = own_args_fields()
    return [
        Problem(
            f"{native.__module__}.{native.__name__}",
            f"--{name} is a flag of OAT's {OAT_ARGS_CLASS[1]} too: declare it in RunConfig, so that both "
            "backends take it with one default",
        )
        for name in sorted({f.name for f in dataclasses.fields(native)} - shared)
        if name in oat_fields
    ]


def check(sources_root: Path, glue_dir: Path = GLUE_DIR, own_fields: set[str] | None = None) -> ContractReport:
    """Every assumption of the glue in ``glue_dir`` that the OAT sources under ``sources_root`` break."""
    glue_files = sorted(Path(glue_dir).glob("*.py"))
    if not glue_files:
        raise FileNotFoundError(f"no glue files in {glue_dir}")
    checker = GlueChecker(OatSources(sources_root), glue_files, own_args_fields() if own_fields is None else own_fields)
    problems = checker.check()
    if glue_dir == GLUE_DIR:  # our own glue: the install files and the shared flags belong to it
        problems += check_gpu_pins(sources_root) + check_shared_flags(sources_root)
    return ContractReport(problems, checker.checked)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=f"Check gymverse's OAT glue against oat-llm {OAT_VERSION}'s sources.")
    parser.add_argument("--sources", type=Path, help="a folder holding the oat package (default: download and cache)")
    parser.add_argument("--installed", action="store_true", help="check against the oat package installed here")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="where the wheel's sources are cached")
    options = parser.parse_args(argv)
    try:
        root = options.sources or (installed_oat_root() if options.installed else fetch_oat_sources(options.cache_dir))
        report = check(root)
    except (SourcesUnavailable, FileNotFoundError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for problem in report.problems:
        print(problem)
    print(
        f"{report.checked} assumptions of gymverse/oat checked against oat-llm {OAT_VERSION} ({root}): "
        f"{len(report.problems)} broken"
    )
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
