# Copyright 2026 Physical Intelligence and The HuggingFace Inc. team. All rights reserved.
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
"""PI0.5 model: PaliGemma + action expert conditioned on the timestep through adaptive RMS norms."""

from collections.abc import Callable

import torch
import torch.nn.functional as F
from huggingface_hub.dataclasses import strict
from torch import nn

from ... import initialization as init
from ...cache_utils import Cache
from ...configuration_utils import PreTrainedConfig
from ...image_utils import ImageInput
from ...modeling_outputs import BaseModelOutputWithPast, CausalLMOutputWithPast
from ...modeling_utils import ALL_ATTENTION_FUNCTIONS
from ...processing_utils import Unpack
from ...utils import TransformersKwargs, auto_docstring, can_return_tuple, logging
from ...utils.import_utils import requires
from ...utils.output_capturing import capture_outputs
from ..gemma.modeling_gemma import (
    GemmaAttention,
    GemmaDecoderLayer,
    GemmaModel,
    apply_rotary_pos_emb,
    eager_attention_forward,
)
from ..pi0.configuration_pi0 import PI0Config
from ..pi0.modeling_pi0 import (
    PI0ActionTimeEmbedding,
    PI0ForConditionalGeneration,
    PI0Model,
    PI0PreTrainedModel,
)
from ..pi0.processing_pi0 import PI0Processor


logger = logging.get_logger(__name__)


@auto_docstring
@requires(backends=("vision", "torch"))
class PI05Processor(PI0Processor):
    text_kwargs = {
        "padding": "max_length",
        "max_length": 200,
        "padding_side": "right",
        "return_tensors": "pt",
    }
    state_in_prompt = True

    def __init__(
        self,
        image_processor=None,
        tokenizer=None,
        chat_template=None,
        state_mean: list[float] | None = None,
        state_std: list[float] | None = None,
        actions_mean: list[float] | None = None,
        actions_std: list[float] | None = None,
        state_q01: list[float] | None = None,
        state_q99: list[float] | None = None,
        actions_q01: list[float] | None = None,
        actions_q99: list[float] | None = None,
        max_state_dim: int = 32,
        chunk_size: int = 50,
        **kwargs,
    ):
        r"""
        state_mean (`list[float]`, *optional*):
            Dataset mean of the robot state. Required to process `state` unless `state_q01` and `state_q99` are set.
        state_std (`list[float]`, *optional*):
            Dataset standard deviation of the robot state.
        actions_mean (`list[float]`, *optional*):
            Dataset mean of the actions. Required to process `actions` unless `actions_q01` and `actions_q99` are set.
        actions_std (`list[float]`, *optional*):
            Dataset standard deviation of the actions.
        state_q01 (`list[float]`, *optional*):
            Dataset 1st percentile of the robot state. With `state_q99`, `state` is mapped to [-1, 1] by quantiles.
        state_q99 (`list[float]`, *optional*):
            Dataset 99th percentile of the robot state.
        actions_q01 (`list[float]`, *optional*):
            Dataset 1st percentile of the actions. With `actions_q99`, `actions` are mapped to [-1, 1] by quantiles.
        actions_q99 (`list[float]`, *optional*):
            Dataset 99th percentile of the actions.
        max_state_dim (`int`, *optional*, defaults to 32):
            Size the actions are zero-padded to.
        chunk_size (`int`, *optional*, defaults to 50):
            Number of actions per chunk.
        """
        self.state_q01 = state_q01
        self.state_q99 = state_q99
        self.actions_q01 = actions_q01
        self.actions_q99 = actions_q99
        super().__init__(
            image_processor,
            tokenizer,
            chat_template=chat_template,
            state_mean=state_mean,
            state_std=state_std,
            actions_mean=actions_mean,
            actions_std=actions_std,
            max_state_dim=max_state_dim,
            chunk_size=chunk_size,
            **kwargs,
        )

    def build_prompts(
        self, text: list[str], batched_images: list[list[ImageInput]], state: torch.Tensor | None
    ) -> list[str]:
        """Builds one prompt per sample: image tokens, the task, then the state discretized into 256 bins."""
        if state is None:
            state_prompts = [""] * len(text)
        else:
            bins = torch.linspace(-1, 1, 256 + 1)[:-1]
            discretized_state = torch.bucketize(state.view(len(text), -1), bins, right=True) - 1
            state_prompts = [f", State: {' '.join(map(str, sample.tolist()))}" for sample in discretized_state]
        tasks = [sample.strip().replace("_", " ").replace("\n", " ") for sample in text]
        return [
            f"{self.image_token * self.image_seq_length * len(image_list)}{self.tokenizer.bos_token}"
            f"Task: {task}{state_prompt};\nAction: "
            for task, state_prompt, image_list in zip(tasks, state_prompts, batched_images)
        ]

    def normalize(self, values: torch.Tensor, feature: str) -> torch.Tensor:
        """Maps `state` or `actions` to [-1, 1] with the dataset quantiles, or normalizes them with mean and std."""
        q01, q99 = getattr(self, f"{feature}_q01"), getattr(self, f"{feature}_q99")
        if q01 is not None and q99 is not None:
            q01, q99 = torch.tensor(q01), torch.tensor(q99)
            return 2.0 * (values - q01) / torch.where(q99 - q01 == 0, 1e-08, q99 - q01) - 1.0
        mean, std = getattr(self, f"{feature}_mean"), getattr(self, f"{feature}_std")
        if mean is None or std is None:
            raise ValueError(
                f"Processing `{feature}` needs `{feature}_q01` and `{feature}_q99`, or `{feature}_mean` and "
                f"`{feature}_std`. Pass the statistics of the dataset the checkpoint was trained on when creating the "
                "processor."
            )
        return (values - torch.tensor(mean)) / (torch.tensor(std) + 1e-08)


@auto_docstring(checkpoint="lerobot/pi05_base")
@strict
class PI05Config(PI0Config):
    r"""
    dit_config (`dict`, *optional*):
        Configuration for the action expert. Defaults to a Gemma 300M variant.
    chunk_size (`int`, *optional*, defaults to 50):
        Number of action steps to predict per chunk.
    max_action_dim (`int`, *optional*, defaults to 32):
        Maximum action vector dimension (shorter vectors are zero-padded).
    num_inference_steps (`int`, *optional*, defaults to 10):
        Number of denoising steps during inference.
    time_sampling_beta_alpha (`float`, *optional*, defaults to 1.5):
        Alpha parameter for Beta distribution used to sample diffusion time during training.
    time_sampling_beta_beta (`float`, *optional*, defaults to 1.0):
        Beta parameter for Beta distribution used to sample diffusion time during training.
    time_sampling_scale (`float`, *optional*, defaults to 0.999):
        Scale factor for sampled time values.
    time_sampling_offset (`float`, *optional*, defaults to 0.001):
        Offset added to sampled time values.
    min_period (`float`, *optional*, defaults to 0.004):
        Minimum period for sinusoidal time embedding.
    max_period (`float`, *optional*, defaults to 4.0):
        Maximum period for sinusoidal time embedding.
    loss_reduction (`str`, *optional*, defaults to `"mean"`):
        The reduction to use on MSE loss.

    Example:
    ```python
    >>> from transformers import PI05ForConditionalGeneration, PI05Config

    >>> config = PI05Config()
    >>> model = PI05ForConditionalGeneration(config)
    ```
    """

    model_type = "pi05"
    max_state_dim = AttributeError()


class PI05AdaptiveRMSNorm(nn.Module):
    """RMS norm whose scale, shift and residual gate are predicted from the timestep embedding."""

    def __init__(self, hidden_size: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.dense = nn.Linear(hidden_size, 3 * hidden_size)

    def forward(self, hidden_states: torch.Tensor, timestep_embeds: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.float()
        hidden_states = hidden_states * torch.rsqrt(hidden_states.pow(2).mean(-1, keepdim=True) + self.eps)
        scale, shift, gate = self.dense(timestep_embeds)[:, None, :].chunk(3, dim=-1)
        hidden_states = hidden_states * (1.0 + scale.float()) + shift.float()
        return hidden_states.to(input_dtype), gate.to(input_dtype)


class PI05Attention(GemmaAttention):
    def forward(
        self,
        hidden_states: torch.Tensor,
        position_embeddings: tuple[torch.Tensor, torch.Tensor] | None = None,
        attention_mask: torch.Tensor | None = None,
        cache: Cache | None = None,
        **kwargs: Unpack[TransformersKwargs],
    ) -> tuple[torch.Tensor, torch.Tensor]:
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)

        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)

        cos, sin = position_embeddings
        query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)

        if cache is not None:
            # the VLM layer that filled this cache layer can be on another GPU than this expert layer (which has no cache itself)
            cache_device = cache.layers[self.layer_idx].keys.device
            key_states, value_states = cache.update(
                key_states.to(cache_device), value_states.to(cache_device), self.layer_idx, kwargs=kwargs
            )
            key_states, value_states = key_states.to(query_states.device), value_states.to(query_states.device)

        attention_interface: Callable = ALL_ATTENTION_FUNCTIONS.get_interface(
            self.config._attn_implementation, eager_attention_forward
        )

        attn_output, attn_weights = attention_interface(
            self,
            query_states,
            key_states,
            value_states,
            attention_mask,
            dropout=0.0 if not self.training else self.attention_dropout,
            scaling=self.scaling,
            **kwargs,
        )

        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, attn_weights


class PI05DecoderLayer(GemmaDecoderLayer):
    def __init__(self, config, layer_idx: int):
        super().__init__(config, layer_idx)
        self.input_layernorm = PI05AdaptiveRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = PI05AdaptiveRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(
        self,
        hidden_states: torch.Tensor,
        timestep_embeds: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        cache: Cache | None = None,
        position_embeddings: tuple[torch.Tensor, torch.Tensor] | None = None,
        **kwargs: Unpack[TransformersKwargs],
    ) -> torch.Tensor:
        residual = hidden_states
        hidden_states, gate = self.input_layernorm(hidden_states, timestep_embeds)
        hidden_states, _ = self.self_attn(
            hidden_states=hidden_states,
            attention_mask=attention_mask,
            cache=cache,
            position_embeddings=position_embeddings,
            **kwargs,
        )
        hidden_states = residual + gate * hidden_states

        residual = hidden_states
        hidden_states, gate = self.post_attention_layernorm(hidden_states, timestep_embeds)
        hidden_states = self.mlp(hidden_states)
        hidden_states = residual + gate * hidden_states
        return hidden_states


class PI05ActionTimeEmbedding(PI0ActionTimeEmbedding):
    def __init__(self, config):
        super().__init__(config)
        del self.state_proj
        del self.action_time_mlp_in
        del self.action_time_mlp_out
        self.time_mlp_in = nn.Linear(config.dit_config.hidden_size, config.dit_config.hidden_size)
        self.time_mlp_out = nn.Linear(config.dit_config.hidden_size, config.dit_config.hidden_size)

    def forward(self, noise, timestep):
        action_embeds = self.action_in_proj(noise)
        timestep_embeds = self.sinusoid_embeds(timestep).to(dtype=action_embeds.dtype)
        timestep_embeds = F.silu(self.time_mlp_out(F.silu(self.time_mlp_in(timestep_embeds))))
        return action_embeds, timestep_embeds


@auto_docstring
class PI05PreTrainedModel(PI0PreTrainedModel):
    main_input_name = "input_ids"
    _no_split_modules = ["PI05DecoderLayer"]
    _can_record_outputs = {"hidden_states": PI05DecoderLayer, "attentions": PI05Attention}
    # LeRobot checkpoints store the expert's lm_head, which the pi0 conversion renames to model.dit.embed_tokens
    _keys_to_ignore_on_load_unexpected = [r"model\.dit\.embed_tokens"]

    def _init_weights(self, module):
        super()._init_weights(module)
        if isinstance(module, PI05AdaptiveRMSNorm):
            init.zeros_(module.dense.weight)
            init.zeros_(module.dense.bias)


@auto_docstring
class PI05ActionExpertModel(GemmaModel):
    config: PreTrainedConfig

    def __init__(self, config: PreTrainedConfig):
        super().__init__(config)
        del self.embed_tokens
        self.norm = PI05AdaptiveRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    @capture_outputs
    @auto_docstring
    def forward(
        self,
        inputs_embeds: torch.Tensor,
        timestep_embeds: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        position_ids: torch.LongTensor | None = None,
        cache: Cache | None = None,
        **kwargs: Unpack[TransformersKwargs],
    ) -> BaseModelOutputWithPast:
        r"""
        timestep_embeds (`torch.Tensor` of shape `(batch_size, hidden_size)`):
            Embedding of the denoising timestep, used to modulate every norm of the action expert.
        """
        if position_ids is None:
            past_seen_tokens = cache.get_seq_length() if cache is not None else 0
            position_ids = torch.arange(inputs_embeds.shape[1], device=inputs_embeds.device) + past_seen_tokens
            position_ids = position_ids.unsqueeze(0)

        hidden_states = inputs_embeds
        position_embeddings = self.rotary_emb(hidden_states, position_ids=position_ids)
        for decoder_layer in self.layers:
            hidden_states = decoder_layer(
                hidden_states,
                timestep_embeds=timestep_embeds,
                attention_mask=attention_mask,
                position_ids=position_ids,
                cache=cache,
                position_embeddings=position_embeddings,
                **kwargs,
            )
        hidden_states, _ = self.norm(hidden_states, timestep_embeds)
        return BaseModelOutputWithPast(last_hidden_state=hidden_states, cache=cache)


@auto_docstring
class PI05Model(PI0Model):
    def __init__(self, config: PI05Config):
        super().__init__(config)
        self.dit = PI05ActionExpertModel(config.dit_config)


@auto_docstring
class PI05ForConditionalGeneration(PI0ForConditionalGeneration):
    """PI0.5 model with action projection heads and flow matching."""

    @can_return_tuple
    @auto_docstring
    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        pixel_values: torch.Tensor | None = None,
        noise: torch.Tensor | None = None,
        timestep: torch.Tensor | None = None,
        pixel_attention_mask: torch.BoolTensor | None = None,
        attention_mask: torch.Tensor | None = None,
        position_ids: torch.LongTensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        cache: Cache | None = None,
        actions: torch.Tensor | None = None,
        **kwargs: Unpack[TransformersKwargs],
    ) -> CausalLMOutputWithPast:
        r"""
        noise (`torch.Tensor`, *optional*):
            Noisy actions at the current timestep. Sampled from a normal distribution when `actions` are given.
        timestep (`torch.Tensor`, *optional*):
            Current denoising timestep.
        pixel_attention_mask (`torch.Tensor`, *optional*):
            The mask indicating padded positions in the input image.
        actions (`torch.Tensor`, *optional*):
            Input actions that need to be predicted. Used only when training to compute loss.
        """
        if noise is None:
            noise = torch.randn(
                input_ids.shape[0],
                self.config.chunk_size,
                self.config.max_action_dim,
                device=input_ids.device,
                dtype=self.dtype,
            )
        batch_size = noise.shape[0]

        if timestep is None:
            alpha_t = torch.tensor(self.config.time_sampling_beta_alpha, dtype=torch.float32)
            beta_t = torch.tensor(self.config.time_sampling_beta_beta, dtype=torch.float32)
            dist = torch.distributions.Beta(alpha_t, beta_t)
            time_beta = dist.sample((batch_size,)).to(noise.device)
            timestep = (time_beta * self.config.time_sampling_scale + self.config.time_sampling_offset).float()

        if actions is not None:
            time_expanded = timestep[:, None, None]
            noisy_actions = (time_expanded * noise + (1 - time_expanded) * actions).to(actions.dtype)
            target_velocity = noise - actions
        else:
            noisy_actions = noise

        action_embeds, timestep_embeds = self.embed_action_time(noisy_actions, timestep)

        outputs = self.model(
            input_ids=input_ids,
            pixel_values=pixel_values,
            attention_mask=attention_mask,
            pixel_attention_mask=pixel_attention_mask,
            position_ids=position_ids,
            inputs_embeds=inputs_embeds,
            action_embeds=action_embeds,
            timestep_embeds=timestep_embeds,
            cache=cache,
            **kwargs,
        )
        last_hidden_states = outputs.last_hidden_state[:, -self.config.chunk_size :]
        predicted_velocity = self.action_out_proj(last_hidden_states)

        loss = None
        if actions is not None:
            loss = F.mse_loss(
                target_velocity.to(predicted_velocity.device), predicted_velocity, reduction=self.config.loss_reduction
            )

        return CausalLMOutputWithPast(
            loss=loss,
            logits=predicted_velocity,
            cache=outputs.cache,
            hidden_states=outputs.hidden_states,
            attentions=outputs.attentions,
        )

    @torch.no_grad()
    def sample_actions(
        self,
        input_ids: torch.LongTensor,
        pixel_values: torch.Tensor,
        noise: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        pixel_attention_mask: torch.BoolTensor | None = None,
        num_steps: int | None = None,
        **kwargs,
    ) -> torch.Tensor:
        """Run flow matching inference to generate actions."""

        num_steps = num_steps or self.config.num_inference_steps
        batch_size = input_ids.shape[0]
        device = input_ids.device

        # 1. Sample random noise
        if noise is None:
            noise = torch.normal(
                mean=0.0,
                std=1.0,
                size=(
                    batch_size,
                    self.config.chunk_size,
                    self.config.max_action_dim,
                ),
                dtype=pixel_values.dtype,
                device=device,
            )

        # 2. Run VLM once and obtain prefix cache. Must infer positions here!
        position_ids = None
        if attention_mask is not None:
            position_ids = attention_mask.cumsum(-1) - 1
        inputs_embeds = self.model.embed_prefix(input_ids, pixel_values, pixel_attention_mask)
        token_type_ids = torch.zeros_like(inputs_embeds)[:, :, 0]
        cache = self.model.vlm(
            inputs_embeds=inputs_embeds,
            attention_mask=attention_mask,
            position_ids=position_ids,
            token_type_ids=token_type_ids,
            use_cache=True,
        ).cache
        prefix_length = cache.get_seq_length()

        # 3. Denoise `num_steps` times
        dt = -1.0 / num_steps
        for step in range(num_steps):
            time = 1.0 + step * dt
            time_tensor = torch.full((batch_size,), time, dtype=torch.float32, device=device)
            output = self(
                noise=noise,
                timestep=time_tensor,
                pixel_attention_mask=pixel_attention_mask,
                attention_mask=attention_mask,
                cache=cache,
                **kwargs,
            )

            # We need to keep only the "vlm-prefix", no attention to past denoising steps!
            cache.crop(prefix_length - cache.get_seq_length())
            noise = noise + dt * output.logits
        return noise


__all__ = [
    "PI05Config",
    "PI05PreTrainedModel",
    "PI05Model",
    "PI05ForConditionalGeneration",
    "PI05Processor",
]
