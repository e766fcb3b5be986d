# Copyright 2026 The SwissAI Initiative and The HuggingFace Inc. team. All rights reserved.
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

import math

import numpy as np
from huggingface_hub.dataclasses import strict

from ...configuration_utils import PreTrainedConfig
from ...utils import auto_docstring


@auto_docstring(checkpoint="swiss-ai/wavtokenizer-large-unify-40token")
@strict
class WavTokenizerConfig(PreTrainedConfig):
    r"""
    audio_channels (`int`, *optional*, defaults to 1):
        Number of channels in the audio data. Only mono (1) is supported.
    num_filters (`int`, *optional*, defaults to 32):
        Number of convolution kernels of the first `WavTokenizerConv1d` down sampling layer.
    upsampling_ratios (`list[int]`, *optional*, defaults to `[6, 5, 5, 4]`):
        Kernel size and stride ratios. The encoder uses downsampling ratios instead of upsampling ratios, hence it
        will use the ratios in the reverse order to the ones specified here that must match the decoder order.
        The product (600 by default) is the hop length: the number of audio samples represented by a single code.
    num_residual_layers (`int`, *optional*, defaults to 1):
        Number of residual layers in each encoder stage.
    dilation_growth_rate (`int`, *optional*, defaults to 2):
        How much to increase the dilation with each residual layer in the encoder.
    compress (`int`, *optional*, defaults to 2):
        Reduced dimensionality in residual branches.
    use_conv_shortcut (`bool`, *optional*, defaults to `True`):
        Whether to use a convolutional layer as the (skip) shortcut in the residual blocks. If False, an identity
        function will be used, giving a generic residual connection.
    use_causal_conv (`bool`, *optional*, defaults to `False`):
        Whether to use fully causal convolution.
    pad_mode (`str`, *optional*, defaults to `"reflect"`):
        Padding mode for the convolutions.
    norm_type (`str`, *optional*, defaults to `"weight_norm"`):
        Normalization method for the encoder convolutions. Should be in `["weight_norm", "time_group_norm"]`.
    kernel_size (`int`, *optional*, defaults to 7):
        Kernel size for the initial encoder convolution.
    last_kernel_size (`int`, *optional*, defaults to 7):
        Kernel size for the last encoder convolution.
    residual_kernel_size (`int`, *optional*, defaults to 3):
        Kernel size for the residual layers of the encoder.
    num_lstm_layers (`int`, *optional*, defaults to 2):
        Number of LSTM layers at the end of the encoder.
    hidden_size (`int`, *optional*, defaults to 512):
        Dimensionality of the encoder output (the latent space of the quantizer).
    codebook_size (`int`, *optional*, defaults to 4096):
        Number of discrete codes that make up the single VQ codebook.
    codebook_dim (`int`, *optional*, defaults to 512):
        Dimension of the codebook vectors. Must match `hidden_size` (no projections are used).
    decoder_hidden_size (`int`, *optional*, defaults to 768):
        Dimensionality of the Vocos-style decoder backbone.
    decoder_intermediate_size (`int`, *optional*, defaults to 2304):
        Dimensionality of the pointwise convolutions inside the decoder ConvNeXt blocks.
    decoder_num_layers (`int`, *optional*, defaults to 12):
        Number of ConvNeXt blocks in the decoder backbone.
    adanorm_num_embeddings (`int`, *optional*, defaults to 4):
        Number of condition embeddings of the decoder's adaptive layer norms. Conditioning is a training-time
        feature (one embedding per bandwidth); inference always uses embedding 0.
    decoder_attention_num_groups (`int`, *optional*, defaults to 32):
        Number of groups of the decoder GroupNorm layers.
    norm_eps (`float`, *optional*, defaults to 1e-06):
        Epsilon of the decoder normalization layers.

    Example:

    ```python
    >>> from transformers import WavTokenizerConfig, WavTokenizerModel

    >>> # Initializing configuration
    >>> configuration = WavTokenizerConfig()

    >>> # Initializing a model (with random weights) from the configuration
    >>> model = WavTokenizerModel(configuration)

    >>> # Accessing the model configuration
    >>> configuration = model.config
    ```"""

    model_type = "wavtokenizer"

    sampling_rate: int = 24000
    audio_channels: int = 1
    num_filters: int = 32
    upsampling_ratios: list[int] | tuple[int, ...] = (6, 5, 5, 4)
    num_residual_layers: int = 1
    dilation_growth_rate: int = 2
    compress: int = 2
    use_conv_shortcut: bool = True
    use_causal_conv: bool = False
    pad_mode: str = "reflect"
    norm_type: str = "weight_norm"
    kernel_size: int = 7
    last_kernel_size: int = 7
    residual_kernel_size: int = 3
    num_lstm_layers: int = 2
    hidden_size: int = 512
    codebook_size: int = 4096
    codebook_dim: int = 512
    decoder_hidden_size: int = 768
    decoder_intermediate_size: int = 2304
    decoder_num_layers: int = 12
    adanorm_num_embeddings: int = 4
    decoder_attention_num_groups: int = 32
    norm_eps: float = 1e-6

    def validate_architecture(self):
        """Part of `@strict`-powered validation. Validates the architecture of the config."""
        if self.norm_type not in ["weight_norm", "time_group_norm"]:
            raise ValueError(f'`norm_type` must be one of `"weight_norm"`, `"time_group_norm"`, got {self.norm_type}')
        if self.codebook_dim != self.hidden_size:
            raise ValueError(
                "WavTokenizer uses no projections around the quantizer, so `codebook_dim` "
                f"({self.codebook_dim}) must equal `hidden_size` ({self.hidden_size})."
            )
        if self.decoder_hidden_size % self.decoder_attention_num_groups != 0:
            raise ValueError(
                f"`decoder_hidden_size` ({self.decoder_hidden_size}) must be divisible by "
                f"`decoder_attention_num_groups` ({self.decoder_attention_num_groups}) for the decoder GroupNorm layers."
            )

    @property
    def hop_length(self) -> int:
        return int(np.prod(self.upsampling_ratios))

    @property
    def n_fft(self) -> int:
        return self.hop_length * 4

    @property
    def frame_rate(self) -> int:
        return math.ceil(self.sampling_rate / self.hop_length)

    # derived, not `sub_configs`: the encoder shares every field with the full codec, and WavTokenizer checkpoints
    # are flat
    @property
    def encoder_config(self):
        config_dict = self.to_dict()
        # `to_dict` stores the full codec's model type; the encoder config keeps its own
        config_dict.pop("model_type")
        return WavTokenizerEncoderConfig(**config_dict)


@strict
class WavTokenizerEncoderConfig(WavTokenizerConfig):  # trf-ignore: TRF057 (see WavTokenizerConfig)
    """
    Configuration of [`WavTokenizerEncoderModel`], the encoder and quantizer of WavTokenizer. It shares every field
    with [`WavTokenizerConfig`] (see its documentation for the arguments), so it can be loaded from a full
    WavTokenizer checkpoint. Decoder-specific fields are unused by the encoder model.
    """

    model_type = "wavtokenizer_encoder"


__all__ = ["WavTokenizerConfig", "WavTokenizerEncoderConfig"]
