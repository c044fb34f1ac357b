"""Save a randomly initialised model of a real model's shape, with the tiny model's byte-level tokenizer, in
Hugging Face format: for timing the trainers on a GPU where no weights can be downloaded.

    python benchmarks/from_config_model.py OUT_DIR [--shape qwen2.5-0.5b]
"""

import argparse

import torch
from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

from gymverse.policy.tiny import build_tiny_tokenizer

SHAPES = {
    # Qwen2.5's published sizes (hidden, MLP, layers, heads, key-value heads).
    "qwen2.5-0.5b": dict(
        hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14, num_key_value_heads=2
    ),
    "qwen2.5-1.5b": dict(
        hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12, num_key_value_heads=2
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="qwen2.5-0.5b")
    args = parser.parse_args()
    tokenizer = build_tiny_tokenizer()
    eos = tokenizer.convert_tokens_to_ids("<|im_end|>")
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        eos_token_id=eos,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
        max_position_embeddings=8192,
        **SHAPES[args.shape],
    )
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config)
    model.generation_config = GenerationConfig(eos_token_id=eos, pad_token_id=tokenizer.pad_token_id)
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    print(f"{args.shape}: {sum(p.numel() for p in model.parameters()) / 1e6:.0f} M parameters in {args.out}")


if __name__ == "__main__":
    main()
