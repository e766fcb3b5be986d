# Copyright 2024 Meta Inc. and The HuggingFace Inc. team. All rights reserved.
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
"""
Processor class for Chameleon.
"""

from ...feature_extraction_utils import BatchFeature
from ...image_utils import ImageInput
from ...processing_utils import (
    MultiModalData,
    ProcessingKwargs,
    ProcessorMixin,
    TextKwargs,
    Unpack,
)
from ...tokenization_utils_base import PreTokenizedInput, TextInput
from ...utils import auto_docstring, logging
from ...utils.deprecation import deprecate_attr


logger = logging.get_logger(__name__)


class DeprecatedChameleonTextKwargs(TextKwargs, total=False):
    """
    return_for_text_completion (`bool`, *optional*):
        Deprecated, use [`ChameleonProcessorKwargs.return_for_text_completion`] instead.
        Whether the processed text is intended for text completion tasks. When `True`, the processor does not
        append the separator token (`sep_token`) to the end of the prompt, which is typically used for chat
        mode. When `False`, the separator token is appended for proper chat formatting.
    """

    return_for_text_completion: bool


class ChameleonProcessorKwargs(ProcessingKwargs, total=False):
    """
    return_for_text_completion (`bool`, *optional*, defaults to `False`):
        Whether the processed text is intended for text completion tasks. When `True`, the processor does not
        append the separator token (`sep_token`) to the end of the prompt, which is typically used for chat
        mode. When `False`, the separator token is appended for proper chat formatting.
    """

    text_kwargs: DeprecatedChameleonTextKwargs
    return_for_text_completion: bool


@auto_docstring
class ChameleonProcessor(ProcessorMixin):
    valid_processor_kwargs = ChameleonProcessorKwargs

    text_kwargs = {
        "return_tensors": "pt",
    }
    images_kwargs = {
        "return_tensors": "pt",
    }
    return_for_text_completion = False

    def __init__(self, image_processor, tokenizer, image_seq_length: int = 1024, image_token: str = "<image>"):
        r"""
        image_seq_length (`int`, *optional*, defaults to 1024):
            Sequence length of one image embedding.
        image_token (`str`, *optional*, defaults to `"<image>"`):
            The special token used to indicate image in the text.
        """
        super().__init__(image_processor, tokenizer)

        self.image_seq_length = image_seq_length
        self.image_token = tokenizer.image_token if hasattr(tokenizer, "image_token") else image_token
        self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)
        self.image_start_token = (
            tokenizer.boi_token if hasattr(tokenizer, "boi_token") else "<racm3:break>"
        )  # fixed tokens for start and end, so can hardcode
        self.image_end_token = tokenizer.eoi_token if hasattr(tokenizer, "eoi_token") else "<eoss>"
        self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)
        self.image_start_token_id = tokenizer.convert_tokens_to_ids(self.image_start_token)
        self.image_end_token_id = tokenizer.convert_tokens_to_ids(self.image_end_token)

    @property
    def image_token_ids(self) -> list[int]:
        return [self.image_token_id, self.image_start_token_id, self.image_end_token_id]

    @auto_docstring
    def __call__(
        self,
        images: ImageInput | None = None,
        text: TextInput | PreTokenizedInput | list[TextInput] | list[PreTokenizedInput] | None = None,
        **kwargs: Unpack[ChameleonProcessorKwargs],
    ) -> BatchFeature:
        r"""
        Returns:
            [`BatchFeature`]: A [`BatchFeature`] with the following fields:

            - **input_ids** -- List of token ids to be fed to a model. Returned when `text` is not `None`.
            - **attention_mask** -- List of indices specifying which tokens should be attended to by the model (when
              `return_attention_mask=True` or if *"attention_mask"* is in `self.model_input_names` and if `text` is not
              `None`).
            - **pixel_values** -- Pixel values to be fed to a model. Returned when `images` is not `None`.
        """
        if isinstance(text, str):
            text = [text]

        output_kwargs = self._merge_kwargs(tokenizer_init_kwargs=self.tokenizer.init_kwargs, **kwargs)

        if "return_for_text_completion" in output_kwargs["text_kwargs"]:
            logger.warning_once(
                "Passing `return_for_text_completion` in `text_kwargs` is deprecated "
                "and will be removed in v5.29.0. Pass it directly to the processor instead."
            )

        # text_kwargs has priority for backwards compatibility
        return_for_text_completion = output_kwargs["text_kwargs"].pop(
            "return_for_text_completion", output_kwargs["return_for_text_completion"]
        )

        # special Chameleon treatment to add sep for chat mode
        if not return_for_text_completion:
            text = [f"{sample}{self.tokenizer.sep_token}" for sample in text]

        model_inputs = super().__call__(images=images, text=text, **kwargs)
        return model_inputs

    def replace_image_token(self, image_inputs: dict, image_idx: int, **kwargs) -> str:
        one_img_tokens = self.image_start_token + (self.image_token * self.image_seq_length) + self.image_end_token
        return one_img_tokens

    def _get_num_multimodal_tokens(self, image_sizes=None, **kwargs):
        """
        Computes the number of placeholder tokens needed for multimodal inputs with the given sizes.

        Args:
            image_sizes (`list[list[int]]`, *optional*):
                The input sizes formatted as (height, width) per each image.

        Returns:
            `MultiModalData`: A `MultiModalData` object holding number of tokens per each of the provided
            input modalities, along with other useful data.
        """

        vision_data = {}
        if image_sizes is not None:
            num_image_tokens = [self.image_seq_length] * len(image_sizes)
            num_image_patches = [1] * len(image_sizes)

            vision_data.update({"num_image_tokens": num_image_tokens, "num_image_patches": num_image_patches})

        return MultiModalData(**vision_data)


__getattr__ = deprecate_attr(__name__, remove={"ChameleonTextKwargs": (DeprecatedChameleonTextKwargs, "5.29.0")})
__all__ = ["ChameleonProcessor"]
