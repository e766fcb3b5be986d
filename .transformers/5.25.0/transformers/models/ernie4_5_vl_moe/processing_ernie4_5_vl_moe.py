# Copyright 2025 Baidu and HuggingFace Inc. team. All rights reserved.
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
import os.path
from pathlib import Path
from shutil import SameFileError, copyfile

import numpy as np

from ...image_utils import ImageInput
from ...processing_utils import MultiModalData, ProcessingKwargs, ProcessorMixin, Unpack
from ...tokenization_utils_base import TextInput
from ...utils import auto_docstring, resolve_revision
from ...utils.deprecation import deprecate_attr
from ...video_utils import VideoInput
from ..auto.video_processing_auto import AutoVideoProcessor


@auto_docstring
class Ernie4_5_VLMoeProcessor(ProcessorMixin):
    text_kwargs = {
        "return_token_type_ids": False,
    }
    return_mm_token_type_ids = True

    def __init__(self, image_processor=None, tokenizer=None, video_processor=None, chat_template=None, **kwargs):
        self.image_token = tokenizer.image_token
        self.image_end_token = tokenizer.image_end_token
        self.image_start_token = tokenizer.image_start_token
        self.video_token = tokenizer.video_token
        self.video_end_token = tokenizer.video_end_token
        self.video_start_token = tokenizer.video_start_token

        self.image_token_id = tokenizer.image_token_id
        self.image_end_token_id = tokenizer.image_end_token_id
        self.image_start_token_id = tokenizer.image_start_token_id
        self.video_token_id = tokenizer.video_token_id
        self.video_end_token_id = tokenizer.video_end_token_id
        self.video_start_token_id = tokenizer.video_start_token_id

        super().__init__(image_processor, tokenizer, video_processor, chat_template=chat_template)

    def save_pretrained(self, save_directory, push_to_hub: bool = False, **kwargs):
        """We additionally save a copy of the font to the `save_directory` (if we found a file there)"""
        os.makedirs(save_directory, exist_ok=True)

        if os.path.isfile(self.video_processor.font):
            try:
                copyfile(self.video_processor.font, Path(save_directory, Path(self.video_processor.font).name))
            except SameFileError:  # already exists which we allow (copy if needed)
                pass

        return super().save_pretrained(save_directory, push_to_hub, **kwargs)

    @auto_docstring
    def __call__(
        self,
        images: ImageInput | None = None,
        text: TextInput | list[TextInput] | None = None,
        videos: VideoInput | None = None,
        **kwargs: Unpack[ProcessingKwargs],
    ):
        model_inputs = super().__call__(images=images, text=text, videos=videos, **kwargs)
        model_inputs["moe_mm_token_type_ids"] = self.create_moe_mm_token_type_ids(model_inputs["input_ids"])
        return model_inputs

    def replace_image_token(self, image_inputs: dict, image_idx: int, **kwargs) -> str:
        merge_length = self.image_processor.merge_size**2
        num_image_tokens = image_inputs["image_grid_thw"][image_idx].prod() // merge_length
        return self.image_token * num_image_tokens

    def replace_video_token(self, video_inputs: dict, video_idx: int, **kwargs) -> str:
        merge_length = self.video_processor.merge_size**2 * self.video_processor.temporal_patch_size
        num_video_tokens = video_inputs["video_grid_thw"][video_idx].prod() // merge_length
        return self.video_token * num_video_tokens

    def create_moe_mm_token_type_ids(self, input_ids: list) -> list[list[int]]:
        """
        Build per-token modality type IDs for MoE blocks.

        Returns:
            `list[list[int]]`: A list of the same structure as ``input_ids``, where each
            integer is the modality type ID for the corresponding token. Note that this is different
            from `mm_token_type_ids` since MoE encodes start/end of vision tokens as well
        """
        array_ids = np.array(input_ids)
        moe_mm_token_type_ids = np.zeros_like(input_ids)  # text
        moe_mm_token_type_ids[array_ids == self.image_token_id] = 1  # img
        moe_mm_token_type_ids[array_ids == self.video_token_id] = 2  # vid

        # moe additionally adds start/end tokens
        for token_id in [
            self.image_start_token_id,
            self.image_end_token_id,
        ]:
            moe_mm_token_type_ids[array_ids == token_id] = 1
        for token_id in [
            self.video_start_token_id,
            self.video_end_token_id,
        ]:
            moe_mm_token_type_ids[array_ids == token_id] = 2

        moe_mm_token_type_ids = moe_mm_token_type_ids.astype(int)

        # Cast MoE token types to the same input type as input IDs
        if isinstance(input_ids, np.ndarray):
            return moe_mm_token_type_ids
        elif hasattr(input_ids, "device") and hasattr(input_ids, "dtype"):
            # torch.Tensor (or tensor-like) without importing torch
            return type(input_ids)(moe_mm_token_type_ids).to(device=input_ids.device, dtype=input_ids.dtype)
        else:
            return moe_mm_token_type_ids.tolist()

    @property
    def model_input_names(self):
        """Additional `mm_token_type_ids` used for modality isolated MoE"""
        return super().model_input_names + ["mm_token_type_ids", "moe_mm_token_type_ids"]

    def _get_num_multimodal_tokens(self, image_sizes=None, video_sizes=None, **kwargs):
        """
        Computes the number of placeholder tokens needed for multimodal inputs with the given sizes.
        Args:
            image_sizes (`list[list[int]]`, *optional*):
                The input sizes formatted as (height, width) per each image.
            video_sizes (`list[list[int]]`, *optional*):
                The input sizes formatted as (num_frames, height, width) per each video.
        Returns:
            `MultiModalData`: A `MultiModalData` object holding number of tokens per each of the provided
            input modalities, along with other useful data.
        """

        merged_kwargs = self._merge_kwargs(**kwargs)
        vision_data = {}
        if image_sizes is not None:
            images_kwargs = self.image_processor._merge_and_standardize_kwargs(**merged_kwargs["images_kwargs"])
            merge_size = images_kwargs["merge_size"]

            num_image_patches = [
                self.image_processor.get_number_of_image_patches(*image_size, images_kwargs)
                for image_size in image_sizes
            ]
            num_image_tokens = [(num_patches // merge_size**2) for num_patches in num_image_patches]
            vision_data.update({"num_image_tokens": num_image_tokens, "num_image_patches": num_image_patches})

        if video_sizes is not None:
            videos_kwargs = self.video_processor._merge_and_standardize_kwargs(**merged_kwargs["videos_kwargs"])
            merge_size = videos_kwargs["merge_size"]
            temporal_merge_size = videos_kwargs["temporal_patch_size"]

            num_video_patches = [
                self.video_processor.get_num_of_video_patches(*video_size, videos_kwargs) for video_size in video_sizes
            ]
            num_video_tokens = [
                (num_patches // merge_size**2 // temporal_merge_size) for num_patches in num_video_patches
            ]
            vision_data["num_video_tokens"] = num_video_tokens

        return MultiModalData(**vision_data)

    @classmethod
    def from_pretrained(
        cls,
        pretrained_model_name_or_path: str | os.PathLike,
        cache_dir: str | os.PathLike | None = None,
        force_download: bool = False,
        local_files_only: bool = False,
        token: str | bool | None = None,
        revision: str = "main",
        **kwargs,
    ):
        kwargs["cache_dir"] = cache_dir
        kwargs["force_download"] = force_download
        kwargs["local_files_only"] = local_files_only
        # Resolve the revision once, so the processor config and all its sub-processors come from the same repo state.
        kwargs["revision"] = resolve_revision(
            pretrained_model_name_or_path,
            revision,
            token=token,
            local_files_only=local_files_only,
            cache_dir=cache_dir,
        )

        if token is not None:
            kwargs["token"] = token

        original_kwargs = kwargs.copy()

        # Get processor_dict first so we can use it to instantiate non-tokenizer sub-processors
        processor_dict, kwargs = cls.get_processor_dict(pretrained_model_name_or_path, **kwargs)
        if "video_processor" not in original_kwargs:
            # `VideoProcessor.from_dict()`` doesn't work for this model
            # so load it `from_pretrained` unless user passes their own video-processor
            processor_dict["video_processor"] = AutoVideoProcessor.from_pretrained(
                pretrained_model_name_or_path, **original_kwargs
            )
        processor_dict, kwargs = cls._resolve_subprocessors(
            pretrained_model_name_or_path, processor_dict, **original_kwargs
        )
        return cls.from_dict(processor_dict, **kwargs)


__getattr__ = deprecate_attr(__name__, rename={"Ernie4_5_VLMoeProcessorKwargs": (ProcessingKwargs, "5.29.0")})

__all__ = ["Ernie4_5_VLMoeProcessor"]
