"""Policies: the tiny model in HF format, sampling with log-probs and limits, baselines, endpoints."""

import importlib.util
import json
import random
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from transformers import AutoModelForCausalLM

import gymverse  # noqa: F401  (registers the games)
from gymverse.env.parsing import extract_boxed
from gymverse.errors import BadInput
from gymverse.policy import EpsilonOraclePolicy, OraclePolicy, RandomPolicy, check_policy, load_policy
from gymverse.policy.base import Sampling
from gymverse.policy.hf import HFPolicy, distinct_rows, inverse_cdf_draw
from gymverse.policy.openai_compat import OpenAICompatiblePolicy
from gymverse.policy.stopping import cut_after_box, first_box_end
from gymverse.policy.tiny import TINY_ARCHITECTURE, resolve_pretrain
from gymverse.run.logprobs import activation_checkpointing, response_mask, sequence_logprobs

CHAT_PROMPT = "<|im_start|>user\nFind the peak.<|im_end|>\n<|im_start|>assistant\n"


def policy(tiny_dir, **sampling):
    sampling.setdefault("seed", 0)
    return HFPolicy(tiny_dir, Sampling(**sampling), num_threads=1)


def force_tokens(policy_, script):
    """Make the model emit ``script`` (token ids), one per forward pass, by editing its logits."""
    calls = iter(range(10**6))

    def hook(module, inputs, output):
        k = next(calls)
        token = script[min(k, len(script) - 1)]
        output[:, -1, :] = -1e4
        output[:, -1, token] = 0.0
        return output

    return policy_.model.lm_head.register_forward_hook(hook)


# -- the tiny model --------------------------------------------------------------------------------
def test_tiny_loads_through_the_auto_classes(tiny_dir, tokenizer):
    model = AutoModelForCausalLM.from_pretrained(tiny_dir)
    assert model.config.num_hidden_layers == TINY_ARCHITECTURE["num_hidden_layers"]
    assert model.config.vocab_size == len(tokenizer) == 259
    assert tokenizer.eos_token == "<|im_end|>" and tokenizer.pad_token == "<|endoftext|>"
    prompt = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Find the peak."}],
        tokenize=False,
        add_generation_prompt=True,
    )
    assert prompt == CHAT_PROMPT
    ids = tokenizer.encode(prompt, add_special_tokens=False)
    assert ids[0] == tokenizer.convert_tokens_to_ids("<|im_start|>")
    assert tokenizer.decode(ids) == prompt


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=200))
def test_tiny_tokenizer_is_byte_level(tokenizer, text):
    assume(not any(special in text for special in tokenizer.all_special_tokens))
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert ids == list(text.encode("utf-8"))
    assert tokenizer.decode(ids) == text


def test_special_token_text_encodes_to_its_one_id(tokenizer):
    for special in tokenizer.all_special_tokens:
        ids = tokenizer.encode(f"a{special}b", add_special_tokens=False)
        assert ids == [ord("a"), tokenizer.convert_tokens_to_ids(special), ord("b")]


def test_resolve_pretrain_reuses_the_built_folder(tiny_dir):
    stamp = (tiny_dir / "model.safetensors").stat().st_mtime_ns
    assert resolve_pretrain("tiny", cache_dir=tiny_dir.parent) == tiny_dir
    assert (tiny_dir / "model.safetensors").stat().st_mtime_ns == stamp
    assert resolve_pretrain(str(tiny_dir)) == tiny_dir


def test_a_tiny_model_cached_by_other_code_is_never_used(tmp_path, monkeypatch):
    from gymverse.policy import tiny

    edited = tmp_path / "tiny.py"
    edited.write_text(Path(tiny.__file__).read_text().replace("hidden_size=128", "hidden_size=64"))
    key = tiny.build_key()
    monkeypatch.setattr(tiny, "__file__", str(edited))
    assert tiny.build_key() != key  # other building code, another folder
    other = resolve_pretrain("tiny", cache_dir=tmp_path / "cache")
    (other / "config.json").write_text("{}")  # what that code built is not this model
    monkeypatch.undo()
    ours = resolve_pretrain("tiny", cache_dir=tmp_path / "cache")
    assert ours != other and json.loads((ours / "config.json").read_text())["hidden_size"] == 128


def test_resolve_pretrain_explains_a_missing_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="not a Hugging Face model folder"):
        resolve_pretrain(str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="no config.json"):
        resolve_pretrain(str(tmp_path))


# -- sampling ----------------------------------------------------------------------------------------
def test_logprobs_are_those_of_the_sampling_distribution(tiny_dir):
    sampler = policy(tiny_dir, temperature=0.7, generate_max_length=24)
    generations = sampler.generate([CHAT_PROMPT, "short", "a somewhat longer prompt"])
    prompts = [g.prompt_ids for g in generations]
    responses = [g.response_ids for g in generations]
    assert all(len(g.logprobs) == len(g.response_ids) > 0 for g in generations)
    rescored = sequence_logprobs(sampler.model, prompts, responses, temperature=0.7)
    mask = response_mask(responses)
    for i, g in enumerate(generations):
        assert torch.allclose(rescored[i, : len(g.logprobs)], torch.tensor(g.logprobs), atol=1e-4)
        assert torch.all(rescored[i, len(g.logprobs) :] == 0) and mask[i].sum() == len(g.logprobs)


def test_top_p_logprobs_are_renormalized_over_the_nucleus(tiny_dir):
    sampler = policy(tiny_dir, top_p=0.3, generate_max_length=24)
    g = sampler.generate([CHAT_PROMPT])[0]
    untruncated = sequence_logprobs(sampler.model, [g.prompt_ids], [g.response_ids])[0]
    gain = torch.tensor(g.logprobs) - untruncated
    assert torch.all(gain >= -1e-5)  # the nucleus holds less than all the mass
    assert torch.any(gain > 1e-3)


def test_sequence_logprobs_carries_gradients(tiny_dir):
    sampler = policy(tiny_dir, generate_max_length=8)
    g = sampler.generate([CHAT_PROMPT])[0]
    logprobs = sequence_logprobs(sampler.model, [g.prompt_ids], [g.response_ids])
    logprobs.sum().backward()
    assert sampler.model.model.embed_tokens.weight.grad.abs().sum() > 0


def test_batched_left_padded_decoding_matches_one_at_a_time(tiny_dir):
    greedy = policy(tiny_dir, temperature=0, generate_max_length=20, max_model_len=40)
    prompts = ["x", "a longer prompt, padded less", CHAT_PROMPT[:30]]  # budgets 20, 11, 10: rows leave early
    together = greedy.generate(prompts)
    alone = [greedy.generate([p])[0] for p in prompts]
    for a, b in zip(together, alone):
        assert a.response_ids == b.response_ids and a.text == b.text
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-4)


def test_sampling_uses_the_current_cache_api_without_deprecation_warnings(tiny_dir):
    sampler = policy(tiny_dir, generate_max_length=6)
    sampler.max_model_len = sampler.count_tokens(CHAT_PROMPT) + 2  # that row leaves early: the cache is trimmed
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        warnings.simplefilter("error", DeprecationWarning)
        generations = sampler.generate([CHAT_PROMPT, "x"])
    assert [len(g.response_ids) for g in generations] == [2, 6]


def test_same_seed_same_samples(tiny_dir):
    first = policy(tiny_dir, seed=3, generate_max_length=16).generate([CHAT_PROMPT] * 2)
    second = policy(tiny_dir, seed=3, generate_max_length=16).generate([CHAT_PROMPT] * 2)
    assert [g.response_ids for g in first] == [g.response_ids for g in second]
    assert first[0].response_ids != first[1].response_ids


def test_replies_drawn_from_their_own_rngs_repeat_and_keep_their_logprobs(tiny_dir):
    sampler = policy(tiny_dir, temperature=0.8, generate_max_length=12)
    prompts = [CHAT_PROMPT, "short", CHAT_PROMPT]

    def draw(seeds):
        return sampler.generate(prompts, rngs=[random.Random(s) for s in seeds])

    first = draw([1, 2, 3])
    sampler.generate(prompts)  # the policy's own stream moves on; the rows' draws do not come from it
    assert [g.response_ids for g in draw([1, 2, 3])] == [g.response_ids for g in first]
    assert first[0].response_ids != first[2].response_ids  # one prompt, two rngs
    rescored = one_at_a_time(sampler.model, [g.prompt_ids for g in first], [g.response_ids for g in first], 0.8)
    for i, g in enumerate(first):
        assert torch.allclose(rescored[i, : len(g.logprobs)], torch.tensor(g.logprobs), atol=1e-4)
    with pytest.raises(ValueError, match="one rng per prompt"):
        sampler.generate(prompts, rngs=[random.Random(1)])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 10), min_size=2, max_size=12).filter(lambda w: sum(w) > 0.1), st.integers(50, 400))
def test_an_inverse_cdf_draw_follows_the_distribution(weights, draws):
    probs = torch.tensor(weights) / sum(weights)
    uniforms = (torch.arange(draws, dtype=torch.float64) + 0.5) / draws  # evenly spread: counts are exact
    tokens = inverse_cdf_draw(probs.expand(draws, -1), uniforms)
    counts = torch.bincount(tokens, minlength=len(weights))
    assert torch.all((counts - draws * probs.double()).abs() <= 1 + 1e-6)
    assert torch.all(counts[probs == 0] == 0)


def test_an_inverse_cdf_draw_reads_only_its_own_row():
    probs = torch.tensor([[0.0, 0.5, 0.5, 0.0], [0.2, 0.2, 0.2, 0.4], [0.0, 0.0, 1.0, 0.0]])
    uniforms = torch.tensor([0.0, 0.5, 1 - 2**-53], dtype=torch.float64)  # the ends of [0, 1) too
    together = inverse_cdf_draw(probs, uniforms)
    assert together.tolist() == [1, 2, 2]  # never a token of probability zero
    assert [inverse_cdf_draw(probs[i : i + 1], uniforms[i : i + 1]).item() for i in range(3)] == together.tolist()


def test_distinct_rows_keep_first_appearance_order():
    assert distinct_rows([[3, 1], [2], [3, 1], [], [2], []]) == ([[3, 1], [2], []], [0, 1, 0, 2, 1, 2])


def one_at_a_time(model, prompts, responses, temperature=1.0, pad_id=0):
    """Each row scored alone: one pass over prompt + response, no key-value cache."""
    width = max(len(r) for r in responses)
    rows = [sequence_logprobs(model, [p], [r], temperature, pad_id)[0] for p, r in zip(prompts, responses)]
    return torch.stack([torch.nn.functional.pad(row, (0, width - len(row))) for row in rows])


@pytest.mark.parametrize("lengths", [[5, 1, 7, 0, 3, 7], [1, 1, 1, 1, 1, 1]])
def test_a_shared_prompt_read_once_scores_and_trains_as_each_row_read_whole(tiny_dir, lengths):
    model = policy(tiny_dir).model.train()
    prompts = [
        list(b"What is 2 + 3?"),
        list(b"Hi"),
        list(b"What is 2 + 3?"),
        list(b"Hi"),
        list(b"Hi"),
        list(b"What is 2 + 3?"),
    ]
    responses = [list(range(40, 40 + n)) for n in lengths]  # an empty reply and replies of one token too

    def scored_with_gradient(score):
        model.zero_grad()
        logprobs = score(model, prompts, responses, 0.7, 256)
        logprobs.sum().backward()
        return logprobs.detach(), [p.grad.clone() for p in model.parameters()]

    rows_read = []
    hook = model.model.embed_tokens.register_forward_hook(lambda module, args, out: rows_read.append(len(out)))
    try:
        shared, shared_grads = scored_with_gradient(sequence_logprobs)
    finally:
        hook.remove()
    assert rows_read[0] == 2  # the two distinct prompts, then the six replies continuing from them
    alone, alone_grads = scored_with_gradient(one_at_a_time)
    assert torch.allclose(shared, alone, atol=1e-5)
    mask = response_mask(responses)
    assert torch.all(shared[mask == 0] == 0) and torch.all(shared[mask == 1] < 0)
    for a, b in zip(shared_grads, alone_grads):
        assert torch.allclose(a, b, atol=1e-5, rtol=1e-4)


def test_under_activation_checkpointing_each_row_is_read_whole(tiny_dir):
    model = policy(tiny_dir).model
    prompts, responses = [list(b"abc")] * 3, [[40, 41], [42], [43, 44, 45]]
    with torch.no_grad():
        expected = sequence_logprobs(model, prompts, responses)
    (getattr(model, "activation_checkpointing_enable", None) or model.gradient_checkpointing_enable)()
    model.train()
    assert activation_checkpointing(model)
    logprobs = sequence_logprobs(model, prompts, responses)  # the cache is off: a shared prompt cannot be reused
    assert torch.allclose(logprobs, expected, atol=1e-5)
    logprobs.sum().backward()
    assert model.model.embed_tokens.weight.grad.abs().sum() > 0


def test_replies_to_a_shared_prompt_are_drawn_independently_from_its_distribution(tiny_dir):
    sampler = policy(tiny_dir, temperature=0.8, generate_max_length=12)
    prompts = [CHAT_PROMPT] * 4 + ["short"] * 3 + [CHAT_PROMPT]
    generations = sampler.generate(prompts)
    responses = [g.response_ids for g in generations]
    assert len({tuple(r) for r in responses[:4] + responses[-1:]}) == 5  # one prompt read once, five replies
    rescored = one_at_a_time(sampler.model, [g.prompt_ids for g in generations], responses, 0.8)
    for i, g in enumerate(generations):
        assert torch.allclose(rescored[i, : len(g.logprobs)], torch.tensor(g.logprobs), atol=1e-4)
    again = policy(tiny_dir, temperature=0.8, generate_max_length=12).generate(prompts)
    assert [g.response_ids for g in again] == responses


def test_the_reserved_cache_holds_what_concatenation_would(tiny_dir):
    from transformers.cache_utils import DynamicLayer

    from gymverse.policy.kv_cache import ReservedLayer

    reserved, concatenated = ReservedLayer(room=2), DynamicLayer()  # room for two: the third token outgrows it
    rows = 4
    for step, tokens in enumerate([3, 1, 1, 1, 2]):
        keys, values = torch.randn(rows, 2, tokens, 8), torch.randn(rows, 2, tokens, 8)
        for layer in (reserved, concatenated):
            layer.update(keys, values)
        if step == 2:  # rows leave and one is copied, as when a shared prompt is expanded
            for layer in (reserved, concatenated):
                layer.batch_select_indices(torch.tensor([3, 0, 0]))
            rows = 3
        assert torch.equal(reserved.keys, concatenated.keys) and torch.equal(reserved.values, concatenated.values)
        assert reserved.get_seq_length() == concatenated.get_seq_length()


def test_sampling_with_the_reserved_cache_matches_the_models_own(tiny_dir, monkeypatch):
    import gymverse.policy.kv_cache as kv_cache

    prompts = ["x", "a longer prompt, padded less", CHAT_PROMPT[:30], "x"]  # rows leave the batch early

    def sampled():
        return policy(tiny_dir, temperature=0.9, generate_max_length=20, max_model_len=40).generate(prompts)

    reserved = sampled()
    monkeypatch.setattr(kv_cache, "reserved_cache", lambda model, room: None)
    own = sampled()
    for a, b in zip(reserved, own):
        assert a.response_ids == b.response_ids and a.logprobs == pytest.approx(b.logprobs, abs=1e-5)


def test_length_limits(tiny_dir, tokenizer):
    sampler = policy(tiny_dir, generate_max_length=12, max_model_len=60)
    long_prompt = "y" * 55
    full_prompt = "z" * 60
    generations = sampler.generate([CHAT_PROMPT[:20], long_prompt, full_prompt])
    eos = tokenizer.convert_tokens_to_ids(["<|im_end|>", "<|endoftext|>"])
    for g in generations:
        assert len(g.prompt_ids) + len(g.response_ids) <= 60 and len(g.response_ids) <= 12
        finished = bool(g.response_ids) and g.response_ids[-1] in eos
        assert g.truncated == (not finished)
    assert len(generations[1].response_ids) <= 5
    assert generations[2].response_ids == [] and generations[2].truncated


def test_reply_ends_at_eos_which_is_kept_as_a_token(tiny_dir, tokenizer):
    sampler = policy(tiny_dir, generate_max_length=10)
    eos = tokenizer.convert_tokens_to_ids("<|im_end|>")
    hook = force_tokens(sampler, [ord("o"), ord("k"), eos])
    try:
        g = sampler.generate([CHAT_PROMPT])[0]
    finally:
        hook.remove()
    assert g.text == "ok" and g.response_ids == [ord("o"), ord("k"), eos] and not g.truncated
    assert g.logprobs == pytest.approx([0.0] * 3, abs=1e-3)


@pytest.mark.parametrize("stop_at_box", [True, False])
def test_stop_at_box(tiny_dir, stop_at_box):
    sampler = policy(tiny_dir, generate_max_length=60)
    hook = force_tokens(sampler, list(b"I read \\boxed{} then \\boxed{read {3}} and more words"))
    try:
        g = sampler.generate([CHAT_PROMPT], stop_at_box=stop_at_box)[0]
    finally:
        hook.remove()
    if stop_at_box:
        assert g.text == "I read \\boxed{} then \\boxed{read {3}}" and not g.truncated
    else:
        assert len(g.response_ids) == 60 and g.truncated


# -- boxes -------------------------------------------------------------------------------------------
def test_first_box_end_by_hand():
    assert first_box_end("no box") is None
    assert first_box_end("\\boxed{open") is None
    assert first_box_end("\\boxed{ }") is None
    assert first_box_end("a \\boxed{x} b") == len("a \\boxed{x}")
    assert cut_after_box("\\boxed{set {1, 2}} \\boxed{y}") == "\\boxed{set {1, 2}}"


commands = st.text(st.characters(blacklist_characters="{}\\"), min_size=1).filter(str.strip)
prose = st.text(st.characters(blacklist_characters="{}\\"))


@given(prose, commands, st.text())
def test_cut_reply_reads_as_its_first_command(before, command, after):
    cut = cut_after_box(before + "\\boxed{" + command + "}" + after)
    assert cut == before + "\\boxed{" + command + "}"
    assert extract_boxed(cut) == command.strip()


# -- baselines and specs -----------------------------------------------------------------------------
def peak_finders(n, seed=0):
    import gem

    envs = [gem.make("gymverse:PeakFinder", seed=seed + i) for i in range(n)]
    for env in envs:
        env.reset()
    return envs


def test_baselines_reply_with_boxed_commands_from_the_game():
    envs = peak_finders(3)
    for agent in (OraclePolicy(), EpsilonOraclePolicy(0.5, seed=1), RandomPolicy(seed=1)):
        replies = agent.generate(["obs"] * 3, envs=envs)
        assert all(extract_boxed(r.text).split()[0] in ("read", "answer") for r in replies)
    with pytest.raises(ValueError, match="envs"):
        OraclePolicy().generate(["obs"])


def test_random_policy_is_seeded():
    a = RandomPolicy(seed=4).generate(["o"] * 5, envs=peak_finders(5))
    b = RandomPolicy(seed=4).generate(["o"] * 5, envs=peak_finders(5))
    assert [g.text for g in a] == [g.text for g in b]


@pytest.mark.parametrize("make", [lambda: EpsilonOraclePolicy(0.5, seed=0), lambda: RandomPolicy(seed=0)])
def test_a_baseline_reply_drawn_from_its_own_rng_ignores_the_other_rows(make):
    envs = peak_finders(6)
    together = make().generate(["o"] * 6, envs=envs, rngs=[random.Random(k) for k in range(6)])
    alone = [make().generate(["o"], envs=[envs[k]], rngs=[random.Random(k)])[0] for k in (5, 2, 0)]
    assert [g.text for g in alone] == [together[k].text for k in (5, 2, 0)]


def test_epsilon_zero_is_the_oracle():
    envs = peak_finders(4)
    noisy = EpsilonOraclePolicy(0.0, seed=0).generate(["o"] * 4, envs=envs)
    assert [g.text for g in noisy] == [e.oracle_action() for e in peak_finders(4)]


def test_load_policy_specs(tiny_dir):
    assert isinstance(load_policy("oracle"), OraclePolicy)
    assert load_policy("epsilon:0.25").epsilon == 0.25
    assert isinstance(load_policy("random", seed=1), RandomPolicy)
    hf = load_policy(str(tiny_dir), temperature=0.5, max_model_len=99, generate_max_length=7)
    assert (hf.temperature, hf.max_model_len, hf.generate_max_length) == (0.5, 99, 7)
    endpoint = load_policy("openai:http://127.0.0.1:1/v1#m", generate_max_length=5)
    assert endpoint.model == "m" and endpoint.max_tokens == 5
    for bad, message in [
        ("epsilon:lots", "epsilon:P"),
        ("epsilon:2", r"in \[0, 1\]"),
        ("openai:nourl", "BASE_URL#MODEL"),
    ]:
        with pytest.raises(ValueError, match=message):
            load_policy(bad)


def test_check_policy_names_the_flag_and_reads_only_the_disk(tiny_dir, tmp_path):
    for good in ("tiny", "oracle", "random", "epsilon:0.3", "openai:http://h/v1#m", str(tiny_dir), f"vllm:{tiny_dir}"):
        check_policy(good, "--policy")
    for bad, message in [
        (str(tmp_path / "nowhere"), "is not a Hugging Face model folder (it does not exist)"),
        (str(tmp_path), "is not a Hugging Face model folder (it has no config.json)"),
        ("vllm:/nowhere", "'/nowhere' is not a Hugging Face model folder"),
        ("epsilon:-0.1", "write epsilon:P"),
        ("openai:#m", "write openai:BASE_URL#MODEL"),
    ]:
        with pytest.raises(BadInput) as error:
            check_policy(bad, "--policy")
        assert str(error.value).startswith("--policy ") and message in str(error.value)


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed")
def test_vllm_policy_says_vllm_is_missing(tiny_dir):
    with pytest.raises(ImportError, match="VLLMPolicy needs vLLM"):
        load_policy(f"vllm:{tiny_dir}")


# -- an OpenAI-compatible endpoint, served locally ---------------------------------------------------
class FakeCompletions(BaseHTTPRequestHandler):
    replies: list[tuple[str, str]] = []
    requests: list[dict] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeCompletions.requests.append({"path": self.path, **body})
        text, finish = FakeCompletions.replies[len(FakeCompletions.requests) - 1]
        if self.path.endswith("/chat/completions"):
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
            payload = {
                "id": "c",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [choice],
            }
        else:
            choice = {"index": 0, "text": text, "finish_reason": finish, "logprobs": None}
            payload = {
                "id": "c",
                "object": "text_completion",
                "created": 0,
                "model": body["model"],
                "choices": [choice],
            }
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    FakeCompletions.requests, FakeCompletions.replies = [], []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeCompletions)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def test_openai_compatible_policy_over_http(server):
    FakeCompletions.replies = [
        ("I read \\boxed{read 1} and \\boxed{read 2}", "stop"),
        ("thinking and thinking", "length"),
    ]
    agent = OpenAICompatiblePolicy(server, "tiny-model", temperature=0.3, top_p=0.9, max_tokens=17, concurrency=1)
    first, second = agent.generate(["p1", "p2"], stop_at_box=True)
    assert first.text == "I read \\boxed{read 1}" and not first.truncated
    assert second.text == "thinking and thinking" and second.truncated
    request = FakeCompletions.requests[0]
    assert request["path"] == "/v1/completions" and request["prompt"] == "p1"
    assert (request["model"], request["temperature"], request["top_p"], request["max_tokens"]) == (
        "tiny-model",
        0.3,
        0.9,
        17,
    )


def test_openai_compatible_requests_carry_a_seed_from_each_prompts_rng(server):
    FakeCompletions.replies = [("\\boxed{a}", "stop")] * 4
    agent = OpenAICompatiblePolicy(server, "tiny-model", concurrency=1)
    agent.generate(["p1", "p2"])
    agent.generate(["p1", "p2"], rngs=[random.Random(1), random.Random(2)])
    seeds = [request.get("seed") for request in FakeCompletions.requests]
    assert seeds == [None, None, random.Random(1).getrandbits(31), random.Random(2).getrandbits(31)]


def test_openai_compatible_policy_chat_api(server):
    FakeCompletions.replies = [("\\boxed{answer 0}", "stop")]
    agent = OpenAICompatiblePolicy(server, "m", chat=True)
    assert agent.generate(["hello"])[0].text == "\\boxed{answer 0}"
    request = FakeCompletions.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["messages"] == [{"role": "user", "content": "hello"}]
