"""The built-in ``tiny`` model: a small decoder with a byte-level tokenizer, in Hugging Face format.

No weights can be downloaded on a machine without a network, so ``--pretrain tiny`` builds a
randomly initialised Llama-architecture model from a config and saves it with ``save_pretrained``
next to a byte-level tokenizer with a Qwen-style chat template. Everything downstream loads it
with ``AutoModelForCausalLM`` / ``AutoTokenizer`` like any real checkpoint.
"""

import hashlib
import os
import shutil
from pathlib import Path

from gymverse import cache

TINY = "tiny"

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]  # ids 256, 257, 258 after the 256 bytes
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
TINY_ARCHITECTURE = dict(
    hidden_size=128,
    intermediate_size=384,
    num_hidden_layers=4,
    num_attention_heads=4,
    num_key_value_heads=4,
    max_position_embeddings=8192,
    tie_word_embeddings=True,
)


def build_tiny_tokenizer():
    """A byte-level BPE tokenizer without merges: one token per byte, plus Qwen's chat specials."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    # Token id = byte value, so a reply's ids read as its UTF-8 bytes.
    vocab = {char: byte for byte, char in bytes_to_unicode().items()}
    backend = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    backend.decoder = decoders.ByteLevel()
    backend.add_special_tokens(SPECIAL_TOKENS)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def build_tiny_model(path: str | Path, seed: int = 0, architecture: dict | None = None) -> Path:
    """Build the tiny model (or one of another ``architecture``, with the same tokenizer) from scratch and save
    it with its tokenizer to ``path``."""
    import torch
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    path = Path(path)
    tokenizer = build_tiny_tokenizer()
    eos_ids = tokenizer.convert_tokens_to_ids(["<|im_end|>", "<|endoftext|>"])
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        bos_token_id=None,
        eos_token_id=eos_ids[0],
        pad_token_id=tokenizer.pad_token_id,
        **(architecture or TINY_ARCHITECTURE),
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    model.generation_config = GenerationConfig(
        eos_token_id=eos_ids,
        pad_token_id=tokenizer.pad_token_id,
        do_sample=True,
        temperature=1.0,
        top_p=1.0,
        top_k=0,
    )
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def build_key() -> str:
    """A short hash of what the built folder depends on: this module's code and settings, and the versions of
    the packages that initialise the weights and write the tokenizer."""
    from importlib.metadata import version

    makers = " ".join(version(package) for package in ("torch", "transformers", "tokenizers"))
    return hashlib.sha256(Path(__file__).read_bytes() + makers.encode()).hexdigest()[:12]


def not_a_model_folder(spec: str) -> str | None:
    """Why ``spec`` names no Hugging Face model folder (None when it does); reads the disk only."""
    folder = Path(spec).expanduser()
    if spec == TINY or (folder / "config.json").is_file():
        return None
    hint = "it does not exist" if not folder.exists() else "it has no config.json"
    return (
        f"{spec!r} is not a Hugging Face model folder ({hint}); give a local checkpoint folder "
        f"or {TINY!r} for the built-in tiny model (no weights can be downloaded here)"
    )


def resolve_pretrain(spec: str, cache_dir: str | Path | None = None, flag: str = "--pretrain") -> Path:
    """The model folder that ``--pretrain spec`` names (``flag`` names the option in the error).

    ``"tiny"`` is built once into ``<cache_dir>/tiny-<build_key()>`` (default cache dir: ``$GYMVERSE_CACHE``,
    else ``$XDG_CACHE_HOME/gymverse`` or ``~/.cache/gymverse``) and reused: a folder that other code or other
    package versions built has another name, so it is never taken for this one. Any other spec must be an
    existing Hugging Face model folder.
    """
    if spec == TINY:
        folder = (Path(cache_dir) if cache_dir is not None else cache.cache_dir()) / f"{TINY}-{build_key()}"
        if not folder.is_dir():
            # Build beside it and move into place, so a reader never sees a half-written folder.
            staging = build_tiny_model(folder.parent / f".tiny-build-{os.getpid()}")
            try:
                staging.rename(folder)
            except OSError:  # another process moved its build into place first
                shutil.rmtree(staging)
        return folder
    problem = not_a_model_folder(spec)
    if problem:
        raise FileNotFoundError(f"{flag} {problem}")
    return Path(spec).expanduser()
