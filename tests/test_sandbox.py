"""The jail: whatever a file of games does becomes a verdict on that file alone, reached outside the jail.

The escape suite (``tests/escape.py``) runs payload files that try, at import and at a step, to read a
secret (and to raise every process's environment and command line, at construction too), write outside, reach the host's loopback, outlive the run, fork, patch the checker, forge frames,
kill their parents, flood their output and their channel, hang and exit; each command that takes an
untrusted folder must contain them all, give each a row, and pass the control game beside them.
"""

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import gem
import pytest
from escape import HOG_MB, LIMIT_ACTS, MARKER, ON_A_WIN, POISONS, SECRET_NAME, TERMINAL_BYTES, Traps
from runs import flags

import gymverse
from gymverse.env.checker import check_env
from gymverse.env.registry import registered_ids
from gymverse.env.visible import visible
from gymverse.errors import BadInput
from gymverse.sandbox import JailBroken, JailedFile, Limits, ProxyEnv, jail_problem, judge_file, judge_folder
from gymverse.sandbox.budget import WALL_FACTOR
from gymverse.sandbox.folders import folder_entries

pytestmark = pytest.mark.skipif(jail_problem() is not None, reason=f"no jail here: {jail_problem()}")

HOSTILE = Path(__file__).parent / "fixtures" / "hostile_envs"
QUICK = dict(levels=[1, 2, 3], seeds=2)
SHORT = Limits(seconds=60, answer_seconds=3, memory_mb=512)
MEMORY_MB = 512  # the jail of the memory payloads, which take a few hundred MB past it
VALUE_PAYLOADS = sorted(POISONS)


@pytest.fixture(scope="module")
def traps(tmp_path_factory):
    root = tmp_path_factory.mktemp("escape")
    home, cwd = root / "home", root / "cwd"
    home.mkdir()
    cwd.mkdir()
    traps = Traps(root, home, cwd)
    yield traps
    traps.close()


def gymverse_cli(traps: Traps, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``gymverse ARGS`` in a child with the secret in its environment, run from the traps' working directory."""
    env = dict(
        os.environ, HOME=str(traps.home), XDG_CACHE_HOME=str(traps.root / "cache"), **{SECRET_NAME: traps.secret}
    )
    return subprocess.run(
        [sys.executable, "-m", "gymverse.cli", *args],
        cwd=traps.cwd,
        env=env,
        text=True,
        capture_output=True,
        timeout=timeout,
    )


def written(folder: Path) -> list[str]:
    return [p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def reports(folder: Path) -> list[str]:
    """The text files a command wrote in ``folder`` (reports, tables, records, manifests: not its figures)."""
    kinds = (".md", ".json", ".jsonl", ".csv", ".txt")
    return [p.read_text(errors="replace") for p in folder.rglob("*") if p.suffix in kinds] if folder.exists() else []


def reached_the_terminal(*outputs: str) -> list[str]:
    """The escape and control characters of the payloads' messages and names found in ``outputs`` (none may be)."""
    return sorted({ascii(char) for text in outputs for char in TERMINAL_BYTES if char in text})


def rows_by_file(stdout: str, folder: Path) -> dict[str, str]:
    """``file stem -> verdict`` from `gymverse check --dir`'s rows, each row ending in ``(FILE)`` with the name of
    one of ``folder``'s files as :func:`visible` shows it; a row that names no file is ``"forged"``'s."""
    names = sorted((visible(p.name) for p in folder.glob("*.py")), key=len, reverse=True)
    rows = {}
    for line in stdout.splitlines():
        if line.startswith(("pass", "FAIL")) and line.endswith(")"):
            name = next((name for name in names if line.endswith(f" ({name})")), "forged.py")
            rows[name.removesuffix(".py")] = line.split()[0]
    return rows


# -- the escape suite, under every command that takes an untrusted folder -------------------------------
def test_check_dir_contains_every_payload_and_passes_the_control(traps):
    folder = traps.folder()
    done = gymverse_cli(traps, "check", "--dir", str(folder), "--max-level", "3", "--seeds", "2")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    rows = rows_by_file(done.stdout, folder)
    assert rows.pop("control") == "pass", done.stdout[-3000:]
    payloads = sorted(visible(p.stem) for p in folder.glob(f"{MARKER}_*.py"))
    assert sorted(rows) == payloads and set(rows.values()) == {"FAIL"}, rows  # no forged row among them
    assert reached_the_terminal(done.stdout, done.stderr) == []
    assert traps.breaches([done.stdout, done.stderr, *written(traps.root / "cache")]) == []


def test_what_each_payload_did_is_named_in_its_row(traps):
    done = gymverse_cli(traps, "check", "--dir", str(traps.folder()), "--max-level", "3", "--seeds", "2")
    text = done.stdout
    assert "files were judged by an earlier run" in text  # the same command resumed from its journal
    fresh = gymverse_cli(traps, "check", "--dir", str(traps.folder()), "--max-level", "3", "--seeds", "2", "--fresh")
    for said in (
        "hung: no answer within 10 s",
        "exited with status 0",
        "broke the protocol",
        "earned reward",
        "the reward is nan, not a finite number",
        "the reward is inf, not a finite number",
        "the reward is -inf, not a finite number",
        "bits, outside float range",
        "the reward is a str, not a number",
        "terminated and truncated must be bools",
        "info['success'] is 'no', not a bool",
        "text that is not valid UTF-8 ('\\ud800'",
        "a reply nested more than 40 deep",
        "a reply of more than 200000 lists and dicts",
        "its list of games is malformed",  # a game listed under a name that is no class name
        "raised ValueError: ok\\x1b[2K\\x1b[1A\\rpass",  # the forged message, shown
    ):
        assert said in fresh.stdout, said


def test_audit_dir_contains_every_payload(traps):
    output = traps.root / "audit"
    run = flags(dir=traps.folder(), output=output, skip="diversity", levels=[1, 2], episodes=2)
    checks = flags(solver_episodes=1, checker_max_level=2, checker_seeds=1)
    done = gymverse_cli(traps, "audit", *run, *checks)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    report = json.loads((output / "audit.json").read_text())
    audited = {env["env_id"] for env in report["envs"]}
    assert "escape_envs:Control" in audited
    control = next(env for env in report["envs"] if env["env_id"] == "escape_envs:Control")
    assert not [p for p in control["correctness"]["problems"] if p["severity"] == "error"]
    hung = next(env for env in report["envs"] if "hang_at_step" in env["env_id"])
    reasons = [p["reason"] for p in hung["correctness"]["problems"]]
    assert "hang" in reasons and "protocol" not in reasons and "crash" not in reasons, reasons  # found once, as a hang
    assert reached_the_terminal(done.stdout, done.stderr, *reports(output)) == []
    assert traps.breaches([done.stdout, done.stderr, *written(output), *written(traps.root / "cache")]) == []


def test_adopt_refuses_every_payload_and_adopts_the_control(traps):
    output = traps.root / "adopted"
    done = gymverse_cli(traps, "synthesize", "--adopt", str(traps.folder()), "--output", str(output))
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    records = [json.loads(line) for line in (output / "manifest.jsonl").read_text().splitlines()]
    statuses = {(r["candidate"], r["status"]) for r in records}
    assert ("control", "accepted") in statuses
    assert {status for candidate, status in statuses if candidate.startswith(MARKER)} == {"refused"}
    assert sorted(p.name for p in output.glob("*.py")) == ["control.py"]
    assert reached_the_terminal(done.stdout, done.stderr, *reports(output)) == []
    assert traps.breaches([done.stdout, done.stderr, *written(output), *written(traps.root / "cache")]) == []


def test_eval_dir_gives_each_payload_its_rows_and_plays_the_control(traps):
    output = traps.root / "eval"
    run = flags(dir=traps.folder(), policy="random", levels=1, instances=1, attempts=1, output=output)
    done = gymverse_cli(traps, "eval", *run)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    records = [json.loads(line) for line in (output / "records.jsonl").read_text().splitlines()]
    attempts = {r["env_id"]: r for r in records if r.get("type") == "attempt"}
    assert "escape_envs:Control" in attempts and not attempts["escape_envs:Control"].get("error")
    assert any(r.get("error") for r in attempts.values())  # a payload that broke its jail mid-play is a row
    for name in set(VALUE_PAYLOADS) - set(ON_A_WIN):  # a value a trainer cannot use is the game's failure, its row's
        error = attempts[f"escape_envs:{MARKER}_value_{name}.Payload"].get("error", "")
        assert error.startswith(("MalformedReply: ", "JailBroken: broke the protocol")), (name, error)
    assert reached_the_terminal(done.stdout, done.stderr, *reports(output)) == []
    assert traps.breaches([done.stdout, done.stderr, *written(output), *written(traps.root / "cache")]) == []


def test_eval_dir_with_a_model_policy_sends_the_endpoint_nothing_of_the_callers(traps):
    """What the games say reaches the model in its prompt: the payloads that read (or raise) the caller's
    environment must have found nothing to say."""
    from gymverse.testing.scripted_server import Script, ScriptedServer

    output = traps.root / "eval_model"
    folder = traps.folder()
    run = flags(dir=folder, levels=1, instances=1, attempts=1, output=output)
    with ScriptedServer(Script.load({"rules": [{"when": [], "answers": ["\\boxed{1}"]}]})) as server:
        done = gymverse_cli(traps, "eval", *run, "--policy", f"openai:{server.url}#scripted")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert any(MARKER in asked or "Reply with anything" in asked for asked in server.asked)  # payloads were played
    outputs = [done.stdout, done.stderr, *written(output), *written(traps.root / "cache"), *server.asked]
    assert traps.breaches(outputs) == []


def test_train_env_dir_registers_the_folder_jailed_and_trains_on_the_control(traps, micro_model):
    save = traps.root / "runs"
    done = gymverse_cli(
        traps,
        "train",
        "--env_dir",
        str(traps.folder()),
        *flags(env_id="escape_envs:Control", pretrain=micro_model, save_path=save, wb_run_name="t", num_env=2),
        *flags(rollout_batch_size=4, max_train=8, train_batch_size=4, train_batch_size_per_device=2),
        *flags(generate_max_length=8, prompt_template="no", eval_steps=0, sft_episodes=0),
    )
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    assert "was not registered" in done.stdout + done.stderr  # payloads that fail at import are named
    assert reached_the_terminal(done.stdout, done.stderr) == []
    assert traps.breaches([done.stdout, done.stderr, *written(save), *written(traps.root / "cache")]) == []


@pytest.mark.parametrize("name", ["nan_on_a_wrong_reply", "lone_surrogate", "nested_600_deep"])
def test_train_on_a_game_whose_replies_a_trainer_cannot_use_stops_in_one_line_naming_it(traps, micro_model, name):
    """The payload alone in its folder (the whole folder under `train --env_dir` is the test above's)."""
    save = traps.root / f"runs_{name}"
    folder = traps.root / f"only_{name}" / "escape_envs"
    folder.mkdir(parents=True)
    shutil.copy(traps.folder() / f"{MARKER}_value_{name}.py", folder)
    done = gymverse_cli(
        traps,
        "train",
        "--env_dir",
        str(folder),
        *flags(env_id="escape_envs:Payload", pretrain=micro_model, save_path=save),
        *flags(wb_run_name="t", num_env=2, rollout_batch_size=4, max_train=8, train_batch_size=4),
        *flags(train_batch_size_per_device=2, generate_max_length=8, prompt_template="no", eval_steps=0),
        *flags(sft_episodes=0),
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    [error] = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert f"Payload.step in {MARKER}_value_{name}.py failed: " in error and "stopped at step 0" in error, error
    assert traps.breaches([done.stdout, done.stderr, *written(save)]) == []


def test_the_synthesis_pipeline_refuses_every_payload_a_writer_answers_and_accepts_the_control(traps):
    """The writer (a scripted server) answers each theme's design with a valid one and its code with a payload."""
    from gymverse.testing.scripted_server import Script, ScriptedServer

    design = json.loads((Path(__file__).parent / "fixtures/synthesis/designs/hive_census.json").read_text())
    files = sorted(traps.folder().glob("*.py"))
    themes, rules = [], []
    for i, file in enumerate(files):
        theme, name = f"trap {i}", f"Trap{chr(65 + i // 26)}{chr(97 + i % 26)}"
        themes.append(f"{theme} | games")
        rules.append({"when": ["# Stage 1", f"Theme: {theme}\n"], "answers": [json.dumps({**design, "name": name})]})
        renamed = [[f"class {'Control' if file.name == 'control.py' else 'Payload'}(", f"class {name}("]]
        rules.append({"when": ["# Stage 2", f"`{name}`"], "answers": [{"file": str(file), "replace": renamed}]})
    (traps.root / "themes.txt").write_text("\n".join(themes) + "\n")
    output = traps.root / "synthesized"
    with ScriptedServer(Script.load({"rules": rules})) as server:
        done = gymverse_cli(
            traps,
            "synthesize",
            "--themes",
            str(traps.root / "themes.txt"),
            "--model",
            f"openai:{server.url}#scripted",
            "--output",
            str(output),
            "--repairs",
            "0",
        )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    records = {r["candidate"]: r for r in map(json.loads, (output / "manifest.jsonl").open())}
    control = records.pop(f"trap-{[f.name for f in files].index('control.py')}-1")
    assert control["status"] == "accepted" and len(records) == len(files) - 1
    assert {r["status"] for r in records.values()} == {"refused"}
    assert "near_duplicate" not in {r["reason"] for r in records.values()}  # each refused for itself, none admitted
    assert reached_the_terminal(done.stdout, done.stderr, *reports(output)) == []
    assert traps.breaches([done.stdout, done.stderr, *written(output), *server.asked]) == []


def test_check_dir_stops_a_jail_at_its_memory_and_process_limits(traps):
    """Filling /dev/shm, forking children that each take memory, forking many: every process is within its own
    limits; together they pass the jail's, and the row names the limit."""
    folder = traps.folder(stages=("step",), acts=LIMIT_ACTS, name="limit_envs")
    run = flags(dir=folder, max_level=2, seeds=1, memory_mb=MEMORY_MB)
    done = gymverse_cli(traps, "check", *run, "--fresh", "--workers", "1")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    rows = rows_by_file(done.stdout, folder)
    assert rows.pop("control") == "pass" and set(rows.values()) == {"FAIL"}, done.stdout[-3000:]
    text = " ".join(done.stdout.split())
    assert text.count(f"exceeded the jail's {MEMORY_MB} MB memory limit") >= 2, done.stdout[-3000:]
    assert "exceeded the jail's 64-process limit" in text, done.stdout  # whole: which limit the forks met instead
    assert traps.breaches([done.stdout, done.stderr]) == []


def test_a_jails_memory_never_grows_past_its_limit_by_more_than_a_poll(traps):
    from gymverse.sandbox.watch import jail_usage

    folder = traps.folder(stages=("step",), acts=LIMIT_ACTS, name="limit_envs")
    for act in ("fill_shm", "fork_hogs"):
        with JailedFile(folder / f"{MARKER}_{act}_at_step.py", Limits(memory_mb=MEMORY_MB)) as jail:
            peak, stop = [0.0], threading.Event()

            def sample() -> None:
                while not stop.wait(0.01):
                    peak[0] = max(peak[0], jail_usage(jail.process.pid).memory_mb)  # noqa: B023 (joined below)

            sampler = threading.Thread(target=sample)
            sampler.start()
            env = ProxyEnv(jail, "Payload")
            env.reset()
            with pytest.raises(JailBroken, match=f"exceeded the jail's {MEMORY_MB} MB memory limit"):
                env.step("go")
            stop.set()
            sampler.join()
        # stopped near the limit, before the payload had all it asks for (4 x 233 MB, or 700 MB of /dev/shm): how far
        # past the limit one poll lets it get depends on the machine's load, which the poll's lateness follows
        asked = {"fill_shm": HOG_MB, "fork_hogs": 4 * (HOG_MB // 3)}[act]
        assert MEMORY_MB * 0.8 < peak[0] < asked, (act, peak[0])


def test_a_check_ends_with_a_look_at_the_limits_so_a_late_watch_changes_no_verdict(tmp_path):
    """On a loaded machine the watch's thread may not run between a fork and the end of a short check: the judge
    looks once more when a game's check ends, so the forks still fail the game, by name."""
    game = tmp_path / "forker.py"
    game.write_text(
        "import os, time\n"
        "from gem.core import Env\n"
        "class Forker(Env):\n"
        "    def reset(self, seed=None):\n"
        "        return 'go', {}\n"
        "    def step(self, action):\n"
        "        for _ in range(80):\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(30)\n"
        "                os._exit(0)\n"
        "        return 'done', 0.0, True, False, {}\n"
    )
    with JailedFile(game, SHORT) as jail:
        jail.watch.stop()  # a watch that never gets to run
        env = ProxyEnv(jail, "Forker")
        env.reset()
        env.step("x")
        assert jail.broken == ""
        jail.look()
        assert jail.broken.startswith("exceeded the jail's 64-process limit"), jail.broken
        assert jail.process.poll() is not None


def test_the_synthesis_gates_refuse_a_payload_that_patches_and_forges(traps, embedder):
    from gymverse.synthesis.gates import GateSettings, JailGates
    from gymverse.synthesis.novelty import Novelty

    folder = traps.folder()
    gates = JailGates(
        GateSettings(limits=SHORT, check_levels=(1, 2, 3), check_seeds=2),
        Novelty(embedder=embedder, with_library=False),
    )
    for name in ("patch_checker", "forge"):
        for stage in ("import", "step"):
            judgement = gates.judge(folder / f"{MARKER}_{name}_at_{stage}.py", need_solver=True)
            assert not judgement.passed, (name, stage, judgement.report())
    control = gates.judge(folder / "control.py", need_solver=True)
    assert control.passed and control.verified, control.report()
    assert traps.breaches() == []


# -- the jail and its proxy --------------------------------------------------------------------------
def seen_from_a_jail(folder: Path, helpers: str, expression: str):
    """What ``expression`` is in a jail: a game's ``reset`` returns its repr (``helpers`` is module code it may use)."""
    probe = folder / "probe.py"
    probe.write_text(
        f"import os\nfrom gem.core import Env\n{helpers}"
        "class Probe(Env):\n"
        "    def reset(self, seed=None):\n"
        f"        return repr({expression}), {{}}\n"
        "    def step(self, action):\n"
        "        return '', 0.0, True, False, {}\n"
    )
    with JailedFile(probe, SHORT) as jail:
        return eval(ProxyEnv(jail, "Probe").reset()[0])  # noqa: S307 (our own probe's repr)


def test_the_jail_sees_no_network_no_secrets_and_a_private_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("SOME_API_KEY", "sk-hidden")
    helpers = (
        "import socket\n"
        "def network():\n"
        "    try:\n"
        "        socket.create_connection(('1.1.1.1', 53), timeout=1); return 'net'\n"
        "    except OSError as error:\n"
        "        return type(error).__name__\n"
        "def write_tmp():\n"
        "    open('/tmp/mine', 'w').write('x')\n"
    )
    expression = "(dict(os.environ), network(), write_tmp(), sorted(os.listdir('/')), os.listdir('/tmp'))"
    environ, net, _, root, tmp = seen_from_a_jail(tmp_path, helpers, expression)
    assert "SOME_API_KEY" not in environ and set(environ) <= {"PATH", "HOME", "LANG", "PWD"}
    assert net != "net" and "mine" in tmp
    assert "home" not in root and not (Path("/tmp") / "mine").exists()


def test_no_process_in_the_jail_holds_anything_of_the_callers_environment(tmp_path, monkeypatch):
    """bubblewrap is process 1 in the jail: its environment and command line are the jail's to read."""
    monkeypatch.setenv("SOME_API_KEY", "sk-hidden-from-every-process")
    helpers = (
        "def read(path):\n"
        "    try:\n"
        "        return open(path, 'rb').read().decode(errors='replace')\n"
        "    except OSError as error:\n"
        "        return type(error).__name__\n"
    )
    expression = (
        "({p: read(f'/proc/{p}/environ') + read(f'/proc/{p}/cmdline') for p in os.listdir('/proc') if p.isdigit()}, "
        "read('/proc/keys'))"
    )
    seen, keys = seen_from_a_jail(tmp_path, helpers, expression)
    assert "1" in seen and len(seen) >= 2  # bubblewrap and the host, at least
    assert not [pid for pid, text in seen.items() if "sk-hidden" in text or "SOME_API_KEY" in text], seen
    assert keys in ("PermissionError", "")  # the kernel's keyrings are not listed


def test_a_jailed_game_of_ours_sees_gems_ids_without_reasoning_gym_until_it_imports_it(tmp_path):
    """The jail names GEM's ``rg:*`` ids from outside instead of importing reasoning-gym (most of a jail's start),
    and a game that does import it gets the real package, under which GEM makes those ids."""
    helpers = (
        "import sys\n"
        "import gem\n"
        "from gymverse.env import EvolvableEnv\n"
        "LOADED_FIRST = 'reasoning_gym' in sys.modules\n"
        "def made():\n"
        "    import reasoning_gym\n"
        "    return type(gem.make('rg:basic_arithmetic')).__name__, hasattr(reasoning_gym, 'create_dataset')\n"
    )
    expression = "(LOADED_FIRST, sorted(gem.envs.registration.ENV_REGISTRY), made())"
    loaded_first, ids, (made, real) = seen_from_a_jail(tmp_path, helpers, expression)
    assert not loaded_first
    assert {i for i in ids if i.startswith("rg:")} == {
        i for i in gem.envs.registration.ENV_REGISTRY if i.startswith("rg:")
    }
    assert made == "ReasoningGymEnv" and real


def test_values_cross_the_jail_as_plain_data_and_errors_keep_their_type_name(tmp_path):
    game = tmp_path / "odd.py"
    game.write_text(
        "from gem.core import Env\n"
        "class Odd(Env):\n"
        "    def reset(self, seed=None):\n"
        "        return 'start', {'set': {1}, 'tuple': (1, 2), 3: 'int key'}\n"
        "    def step(self, action):\n"
        "        raise KeyError(action)\n"
    )
    with JailedFile(game, SHORT) as jail:
        env = ProxyEnv(jail, "Odd")
        observation, info = env.reset()
        assert observation == "start" and info["tuple"] == [1, 2] and info["3"] == "int key"
        assert repr(info["set"]) == "<set object from a jailed game>"
        with pytest.raises(Exception) as raised:
            env.step("go")
        assert type(raised.value).__name__ == "KeyError" and "go" in str(raised.value)
        with pytest.raises(TypeError, match="text"):
            env.step(b"bytes")
        with pytest.raises(AttributeError):
            env.no_such_attribute  # noqa: B018


def test_a_reply_is_held_to_the_limits_whether_its_text_is_escaped_or_raw():
    from gymverse.sandbox.proxy import DEPTH_LIMIT, reply_problem

    for raw in (b'["ok", "a\\ud800"]', b'["ok", "a\xed\xa0\x80"]'):  # json.loads passes raw surrogates through
        assert "not valid UTF-8" in reply_problem(json.loads(raw))[1]
    assert reply_problem(["ok", "\U0001f600 \u00e9"]) == ("", "")
    deep: list = []
    for _ in range(DEPTH_LIMIT):
        deep = [deep]
    assert "nested more than" in reply_problem(["ok", deep])[0]


def test_a_hung_step_is_killed_and_says_where_it_was_stuck(tmp_path):
    game = tmp_path / "stuck.py"
    game.write_text(
        "from gem.core import Env\n"
        "class Stuck(Env):\n"
        "    def reset(self, seed=None):\n"
        "        return 'start', {}\n"
        "    def step(self, action):\n"
        "        while True:\n"
        "            pass\n"
    )
    with JailedFile(game, Limits(answer_seconds=1.5)) as jail:
        env = ProxyEnv(jail, "Stuck")
        env.reset()
        with pytest.raises(JailBroken, match=r"hung: no answer within 1.5 s \(in step, stuck.py:[67]\)"):
            env.step("go")
        with pytest.raises(JailBroken):
            env.reset()


def test_a_jailed_game_plays_the_solvers_moves_inside_its_jail_as_this_side_would_choose_them(tmp_path):
    """The epsilon-solver's run of moves is chosen in the jail from the seed this side sends: the same moves and
    trace as the same player, seeded alike, one step at a time in this process."""
    import random

    from gymverse.envs.games.grid_courier import GridCourier

    from gymverse.env.checker import play
    from gymverse.env.players import SolverMoves

    game = tmp_path / "courier.py"
    game.write_text(
        "from gymverse.envs.games.grid_courier import GridCourier\n\n\nclass Courier(GridCourier):\n    pass\n"
    )
    with JailedFile(game, SHORT) as jail:
        for epsilon in (0.0, 0.5):
            jailed_moves: list = []
            jailed = play(
                ProxyEnv(jail, "Courier", complexity=3),
                SolverMoves(random.Random(7), epsilon),
                2,
                actions=jailed_moves,
            )
            here_moves: list = []
            seeded_alike = random.Random(random.Random(7).getrandbits(64))
            here = play(GridCourier(complexity=3), SolverMoves(seeded_alike, epsilon), 2, actions=here_moves)
            assert jailed_moves == here_moves and jailed[0] == here[0] and len(here_moves) > 3


def test_a_proxy_freed_while_its_jail_is_busy_does_not_wait_and_is_freed_in_the_jail_later(tmp_path):
    game = tmp_path / "counted.py"
    game.write_text(
        "from gem.core import Env\n"
        "class Counted(Env):\n"
        "    alive = 0\n"
        "    def __init__(self, **kwargs):\n"
        "        Counted.alive += 1\n"
        "    def __del__(self):\n"
        "        Counted.alive -= 1\n"
        "    def reset(self, seed=None):\n"
        "        return str(Counted.alive), {}\n"
        "    def step(self, action):\n"
        "        return '', 0.0, True, False, {}\n"
    )
    with JailedFile(game, SHORT) as jail:
        keeper, dropped = ProxyEnv(jail, "Counted"), ProxyEnv(jail, "Counted")
        assert keeper.reset()[0] == "2"
        proxies = [dropped]
        del dropped
        with jail.lock:  # busy: a collection can run the finalizer inside a request, in the thread holding the lock
            freeing = threading.Thread(target=proxies.clear)
            freeing.start()
            freeing.join(timeout=5)
            assert not freeing.is_alive()
        assert keeper.reset()[0] == "1"


# -- judging folders -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    folder = shutil.copytree(HOSTILE, tmp_path_factory.mktemp("judged") / HOSTILE.name)
    shutil.copy(folder / "twin_one.py", folder / "twin_two.py")  # a class of the same name in a second file
    judgement = judge_folder(folder, limits=SHORT, resume=False, **QUICK)
    return {Path(v.file).name: v for v in judgement.verdicts}


def test_each_hostile_file_gets_its_own_verdict(judged):
    assert judged["import_loop.py"].skipped.startswith("not a game")  # no class: never run at all
    [exits] = judged["exits_in_reset.py"].games
    assert exits.verdict == "FAIL" and "exited" in exits.error
    [greedy] = judged["greedy_init.py"].games
    assert greedy.verdict == "FAIL" and "MemoryError" in " ".join(greedy.problems())
    [deep] = judged["deep_recursion.py"].games
    assert "RecursionError" in " ".join(deep.problems())
    assert judged["raises_when_listed.py"].error == "raised RuntimeError while its games were listed: not telling"


def test_a_sys_modules_edit_does_not_poison_the_next_files(judged):
    for name in ("tally.py", "twin_one.py", "twin_two.py"):
        assert judged[name].accepted and judged[name].games, name


def test_same_class_name_in_two_files_gets_two_ids_that_name_the_file(judged):
    one, two = judged["twin_one.py"].games[0], judged["twin_two.py"].games[0]
    assert (one.env_id, two.env_id) == ("hostile_envs:twin_one.Echo", "hostile_envs:twin_two.Echo")


def test_a_correct_game_without_info_success_passes_with_a_mark(judged):
    [tally] = judged["tally.py"].games
    assert tally.verdict == "pass with warnings"
    assert any("success inferred from the reward" in line for line in tally.problems())


HEADER = "import time\nfrom gem.core import Env\n"
SLOW_GAME = """
class {name}(Env):
    def __init__(self, complexity=1, **kwargs):
        super().__init__()
    def reset(self, seed=None):
        return 'Say anything.', {{}}
    def step(self, action):
        end = time.process_time() + {cpu}
        while time.process_time() < end:
            pass
        return 'ok', 0.0, True, False, {{}}
"""


MADE_AT_IMPORT = """
for i in range(10_000):
    globals()[f"Made{i}"] = type(f"Made{i}", (Base,), {"__module__": __name__})
"""


def jail_children() -> set[str]:
    """This process's children that are bubblewrap, running or not yet reaped (``"pid state"``); a test compares
    them before and after, since jails of other tests in the same process may still run."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
        if name == "bwrap" and int(rest[1]) == os.getpid():
            found.append(f"{pid} {rest[0]}")
    return set(found)


def test_a_file_with_10000_games_is_refused_within_its_time_and_leaves_nothing_behind(tmp_path, capfd):
    running = jail_children()
    written = tmp_path / "many_games.py"
    written.write_text(HEADER + "".join(SLOW_GAME.format(name=f"Game{i}", cpu=0) for i in range(10_000)))
    made = tmp_path / "many_made_games.py"  # classes made at import, which only the listing can count
    made.write_text(HEADER + SLOW_GAME.format(name="Base", cpu=0) + MADE_AT_IMPORT)
    for many, refusals in (
        (written, ("defines 10000 classes, more than the 100",)),
        (made, ("hung: the file's code used up its 10 s of CPU time", "defines 10001 game classes")),
    ):
        began = time.monotonic()
        verdict = judge_file(many, limits=Limits(seconds=10, import_seconds=30), **QUICK)
        assert time.monotonic() - began < 10 * WALL_FACTOR
        assert not verdict.accepted and not verdict.games and verdict.error.startswith(refusals), verdict.error
        assert jail_children() - running == set()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception in thread" not in err, err[-2000:]


def test_a_files_games_share_its_budget_and_the_refusal_names_the_game_it_ran_out_in(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text(HEADER + SLOW_GAME.format(name="Quick", cpu=0) + SLOW_GAME.format(name="Slow", cpu=0.4))
    running = jail_children()
    verdict = judge_file(slow, limits=Limits(seconds=3, answer_seconds=3), **QUICK)
    assert not verdict.games  # one refused row for the file
    assert verdict.error.startswith("hung: the file's code used up its 3 s of CPU time during the check of Slow")
    assert jail_children() - running == set()


def test_the_judges_own_work_is_not_charged_to_the_file(tmp_path, monkeypatch):
    from gymverse.sandbox import judge

    quick = tmp_path / "quick.py"
    quick.write_text(HEADER + SLOW_GAME.format(name="Quick", cpu=0))
    checked = judge.check_env

    def slow_judge(*args, **kwargs):
        time.sleep(3)  # the judge's work (a loaded machine, many checks) takes longer than the file's budget
        return checked(*args, **kwargs)

    monkeypatch.setattr(judge, "check_env", slow_judge)
    verdict = judge_file(quick, limits=Limits(seconds=2, answer_seconds=2), **QUICK)
    assert not verdict.error and [game.error for game in verdict.games] == [""], verdict


def test_an_interrupted_judgement_resumes_from_its_journal(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    seen = []

    def stop_after_two(verdict):
        seen.append(verdict.file)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        judge_folder(HOSTILE, limits=SHORT, workers=1, on_verdict=stop_after_two, **QUICK)
    again = judge_folder(HOSTILE, limits=SHORT, workers=1, **QUICK)
    assert again.resumed == 2 and len(again.verdicts) == len(folder_entries(HOSTILE).files)
    assert {v.file for v in again.verdicts} >= set(seen)


def test_unreadable_entries_are_rows_not_crashes(tmp_path, capsys):
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "loop.py").symlink_to(folder / "loop.py")
    (folder / "dangling.py").symlink_to(folder / "gone.py")
    (folder / "good.py").write_text((HOSTILE / "tally.py").read_text())
    entries = folder_entries(folder)
    assert [f.name for f in entries.files] == ["good.py"]
    assert {Path(k).name: v for k, v in entries.bad.items()} == {
        "loop.py": "a symlink loop",
        "dangling.py": "a dangling symlink",
    }
    from gymverse.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["check", "--dir", str(folder), "--max-level", "2", "--seeds", "1", "--fresh"])
    out = capsys.readouterr().out
    assert exit_.value.code == 1 and "a symlink loop" in out and "a dangling symlink" in out

    main(["synthesize", "--adopt", str(folder), "--output", str(tmp_path / "adopted")])
    refused = {r["candidate"]: r["detail"] for r in map(json.loads, (tmp_path / "adopted/manifest.jsonl").open())}
    assert refused["loop"] == "a symlink loop" and refused["dangling"] == "a dangling symlink"
    assert "run the same command again" not in capsys.readouterr().out


def test_register_env_dir_plays_the_folder_through_jailed_proxies():
    report = gymverse.register_env_dir(HOSTILE, prefix="jailed")
    assert "jailed:TallyGame" in report.registered
    import gem

    env = gem.make("jailed:TallyGame", complexity=2)
    assert isinstance(env.unwrapped.inner if hasattr(env.unwrapped, "inner") else env.unwrapped, ProxyEnv)
    assert check_env("jailed:TallyGame", levels=[1, 2], seeds=1).passed
    assert any(
        where.endswith("exits_in_reset.py") is False and "not a game" in why for where, why in report.failed.items()
    )
    assert any(w.endswith("raises_when_listed.py") and "RuntimeError" in why for w, why in report.failed.items())
    assert "gymverse_user_envs.jailed.a_edits_sys_modules" not in sys.modules  # nothing was imported here


def test_a_game_that_raises_mid_run_stops_training_with_its_name_and_no_traceback(tmp_path, micro_model, capsys):
    from gymverse.train.cli import main

    folder = tmp_path / "raises_mid_run"
    folder.mkdir()
    (folder / "second_turn.py").write_text(
        "from gem.core import Env\n"
        "class SecondTurn(Env):\n"
        "    def __init__(self, complexity=1, **_):\n"
        "        super().__init__()\n"
        "    def reset(self, seed=None):\n"
        "        self.turns = 0\n"
        "        return 'Say \\\\boxed{go}.', {}\n"
        "    def step(self, action):\n"
        "        self.turns += 1\n"
        "        if self.turns > 1:\n"
        "            raise ValueError('broken on the second turn')\n"
        "        return 'again', 0.0, False, False, {}\n"
    )
    argv = flags(env_dir=folder, env_id="raises_mid_run:SecondTurn", pretrain=micro_model, save_path=tmp_path / "runs")
    argv += flags(wb_run_name="t", num_env=2, rollout_batch_size=4, max_train=8, train_batch_size=4)
    argv += flags(train_batch_size_per_device=2, generate_max_length=8, prompt_template="no", eval_steps=0)
    assert main([*argv, *flags(sft_episodes=0)]) == 1
    err = capsys.readouterr().err
    assert "error: SecondTurn.step in second_turn.py failed: ValueError: broken on the second turn" in err
    assert "stopped at step 0" in err and "Traceback" not in err


def test_trusted_imports_the_folder_here(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "tally.py").write_text((HOSTILE / "tally.py").read_text())
    report = gymverse.register_env_dir(folder, trusted=True)
    assert report.registered == ["mine:TallyGame"] and "mine:TallyGame" in registered_ids("mine")
    assert "gymverse_user_envs.mine.tally" in sys.modules


def test_without_a_jail_an_untrusted_folder_is_refused_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr("gymverse.sandbox.folders.jail_problem", lambda: "bubblewrap (bwrap) is not installed")
    with pytest.raises(BadInput, match="bubblewrap .* is not installed.*--trusted"):
        gymverse.register_env_dir(HOSTILE, prefix="nojail")
