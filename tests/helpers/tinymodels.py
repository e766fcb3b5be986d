"""A tiny random Llama with a matching byte-level BPE tokenizer, as a model folder and as a GGUF file.

Shared by tests/test_models.py (the loaders) and tests/test_cli.py (the command line): both loading
paths run in seconds, without downloads and without the embedded model.

    tiny = build_tiny(tmp_path)           # TinyModel(model, tokenizer, folder, gguf_path)

The folder's tokenizer has no chat template and no pad token; the GGUF file carries CHAT_TEMPLATE,
so a model loaded from it counts as an instruct model.
"""

from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass

import gguf
import numpy as np
import torch
import transformers
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from .families import make_model

__all__ = [
    "BOS_ID",
    "CHAT_TEMPLATE",
    "EOS_ID",
    "PROMPT",
    "SPECIAL_TOKENS",
    "TinyModel",
    "build_tiny",
    "train_tokenizer",
    "write_llama_gguf",
    "write_metadata_only_gguf",
]

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
BOS_ID, EOS_ID = 1, 2
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
PROMPT = "the quick brown fox says hello"
HIDDEN, INTERMEDIATE, LAYERS, HEADS, KV_HEADS, CONTEXT, ROPE_THETA = 64, 128, 2, 4, 2, 128, 10000.0


@dataclass(frozen=True)
class TinyModel:
    """A tiny random Llama saved as a model folder and written as a GGUF file with the same weights."""

    model: transformers.LlamaForCausalLM
    tokenizer: transformers.PreTrainedTokenizerBase
    folder: pathlib.Path
    gguf_path: pathlib.Path
    backend: Tokenizer


def train_tokenizer() -> Tokenizer:
    """A ~300-token byte-level BPE, like SmolLM2's (the GGUF "gpt2" tokenizer model)."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    corpus = ["the quick brown fox jumps over the lazy dog", "hello world, hello there; the end"] * 20
    tokenizer.train_from_iterator(corpus, trainer)
    return tokenizer


def _llama_cpp_permute(weight: torch.Tensor, n_head: int) -> np.ndarray:
    """Reorder q/k rows the way llama.cpp's converter does; transformers' GGUF loader undoes it."""
    array = weight.detach().numpy()
    return (
        array.reshape(n_head, 2, array.shape[0] // n_head // 2, *array.shape[1:])
        .swapaxes(1, 2)
        .reshape(array.shape)
    )


def write_llama_gguf(
    path: pathlib.Path, model: transformers.LlamaForCausalLM, backend: Tokenizer, *, chat_template: str | None
) -> None:
    """Write ``model`` and ``backend``'s vocabulary as an F32 GGUF file, as llama.cpp would lay it out."""
    cfg = model.config
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("kvlimit tiny llama")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(HIDDEN)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(INTERMEDIATE)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(KV_HEADS)
    writer.add_rope_dimension_count(HIDDEN // HEADS)
    writer.add_rope_freq_base(ROPE_THETA)
    writer.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    writer.add_vocab_size(cfg.vocab_size)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)

    vocab = sorted(backend.get_vocab().items(), key=lambda item: item[1])
    assert [index for _, index in vocab] == list(range(len(vocab)))
    tokens = [token for token, _ in vocab]
    merges = json.loads(backend.to_str())["model"]["merges"]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(
        [gguf.TokenType.CONTROL if token in SPECIAL_TOKENS else gguf.TokenType.NORMAL for token in tokens]
    )
    writer.add_token_merges([" ".join(pair) for pair in merges])
    writer.add_bos_token_id(BOS_ID)
    writer.add_eos_token_id(EOS_ID)
    writer.add_add_bos_token(False)
    if chat_template is not None:
        writer.add_chat_template(chat_template)

    def add(name: str, tensor: torch.Tensor | np.ndarray) -> None:
        array = tensor if isinstance(tensor, np.ndarray) else tensor.detach().numpy()
        writer.add_tensor(name, np.ascontiguousarray(array, dtype=np.float32))

    add("token_embd.weight", model.model.embed_tokens.weight)
    for i, layer in enumerate(model.model.layers):
        attn, mlp = layer.self_attn, layer.mlp
        add(f"blk.{i}.attn_norm.weight", layer.input_layernorm.weight)
        add(f"blk.{i}.attn_q.weight", _llama_cpp_permute(attn.q_proj.weight, HEADS))
        add(f"blk.{i}.attn_k.weight", _llama_cpp_permute(attn.k_proj.weight, KV_HEADS))
        add(f"blk.{i}.attn_v.weight", attn.v_proj.weight)
        add(f"blk.{i}.attn_output.weight", attn.o_proj.weight)
        add(f"blk.{i}.ffn_norm.weight", layer.post_attention_layernorm.weight)
        add(f"blk.{i}.ffn_gate.weight", mlp.gate_proj.weight)
        add(f"blk.{i}.ffn_up.weight", mlp.up_proj.weight)
        add(f"blk.{i}.ffn_down.weight", mlp.down_proj.weight)
    add("output_norm.weight", model.model.norm.weight)
    add("output.weight", model.lm_head.weight)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def write_metadata_only_gguf(path: pathlib.Path, arch: str, entries: dict[str, int]) -> None:
    """A GGUF file with an architecture and a few integer metadata entries, and no tensors."""
    writer = gguf.GGUFWriter(str(path), arch)
    for key, value in entries.items():
        writer.add_uint32(key, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def build_tiny(root: pathlib.Path) -> TinyModel:
    """Build the tiny Llama (seed 0) and write it to ``root/tiny-llama`` and ``root/tiny-llama.gguf``."""
    backend = train_tokenizer()
    model = make_model(
        "llama",
        num_layers=LAYERS,
        vocab_size=backend.get_vocab_size(),
        hidden_size=HIDDEN,
        intermediate_size=INTERMEDIATE,
        num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS,
        max_position_embeddings=CONTEXT,
        rope_parameters={"rope_type": "default", "rope_theta": ROPE_THETA},
        rms_norm_eps=1e-6,
        initializer_range=0.02,
        pad_token_id=None,
        bos_token_id=BOS_ID,
        eos_token_id=EOS_ID,
    )
    # No pad token on purpose: load_model must fall back to eos.
    tokenizer = transformers.PreTrainedTokenizerFast(
        tokenizer_object=backend, bos_token=SPECIAL_TOKENS[BOS_ID], eos_token=SPECIAL_TOKENS[EOS_ID]
    )
    folder = root / "tiny-llama"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    gguf_path = root / "tiny-llama.gguf"
    write_llama_gguf(gguf_path, model, backend, chat_template=CHAT_TEMPLATE)
    return TinyModel(model=model, tokenizer=tokenizer, folder=folder, gguf_path=gguf_path, backend=backend)
