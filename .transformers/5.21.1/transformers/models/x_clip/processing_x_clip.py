# Copyright 2022 The HuggingFace Inc. team.
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
Image/Text processor class for XCLIP
"""

from ...processing_utils import ProcessorMixin
from ...utils import auto_docstring


@auto_docstring
class XCLIPProcessor(ProcessorMixin):
    def __init__(self, image_processor=None, tokenizer=None, **kwargs):
        super().__init__(image_processor, tokenizer)
        self.video_processor = self.image_processor

    def __call__(self, images=None, text=None, videos=None, **kwargs):
        # X-CLIP uses the image_processor for video frames. Map videos to images
        # so the base class processes them through image_processor.
        if videos is not None and images is None:
            images = videos
        return super().__call__(images=images, text=text, **kwargs)


__all__ = ["XCLIPProcessor"]
