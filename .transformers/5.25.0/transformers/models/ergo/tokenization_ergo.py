# Copyright 2026 The HuggingFace Inc. team.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
"""Tokenization class for Ergo."""

from tokenizers import AddedToken, Tokenizer, decoders, normalizers
from tokenizers.models import BPE

from ...tokenization_utils_tokenizers import TokenizersBackend


VOCAB_FILES_NAMES = {"tokenizer_file": "tokenizer.json"}

# SentencePiece piece types.
SPM_NORMAL, SPM_UNKNOWN, SPM_CONTROL, SPM_USER_DEFINED, SPM_UNUSED = 1, 2, 3, 4, 5


class ErgoTokenizer(TokenizersBackend):
    """
    Construct an Ergo tokenizer (backed by HuggingFace's tokenizers library).

    This tokenizer uses a BPE model with byte fallback, no prefix space, and a normalizer that replaces spaces
    with "▁".

    Args:
        vocab (`str` or `dict[str, int]`, *optional*):
            Custom vocabulary dict. If not provided, a minimal vocabulary is created from the special tokens.
        merges (`str` or `list[str]`, *optional*):
            Custom merges list.
        unk_token (`str`, *optional*, defaults to `"<unk>"`):
            The unknown token.
        bos_token (`str`, *optional*, defaults to `"<bos>"`):
            The beginning of sequence token. It is not added to chat prompts.
        eos_token (`str`, *optional*, defaults to `"<ctrl100>"`):
            The end of sequence token. It closes every turn of a chat, so generation stops on it.
        pad_token (`str`, *optional*, defaults to `"<pad>"`):
            The padding token.
        add_bos_token (`bool`, *optional*, defaults to `False`):
            Whether or not to add a `bos_token` at the start of sequences.
        add_eos_token (`bool`, *optional*, defaults to `False`):
            Whether or not to add an `eos_token` at the end of sequences.
    """

    vocab_files_names = VOCAB_FILES_NAMES
    padding_side = "left"
    model_input_names = ["input_ids", "attention_mask"]
    model = BPE

    def __init__(
        self,
        vocab: str | dict[str, int] | None = None,
        merges: str | list[str] | None = None,
        unk_token: str = "<unk>",
        bos_token: str = "<bos>",
        eos_token: str = "<ctrl100>",
        pad_token: str = "<pad>",
        add_bos_token: bool = False,
        add_eos_token: bool = False,
        **kwargs,
    ):
        if vocab is None:
            tokens = [str(pad_token), "<eos>", str(bos_token), str(unk_token), str(eos_token)]
            vocab = {token: index for index, token in enumerate(dict.fromkeys(tokens))}
        self._vocab = vocab
        self._merges = merges or []

        self._tokenizer = Tokenizer(
            BPE(
                vocab=self._vocab,
                merges=self._merges,
                fuse_unk=True,
                unk_token=str(unk_token),
                dropout=None,
                byte_fallback=True,
            )
        )
        self._tokenizer.normalizer = normalizers.Replace(" ", "▁")
        self._tokenizer.decoder = decoders.Sequence(
            [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]
        )
        super().__init__(
            unk_token=unk_token,
            bos_token=bos_token,
            eos_token=eos_token,
            pad_token=pad_token,
            add_bos_token=add_bos_token,
            add_eos_token=add_eos_token,
            **kwargs,
        )

    @classmethod
    def convert_from_spm_model(cls, vocab, **kwargs):
        """
        Builds the merges and the added tokens from a SentencePiece `tokenizer.model`, so that a checkpoint without
        `tokenizer.json` encodes like SentencePiece.

        A merge is every split of a piece into two pieces, ranked by the score of the merged piece. SentencePiece
        never merges into control, unknown or byte pieces. Control and unknown pieces become special tokens.
        User-defined pieces, which are runs of whitespace, become ordinary added tokens that are matched on the
        normalized text.
        """
        from ...convert_slow_tokenizer import SentencePieceExtractor

        pieces = SentencePieceExtractor(kwargs["vocab_file"]).proto.pieces
        mergeable = {piece.piece for piece in pieces if piece.type in (SPM_NORMAL, SPM_USER_DEFINED, SPM_UNUSED)}
        ranked = []
        for index, piece in enumerate(pieces):
            if piece.piece not in mergeable:
                continue
            for split in range(1, len(piece.piece)):
                left, right = piece.piece[:split], piece.piece[split:]
                if left in mergeable and right in mergeable:
                    ranked.append((-piece.score, index, vocab[left], vocab[right], left, right))
        ranked.sort()

        kwargs["vocab"] = vocab
        kwargs["merges"] = [(left, right) for *_, left, right in ranked]
        kwargs.pop("additional_special_tokens", None)
        added_tokens = {
            index: AddedToken(
                piece.piece, normalized=piece.type == SPM_USER_DEFINED, special=piece.type != SPM_USER_DEFINED
            )
            for index, piece in enumerate(pieces)
            if piece.type in (SPM_UNKNOWN, SPM_CONTROL, SPM_USER_DEFINED)
        }
        kwargs["added_tokens_decoder"] = {**added_tokens, **(kwargs.get("added_tokens_decoder") or {})}
        return kwargs


__all__ = ["ErgoTokenizer"]
