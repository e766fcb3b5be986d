# Copyright 2026 Amazon and the HuggingFace Inc. team. All rights reserved.
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
"""PyTorch Ergo model."""

from collections.abc import Callable

import torch
import torch.nn.functional as F
from huggingface_hub.dataclasses import strict
from torch import nn

from ... import initialization as init
from ...activations import ACT2FN
from ...cache_utils import Cache, DynamicCache
from ...configuration_utils import PreTrainedConfig
from ...distributed.utils import is_dtensor
from ...integrations import use_experts_implementation
from ...masking_utils import create_causal_mask, create_sliding_window_causal_mask
from ...modeling_layers import GradientCheckpointingLayer
from ...modeling_outputs import MoeModelOutputWithPast
from ...modeling_rope_utils import ROPE_INIT_FUNCTIONS, RopeParameters, dynamic_rope_update
from ...modeling_utils import ALL_ATTENTION_FUNCTIONS, PreTrainedModel
from ...processing_utils import Unpack
from ...utils import TransformersKwargs, auto_docstring, can_return_tuple, is_torch_greater_or_equal
from ...utils.generic import maybe_autocast, merge_with_config_defaults
from ...utils.output_capturing import OutputRecorder, capture_outputs
from ..beam.modeling_beam import BeamRotaryEmbedding
from ..cohere2_moe.modeling_cohere2_moe import apply_rotary_pos_emb
from ..deepseek_v3.modeling_deepseek_v3 import (
    DeepseekV3ForCausalLM,
    DeepseekV3Model,
    DeepseekV3MoE,
)
from ..llama.modeling_llama import eager_attention_forward


@auto_docstring(checkpoint="Amazon-FMR/Ergo")
@strict
class ErgoConfig(PreTrainedConfig):
    r"""
    first_dense_intermediate_size (`int`, *optional*, defaults to 32768):
        Dimension of the MLP in the first `num_dense_blocks` layers, which have no experts.
    num_dense_blocks (`int`, *optional*, defaults to 1):
        Number of leading layers with a dense MLP instead of a mixture of experts.
    shared_intermediate_size (`int`, *optional*, defaults to 8192):
        Dimension of the shared expert, which every token goes through on top of its routed experts.
    moe_routed_scaling_factor (`float`, *optional*, defaults to `8**0.5`):
        Factor the routed experts' output is scaled by before the shared expert's output is added.
    global_attention_every_n_layers (`int`, *optional*, defaults to 4):
        Every n-th layer attends to the whole context and uses no position embeddings. The other layers attend to
        the last `sliding_window` tokens and use rotary position embeddings.
    global_attention_scale (`float`, *optional*):
        Factor the attention logits of the layers that attend to the whole context are multiplied by. Checkpoints
        whose context was extended after pretraining set it.
    mlp_layer_types (`list[str]`, *optional*):
        MLP type for each layer. Defaults to `"dense"` for the first `num_dense_blocks` layers and `"sparse"` thereafter.

    Example:

    ```python
    >>> from transformers import ErgoModel, ErgoConfig

    >>> # Initializing an Ergo style configuration
    >>> configuration = ErgoConfig()

    >>> # Initializing a model from the Ergo style configuration
    >>> model = ErgoModel(configuration)  # doctest: +SKIP

    >>> # Accessing the model configuration
    >>> configuration = model.config  # doctest: +SKIP
    ```"""

    model_type = "ergo"
    # Name used by the configs of the released checkpoints
    attribute_map = {"local_attention_window": "sliding_window"}
    base_model_ep_plan = {
        "layers.*.mlp.experts.up_proj": "grouped_gemm",
        "layers.*.mlp.experts.down_proj": "grouped_gemm",
        "layers.*.mlp.experts.post_expert_norm.weight": "grouped_gemm",
        "layers.*.mlp.experts": "ep_dispatch_experts",
    }
    default_theta = 1_000_000.0

    vocab_size: int = 262144
    hidden_size: int = 8192
    num_hidden_layers: int = 64
    num_attention_heads: int = 64
    num_key_value_heads: int = 8
    first_dense_intermediate_size: int = 32768
    num_dense_blocks: int = 1
    moe_intermediate_size: int = 4096
    shared_intermediate_size: int = 8192
    num_experts: int = 256
    num_experts_per_tok: int = 8
    moe_routed_scaling_factor: float = 8**0.5
    max_position_embeddings: int = 524288
    initializer_range: float = 0.02
    rms_norm_eps: float = 1e-12
    use_cache: bool = True
    rope_parameters: RopeParameters | dict | None = None
    sliding_window: int = 512
    global_attention_every_n_layers: int = 4
    global_attention_scale: float | None = None
    layer_types: list[str] | None = None
    mlp_layer_types: list[str] | None = None
    pad_token_id: int | None = 0
    eos_token_id: int | list[int] | None = 1
    bos_token_id: int | None = 2

    def __post_init__(self, **kwargs):
        if self.layer_types is None:
            self.layer_types = [
                "sliding_attention" if (layer_idx + 1) % self.global_attention_every_n_layers else "full_attention"
                for layer_idx in range(self.num_hidden_layers)
            ]
        if self.mlp_layer_types is None:
            self.mlp_layer_types = [
                "dense" if layer_idx < self.num_dense_blocks else "sparse"
                for layer_idx in range(self.num_hidden_layers)
            ]
        super().__post_init__(**kwargs)

    def convert_rope_params_to_dict(self, **kwargs):
        kwargs = super().convert_rope_params_to_dict(**kwargs)
        # Flat checkpoint parameters describe sliding attention. Full attention uses no position embeddings.
        if "rope_type" in self.rope_parameters:
            self.rope_parameters = {"sliding_attention": self.rope_parameters, "full_attention": None}
        return kwargs


class ErgoRMSNorm(nn.Module):
    def __init__(self, hidden_size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, dtype=torch.float32))
        self.eps = eps

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        # The weight is applied in float32 as well, before rounding to the input dtype
        output = F.rms_norm(hidden_states.float(), self.weight.shape, self.weight.float(), self.eps)
        return output.to(hidden_states.dtype)

    def extra_repr(self):
        return f"{tuple(self.weight.shape)}, eps={self.eps}"


class ErgoRotaryEmbedding(BeamRotaryEmbedding):
    @dynamic_rope_update
    def forward(self, x, position_ids, layer_type):
        inv_freq = getattr(self, f"{layer_type}_inv_freq")
        attention_scaling = getattr(self, f"{layer_type}_attention_scaling")
        # float32 angles lose their phase at the positions a long context reaches, so they are computed in float64
        freqs = position_ids[..., None].double() * inv_freq.to(device=x.device, dtype=torch.double)
        emb = torch.repeat_interleave(freqs, 2, dim=-1)
        cos = emb.cos() * attention_scaling
        sin = emb.sin() * attention_scaling

        return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)


class ErgoAttention(nn.Module):
    """Multi-headed attention from 'Attention Is All You Need' paper"""

    def __init__(self, config: ErgoConfig, layer_idx: int):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.num_key_value_groups = config.num_attention_heads // config.num_key_value_heads
        self.is_causal = True
        self.sliding_window = config.sliding_window if config.layer_types[layer_idx] == "sliding_attention" else None
        self.scaling = self.head_dim**-0.5
        self.qk_scale = (
            nn.Buffer(torch.tensor(config.global_attention_scale**0.5), persistent=False)
            if self.sliding_window is None and config.global_attention_scale is not None
            else None
        )

        self.qkv_proj = nn.Linear(
            config.hidden_size,
            (config.num_attention_heads + 2 * config.num_key_value_heads) * self.head_dim,
            bias=False,
        )
        self.o_proj = nn.Linear(config.num_attention_heads * self.head_dim, config.hidden_size, bias=False)
        self.q_norm = ErgoRMSNorm(self.head_dim, eps=config.rms_norm_eps)
        self.k_norm = ErgoRMSNorm(self.head_dim, eps=config.rms_norm_eps)

    def forward(
        self,
        hidden_states: torch.Tensor,
        position_embeddings: tuple[torch.Tensor, torch.Tensor] | None,
        attention_mask: torch.Tensor | None,
        cache: Cache | None = None,
        **kwargs: Unpack[TransformersKwargs],
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)

        qkv_states = self.qkv_proj(hidden_states).view(hidden_shape)
        num_kv_heads = self.config.num_key_value_heads
        query_states, key_states, value_states = qkv_states.split(
            (self.config.num_attention_heads, num_kv_heads, num_kv_heads), dim=-2
        )
        query_states = self.q_norm(query_states).transpose(1, 2)
        key_states = self.k_norm(key_states).transpose(1, 2)
        value_states = value_states.transpose(1, 2)

        if position_embeddings is not None:
            cos, sin = position_embeddings
            query_states, key_states = apply_rotary_pos_emb(query_states, key_states, cos, sin)

        if self.qk_scale is not None:
            # Round the scale before multiplying to match the reference when autocast gives Q/K a lower precision.
            qk_scale = self.qk_scale.to(query_states.dtype)
            query_states = query_states * qk_scale
            key_states = key_states * qk_scale

        if cache is not None:
            key_states, value_states = cache.update(key_states, value_states, self.layer_idx, kwargs=kwargs)

        attention_interface: Callable = ALL_ATTENTION_FUNCTIONS.get_interface(
            self.config._attn_implementation, eager_attention_forward
        )

        attn_output, attn_weights = attention_interface(
            self,
            query_states,
            key_states,
            value_states,
            attention_mask,
            dropout=0.0,
            scaling=self.scaling,
            sliding_window=self.sliding_window,
            **kwargs,
        )

        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output, attn_weights


class ErgoMLP(nn.Module):
    """The MLP of the leading layers, which have no experts."""

    def __init__(self, config: ErgoConfig):
        super().__init__()
        self.up_proj = nn.Linear(config.hidden_size, config.first_dense_intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.first_dense_intermediate_size, config.hidden_size, bias=False)
        self.act_fn = ACT2FN["relu2"]

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.down_proj(self.act_fn(self.up_proj(hidden_states)))


class ErgoSharedExpert(nn.Module):
    """The expert every token goes through. Like the routed experts, an MLP followed by an RMSNorm."""

    def __init__(self, config: ErgoConfig):
        super().__init__()
        self.up_proj = nn.Linear(config.hidden_size, config.shared_intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.shared_intermediate_size, config.hidden_size, bias=False)
        self.act_fn = ACT2FN["relu2"]
        self.norm = ErgoRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        hidden_states = self.down_proj(self.act_fn(self.up_proj(hidden_states)))
        return self.norm(hidden_states)


class ErgoExpertNorm(nn.Module):
    def __init__(self, config: ErgoConfig) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(config.num_experts, config.hidden_size, dtype=torch.float32))
        self.eps = config.rms_norm_eps

    def forward(self, hidden_states: torch.Tensor, expert_ids: torch.Tensor) -> torch.Tensor:
        # Dispatch supplies local expert ids. FSDP has already gathered this rank's EP shard.
        weight = self.weight.to_local() if is_dtensor(self.weight) else self.weight
        normalized = F.rms_norm(hidden_states.float(), (hidden_states.shape[-1],), eps=self.eps)
        return (normalized * weight[expert_ids]).to(hidden_states.dtype)


@use_experts_implementation(has_gate=False, is_transposed=True)
class ErgoExpertProjections(nn.Module):
    def __init__(self, config: ErgoConfig) -> None:
        super().__init__()
        self.num_experts = config.num_experts
        self.up_proj = nn.Parameter(torch.empty(config.num_experts, config.hidden_size, config.moe_intermediate_size))
        self.down_proj = nn.Parameter(
            torch.empty(config.num_experts, config.moe_intermediate_size, config.hidden_size)
        )
        self.act_fn = ACT2FN["relu2"]

    def forward(
        self, hidden_states: torch.Tensor, top_k_index: torch.Tensor, top_k_weights: torch.Tensor
    ) -> torch.Tensor:
        # Each input row here is a single route with unit weight.
        top_k_index = top_k_index.squeeze(-1)
        final_hidden_states = torch.zeros_like(hidden_states)
        for expert_idx in top_k_index.unique():
            if expert_idx < self.num_experts:
                expert_mask = top_k_index == expert_idx
                current_state = hidden_states[expert_mask]
                current_hidden_states = self.act_fn(current_state @ self.up_proj[expert_idx])
                final_hidden_states[expert_mask] = current_hidden_states @ self.down_proj[expert_idx]
        return final_hidden_states


# The backend decorator replaces the projection forward. Keep per-route normalization outside that dispatch.
class ErgoExperts(ErgoExpertProjections):  # trf-ignore: TRF061
    def __init__(self, config: ErgoConfig) -> None:
        super().__init__(config)
        self.post_expert_norm = ErgoExpertNorm(config)

    def forward(
        self, hidden_states: torch.Tensor, top_k_index: torch.Tensor, top_k_weights: torch.Tensor
    ) -> torch.Tensor:
        # The stock expert backends sum routes. Give each route its own row so its learned RMSNorm
        # can be applied before the weighted sum. All-to-all EP already supplies one route per row.
        if top_k_index.size(1) > 1:
            hidden_states = hidden_states.repeat_interleave(top_k_index.size(1), dim=0)
        flat_top_k_index = top_k_index.reshape(-1, 1)
        current_hidden_states = super().forward(
            hidden_states, flat_top_k_index, hidden_states.new_ones(flat_top_k_index.shape)
        )
        # Each expert has its own learned RMSNorm scale.
        current_hidden_states = self.post_expert_norm(
            current_hidden_states, flat_top_k_index.flatten().clamp_max(self.num_experts - 1)
        )
        current_hidden_states = current_hidden_states.view(*top_k_index.shape, hidden_states.shape[-1])
        final_hidden_states = (current_hidden_states * top_k_weights.unsqueeze(-1)).sum(1)
        return final_hidden_states.to(hidden_states.dtype)


class ErgoLinearWithFP32Output(nn.Linear):
    def __init__(self, in_features, out_features, *, cast_input_to_weight_dtype=False, dtype=None):
        super().__init__(in_features, out_features, bias=False, dtype=dtype)
        self.cast_input_to_weight_dtype = cast_input_to_weight_dtype

    def forward(self, hidden_states):
        # Round the operands to the branch dtype and accumulate into fp32 for router and vocabulary logits.
        if self.cast_input_to_weight_dtype:
            hidden_states = hidden_states.to(self.weight.dtype)
        weight = self.weight.to(hidden_states.dtype)
        with maybe_autocast(hidden_states.device.type, enabled=False):
            if (
                hidden_states.is_cuda
                and hidden_states.dtype in (torch.float16, torch.bfloat16)
                and not torch.is_grad_enabled()
                and is_torch_greater_or_equal("2.8")
            ):
                logits = torch.mm(hidden_states.reshape(-1, weight.shape[1]), weight.T, out_dtype=torch.float32)
                return logits.reshape(*hidden_states.shape[:-1], weight.shape[0])
            return F.linear(hidden_states.float(), weight.float())


class ErgoTopkRouter(nn.Module):
    def __init__(self, config: ErgoConfig):
        super().__init__()
        self.linear = ErgoLinearWithFP32Output(config.hidden_size, config.num_experts, dtype=torch.float32)
        self.top_k = config.num_experts_per_tok
        self.routed_scaling_factor = config.moe_routed_scaling_factor
        self.e_score_correction_bias = nn.Buffer(torch.zeros(config.num_experts, dtype=torch.float32))

    def forward(self, hidden_states):
        hidden_states = hidden_states.reshape(-1, self.linear.in_features)
        router_logits = self.linear(hidden_states)
        scores = router_logits.sigmoid()
        topk_indices = (scores + self.e_score_correction_bias).topk(self.top_k, sorted=False).indices
        topk_weights = scores.gather(1, topk_indices)
        topk_weights = topk_weights / (topk_weights.sum(dim=-1, keepdim=True) + 1e-20) * self.routed_scaling_factor
        return router_logits, topk_weights.to(hidden_states.dtype).float(), topk_indices


class ErgoMoE(DeepseekV3MoE):
    def __init__(self, config: ErgoConfig):
        nn.Module.__init__(self)
        self.config = config
        self.experts = ErgoExperts(config)
        self.gate = ErgoTopkRouter(config)
        self.shared_experts = ErgoSharedExpert(config)


class ErgoResidualGate(nn.Module):
    """Adds a branch's output to the residual stream, mixing them with a learned weight per hidden dimension."""

    def __init__(self, config: ErgoConfig):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(config.hidden_size, dtype=torch.float32))

    def forward(self, hidden_states: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        weight = self.weight.float()
        branch_gate = weight.sigmoid()
        residual_gate = torch.sqrt(1.0 + branch_gate) * torch.exp(-0.5 * F.softplus(weight))
        return branch_gate * hidden_states + residual_gate * residual


class ErgoDecoderLayer(GradientCheckpointingLayer):
    def __init__(self, config: ErgoConfig, layer_idx: int):
        super().__init__()
        self.self_attn = ErgoAttention(config, layer_idx)
        self.mlp = ErgoMLP(config) if config.mlp_layer_types[layer_idx] == "dense" else ErgoMoE(config)
        self.input_layernorm = ErgoRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = ErgoRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.pre_feedforward_layernorm = ErgoRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_feedforward_layernorm = ErgoRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.attention_residual_gate = ErgoResidualGate(config)
        self.feedforward_residual_gate = ErgoResidualGate(config)

    def forward(
        self,
        hidden_states: torch.Tensor,
        position_embeddings: tuple[torch.Tensor, torch.Tensor] | None = None,
        attention_mask: torch.Tensor | None = None,
        cache: Cache | None = None,
        **kwargs: Unpack[TransformersKwargs],
    ) -> torch.Tensor:
        branch_dtype = self.self_attn.o_proj.weight.dtype

        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states).to(branch_dtype)
        hidden_states, _ = self.self_attn(
            hidden_states=hidden_states,
            position_embeddings=position_embeddings,
            attention_mask=attention_mask,
            cache=cache,
            **kwargs,
        )
        hidden_states = self.post_attention_layernorm(hidden_states.float())
        hidden_states = self.attention_residual_gate(hidden_states, residual)

        residual = hidden_states
        hidden_states = self.pre_feedforward_layernorm(hidden_states).to(branch_dtype)
        hidden_states = self.mlp(hidden_states)
        hidden_states = self.post_feedforward_layernorm(hidden_states.float())
        hidden_states = self.feedforward_residual_gate(hidden_states, residual)
        return hidden_states


@auto_docstring
class ErgoPreTrainedModel(PreTrainedModel):
    config: ErgoConfig
    base_model_prefix = "model"
    supports_gradient_checkpointing = True
    _no_split_modules = ["ErgoDecoderLayer"]
    _supports_flash_attn = True
    _supports_sdpa = True
    _supports_flex_attn = True
    _can_compile_fullgraph = False
    _supports_attention_backend = True
    _can_record_outputs = {
        "hidden_states": ErgoDecoderLayer,
        "attentions": ErgoAttention,
        "router_logits": OutputRecorder(ErgoTopkRouter, index=0),
    }
    _keep_in_fp32_modules_strict = [
        "embed_tokens",
        "norm",
        "input_layernorm",
        "post_attention_layernorm",
        "pre_feedforward_layernorm",
        "post_feedforward_layernorm",
        "attention_residual_gate",
        "feedforward_residual_gate",
        "q_norm",
        "k_norm",
        "mlp.gate.linear.weight",
        "post_expert_norm",
        "e_score_correction_bias",
    ]

    def _init_weights(self, module):
        super()._init_weights(module)
        if isinstance(module, ErgoExperts):
            init.normal_(module.up_proj, mean=0.0, std=self.config.initializer_range)
            init.normal_(module.down_proj, mean=0.0, std=self.config.initializer_range)
        elif isinstance(module, ErgoExpertNorm):
            init.ones_(module.weight)
        elif isinstance(module, ErgoTopkRouter):
            init.zeros_(module.e_score_correction_bias)
        elif isinstance(module, ErgoRMSNorm):
            init.ones_(module.weight)
        elif isinstance(module, ErgoResidualGate):
            init.zeros_(module.weight)
        elif isinstance(module, ErgoAttention) and module.qk_scale is not None:
            init.constant_(module.qk_scale, module.config.global_attention_scale**0.5)
        elif isinstance(module, ErgoRotaryEmbedding):
            for layer_type, rope_type in module.rope_type.items():
                rope_init_fn = (
                    module.compute_default_rope_parameters
                    if rope_type == "default"
                    else ROPE_INIT_FUNCTIONS[rope_type]
                )
                inv_freq, _ = rope_init_fn(module.config, layer_type=layer_type)
                init.copy_(getattr(module, f"{layer_type}_inv_freq"), inv_freq)
                init.copy_(getattr(module, f"{layer_type}_original_inv_freq"), inv_freq)


class ErgoModel(DeepseekV3Model):
    def __init__(self, config: ErgoConfig):
        super().__init__(config)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size, self.padding_idx, dtype=torch.float32)
        self.norm = ErgoRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    @merge_with_config_defaults
    @capture_outputs
    @auto_docstring
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        attention_mask: torch.Tensor | None = None,
        position_ids: torch.LongTensor | None = None,
        cache: Cache | None = None,
        inputs_embeds: torch.Tensor | None = None,
        use_cache: bool | None = None,
        **kwargs: Unpack[TransformersKwargs],
    ) -> MoeModelOutputWithPast:
        if (input_ids is None) ^ (inputs_embeds is not None):
            raise ValueError("You must specify exactly one of input_ids or inputs_embeds")

        if inputs_embeds is None:
            inputs_embeds = self.embed_tokens(input_ids)

        if use_cache and cache is None:
            cache = DynamicCache(config=self.config)

        if position_ids is None:
            past_seen_tokens = cache.get_seq_length() if cache is not None else 0
            position_ids = torch.arange(inputs_embeds.shape[1], device=inputs_embeds.device) + past_seen_tokens
            position_ids = position_ids.unsqueeze(0)

        if not isinstance(causal_mask_mapping := attention_mask, dict):
            mask_kwargs = {
                "config": self.config,
                "inputs_embeds": inputs_embeds,
                "attention_mask": attention_mask,
                "cache": cache,
                "position_ids": position_ids,
            }
            causal_mask_mapping = {
                "full_attention": create_causal_mask(**mask_kwargs),
                "sliding_attention": create_sliding_window_causal_mask(**mask_kwargs),
            }

        hidden_states = inputs_embeds
        position_embeddings = {
            layer_type: self.rotary_emb(hidden_states, position_ids, layer_type)
            for layer_type in self.rotary_emb.rope_type
        }

        for layer_type, decoder_layer in zip(self.config.layer_types, self.layers, strict=True):
            hidden_states = decoder_layer(
                hidden_states,
                attention_mask=causal_mask_mapping[layer_type],
                position_embeddings=position_embeddings.get(layer_type),
                cache=cache,
                position_ids=position_ids,
                **kwargs,
            )

        hidden_states = self.norm(hidden_states)
        return MoeModelOutputWithPast(
            last_hidden_state=hidden_states,
            cache=cache,
        )


class ErgoForCausalLM(DeepseekV3ForCausalLM):
    _tied_weights_keys = AttributeError()

    def __init__(self, config: ErgoConfig):
        super().__init__(config)
        self.lm_head = ErgoLinearWithFP32Output(config.hidden_size, config.vocab_size, cast_input_to_weight_dtype=True)

    def _get_resized_lm_head(self, old_lm_head, new_num_tokens=None, transposed=False, mean_resizing=True):
        resized = super()._get_resized_lm_head(old_lm_head, new_num_tokens, transposed, mean_resizing)
        resized.weight.requires_grad_(old_lm_head.weight.requires_grad)
        old_lm_head.weight, old_lm_head.out_features = resized.weight, resized.out_features
        return old_lm_head

    @can_return_tuple
    @auto_docstring
    def forward(self, **super_kwargs):
        return super().forward(**super_kwargs)


__all__ = ["ErgoConfig", "ErgoPreTrainedModel", "ErgoModel", "ErgoForCausalLM"]
