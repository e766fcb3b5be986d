# Copyright 2024 state-spaces/mamba2 org and HuggingFace Inc. team.
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
"""PyTorch MAMBA2 model."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from ... import initialization as init
from ...activations import ACT2FN
from ...cache_utils import Cache, DynamicCache
from ...integrations import use_kernel_forward_from_hub, use_kernel_func_from_hub_with_fallback, use_kernelized_func
from ...integrations.accelerate import force_accelerate_hooks
from ...masking_utils import create_recurrent_attention_mask
from ...modeling_utils import slice_logits_to_keep
from ...processing_utils import Unpack
from ...utils import TransformersKwargs, auto_docstring, can_return_tuple, logging
from ...utils.deprecation import deprecate_kwarg
from ...utils.generic import merge_with_config_defaults
from ...utils.output_capturing import capture_outputs
from ..mamba.modeling_mamba import (
    MambaBlock,
    MambaCausalLMOutput,
    MambaForCausalLM,
    MambaModel,
    MambaOutput,
    MambaPreTrainedModel,
    MambaRMSNorm,
    causal_conv1d_fn,
    causal_conv1d_forward,
    causal_conv1d_update,
)
from .configuration_mamba2 import Mamba2Config


logger = logging.get_logger(__name__)


def apply_mask_to_padding_states(hidden_states, attention_mask):
    """
    Tunes out the hidden states for padding tokens, see https://github.com/state-spaces/mamba/issues/66
    """
    # NOTE: attention mask is a 2D boolean tensor
    if attention_mask is not None:
        dtype = hidden_states.dtype
        hidden_states = (hidden_states * attention_mask[:, :, None]).to(dtype)

    return hidden_states


def pad_tensor_by_size(input_tensor: torch.Tensor, pad_size: int):
    """
    Padding x tensor with `pad_size` on the seq_len dim (dim=1)

    Assumes that we only have tensors of either size 4 or 3
    """
    pad_shape = (0, 0, 0, 0, 0, pad_size, 0, 0) if len(input_tensor.shape) == 4 else (0, 0, 0, pad_size, 0, 0)

    return torch.nn.functional.pad(input_tensor, pad_shape, mode="constant", value=0)


def reshape_into_chunks(input_tensor, pad_size, chunk_size):
    """
    Padding input_tensor with `pad_size` on the seq_len dim (dim=1) and
    simultaneously splitting it into chunk sequences.

    Assumes that we only have tensors of either size 4 or 3
    """
    # [bsz, seq_len, ...] -> [bsz, seq_len multiple of chunk_size, ...]
    input_tensor = pad_tensor_by_size(input_tensor, pad_size)

    if len(input_tensor.shape) == 3:
        # [bsz, seq_len multiple of chunk_size, num_heads] -> [bsz, -1, chunk_size, num_heads]
        return input_tensor.reshape(input_tensor.shape[0], -1, chunk_size, input_tensor.shape[2])
    else:
        # [bsz, seq_len multiple of chunk_size, num_heads, head_dim or state_size] -> [bsz, -1, chunk_size, num_heads, head_dim or state_size]
        return input_tensor.reshape(
            input_tensor.shape[0], -1, chunk_size, input_tensor.shape[2], input_tensor.shape[3]
        )


def segment_sum(input_tensor):
    """
    More stable segment sum calculation. Uses cumulative sums and masking instead of direct subtractions.
    """
    chunk_size = input_tensor.size(-1)
    # 1. expand input tensor to have an additional dimension and repeat along that dimension
    # [..., chunk_size] -> [..., chunk_size, chunk_size]
    input_tensor = input_tensor[..., None].expand(*input_tensor.size(), chunk_size)
    # 2. create a lower triangular mask with the diagonal set to 0 to 0 out elements above diag
    mask = torch.tril(torch.ones(chunk_size, chunk_size, device=input_tensor.device, dtype=torch.bool), diagonal=-1)
    input_tensor = input_tensor.masked_fill(~mask, 0)
    # 3. compute actual cumsum
    tensor_segsum = torch.cumsum(input_tensor, dim=-2)

    # 4. apply mask to keep only the lower triangular part of the cumulative sum result (incl diagonal this time)
    mask = torch.tril(torch.ones(chunk_size, chunk_size, device=input_tensor.device, dtype=torch.bool), diagonal=0)
    tensor_segsum = tensor_segsum.masked_fill(~mask, -torch.inf)
    return tensor_segsum


@use_kernel_func_from_hub_with_fallback("selective_state_update", "mamba_ssm")
def mamba2_selective_state_update(
    state: torch.Tensor,
    hidden_states: torch.Tensor,
    dt: torch.Tensor,
    A: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    D: torch.Tensor | None = None,
    dt_bias: torch.Tensor | None = None,
    dt_softplus: bool = False,
    z: torch.Tensor | None = None,
    **kwargs,
):
    batch_size, num_heads, head_dim = hidden_states.shape
    num_groups = B.shape[1]
    state_size = B.shape[-1]

    if dt_bias is not None:
        dt = dt + dt_bias.to(dt.dtype)
    if dt_softplus:
        dt = F.softplus(dt)
    dt = dt[..., None]

    # Discretize A
    dA = torch.exp(dt.float() * A.float()).to(device=state.device)

    # Discretize B
    B = B.reshape(batch_size, num_groups, 1, state_size)
    B = B.expand(batch_size, num_groups, num_heads // num_groups, state_size).contiguous()
    B = B.reshape(batch_size, num_heads, 1, state_size)
    dB = dt * B

    # Discretize x into dB
    dBx = (dB * hidden_states[..., None]).to(device=state.device)

    # State calculation
    ssm_states = state * dA + dBx
    state.copy_(ssm_states.to(state.dtype))

    # Subsequent output
    C = C.reshape(batch_size, num_groups, 1, state_size)
    C = C.expand(batch_size, num_groups, num_heads // num_groups, state_size).contiguous()
    C = C.reshape(batch_size, num_heads, state_size)

    # Reshape ssm_states to merge the first two dimensions
    ssm_states = ssm_states.to(device=C.device, dtype=C.dtype)
    ssm_states_reshaped = ssm_states.view(batch_size * num_heads, head_dim, state_size)
    C_reshaped = C.view(batch_size * num_heads, state_size, 1)
    out = torch.bmm(ssm_states_reshaped, C_reshaped)
    out = out.view(batch_size, num_heads, head_dim)

    # D skip connection
    if D is not None:
        out = (out + hidden_states * D).to(out.dtype)

    if z is not None:
        out = out * F.silu(z)

    return out.to(hidden_states.dtype)


@use_kernel_func_from_hub_with_fallback("mamba_chunk_scan_combined", "mamba_ssm")
def mamba2_chunk_scan(
    hidden_states: torch.Tensor,
    dt: torch.Tensor,
    A: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    chunk_size: int,
    D: torch.Tensor | None = None,
    dt_bias: torch.Tensor | None = None,
    initial_states: torch.Tensor | None = None,
    dt_softplus: bool = False,
    dt_limit: tuple[float, float] = (0.0, float("inf")),
    return_final_states: bool = False,
    **kwargs,
):
    batch_size, sequence_length, num_heads, head_dim = hidden_states.shape
    num_groups = B.shape[2]

    if dt_bias is not None:
        dt = dt + dt_bias.to(dt.dtype)
    if dt_softplus:
        dt = F.softplus(dt)
    dt = torch.clamp(dt, min=dt_limit[0], max=dt_limit[1])

    hidden_states = hidden_states.float()
    B = B.float().repeat_interleave(num_heads // num_groups, dim=2, output_size=num_heads)
    C = C.float().repeat_interleave(num_heads // num_groups, dim=2, output_size=num_heads)

    pad_size = (chunk_size - sequence_length % chunk_size) % chunk_size
    D_residual = None
    if D is not None:
        D_residual = D[..., None] * pad_tensor_by_size(hidden_states, pad_size)

    # Discretize x and A
    hidden_states = hidden_states * dt[..., None].float()
    A = A.to(hidden_states.dtype) * dt.float()

    # Rearrange into blocks/chunks. This fixes the layout the einsums below are written against:
    # b = batch, c = chunk index, l and s = positions within a chunk, h = head, p = head_dim,
    # n = ssm state. So hidden_states is (b, c, l, h, p) and B and C are (b, c, l, h, n).
    hidden_states, A, B, C = [reshape_into_chunks(tensor, pad_size, chunk_size) for tensor in (hidden_states, A, B, C)]

    A = A.permute(0, 3, 1, 2)
    A_cumsum = torch.cumsum(A, dim=-1)

    # 1. Compute the output for each intra-chunk (diagonal blocks)
    # This is the analog of a causal mask
    L = torch.exp(segment_sum(A))

    # Contraction of C and B to get G (attention-weights like): sum over the state n, leaving a
    # position-by-position score per head. (b,c,l,h,n) x (b,c,s,h,n) -> (b,c,l,s,h).
    G = torch.einsum("bclhn,bcshn->bclsh", C, B)

    # Compute M, equivalent to applying attention mask to weights
    M = G * L.permute(0, 2, 3, 4, 1)

    # Compute Y_diag (apply to values): sum over the source position s. (b,c,l,s,h) x (b,c,s,h,p)
    # -> (b,c,l,h,p).
    Y_diag = torch.einsum("bclsh,bcshp->bclhp", M, hidden_states)

    # 2. Compute the state for each intra-chunk
    # (right term of low-rank factorization of off-diagonal blocks; B terms)
    decay_states = torch.exp(A_cumsum[:, :, :, -1:] - A_cumsum)
    B_decay = B * decay_states.permute(0, -2, -1, 1)[..., None]
    # Sum over the positions l in the chunk: (b,c,l,h,n) x (b,c,l,h,p) -> (b,c,h,p,n).
    states = torch.einsum("bclhn,bclhp->bchpn", B_decay, hidden_states)

    # 3. Compute the inter-chunk SSM recurrence; produces correct SSM states at chunk boundaries
    # (middle term of factorization of off-diag blocks; A terms)
    previous_states = (
        initial_states[:, None].to(dtype=states.dtype, device=states.device)
        if initial_states is not None
        else torch.zeros_like(states[:, :1])
    )
    states = torch.cat([previous_states, states], dim=1)
    decay_chunk = torch.exp(segment_sum(F.pad(A_cumsum[:, :, :, -1], (1, 0)))).transpose(1, 3)
    # Sum over the source chunk z to get each chunk's start state: (b,z,c,h) x (b,z,h,p,n) -> (b,c,h,p,n).
    new_states = torch.einsum("bzch,bzhpn->bchpn", decay_chunk, states)
    states, final_state = new_states[:, :-1], new_states[:, -1]

    # 4. Compute state -> output conversion per chunk
    # (left term of low-rank factorization of off-diagonal blocks; C terms)
    state_decay_out = torch.exp(A_cumsum)
    # Sum over the state n again, now against each chunk's start state: (b,c,l,h,n) x (b,c,h,p,n)
    # -> (b,c,l,h,p).
    C_times_states = torch.einsum("bclhn,bchpn->bclhp", C, states)
    Y_off = C_times_states * state_decay_out.permute(0, 2, 3, 1)[..., None]

    # Add output of intra-chunk and inter-chunk terms (diagonal and off-diagonal blocks).
    # `contiguous` because einsum may return a permuted view, and callers such as FalconH1Mixer
    # call `.view()` on this return value, which a permuted view refuses.
    output = (Y_diag + Y_off).contiguous()
    output = output.reshape(batch_size, -1, num_heads, head_dim)

    if D_residual is not None:
        output = output + D_residual

    # Cutting off padded chunks
    if pad_size > 0:
        output = output[:, :sequence_length]

    if return_final_states:
        return output, final_state

    return output


@use_kernel_forward_from_hub("mamba2_scan_forward")
def mamba2_scan_forward(
    module: nn.Module,
    hidden_states: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    dt: torch.Tensor,
    cache: Cache | None,
    **kwargs,
) -> torch.Tensor:
    """
    Selective scan of a Mamba2 layer (state space duality, SSD), reading and updating its recurrent state in `cache`.
    Layers list it in `use_kernelized_func`, so that `kernelize` can replace it, e.g. with a runtime that manages the
    recurrent state itself.

    Args:
        module (`nn.Module`):
            The mixer, from which `A_log`, `D`, `dt_bias`, `time_step_limit`, `chunk_size`, `layer_idx` and the layer
            geometry are read.
        hidden_states (`torch.Tensor` of shape `(batch_size, seq_len, num_heads * head_dim)`):
            The input to the scan.
        B (`torch.Tensor` of shape `(batch_size, seq_len, n_groups * ssm_state_size)`):
            The input projection of the state space model.
        C (`torch.Tensor` of shape `(batch_size, seq_len, n_groups * ssm_state_size)`):
            The output projection of the state space model.
        dt (`torch.Tensor` of shape `(batch_size, seq_len, num_heads)`):
            The time step, before `dt_bias` and softplus.
        cache (`Cache`, *optional*):
            The cache holding the recurrent state, updated in place.
        kwargs:
            Passed to the scan kernels.

    Returns:
        `torch.Tensor` of shape `(batch_size, seq_len, num_heads * head_dim)`: The output of the scan, including the
        `D` skip connection.
    """
    batch_size, seq_len, _ = hidden_states.shape
    recurrent_state = cache.get_recurrent_state(module.layer_idx, state_idx=0) if cache is not None else None
    A = -torch.exp(module.A_log.float())

    # Recurrent form
    if recurrent_state is not None and seq_len == 1:
        hidden_states = hidden_states.view(batch_size, module.num_heads, module.head_dim)
        dt = dt.transpose(1, 2).expand(-1, -1, module.head_dim)
        A = A[:, None, None].expand(-1, module.head_dim, module.ssm_state_size)
        B = B.view(batch_size, module.n_groups, module.ssm_state_size)
        C = C.view(batch_size, module.n_groups, module.ssm_state_size)
        D = module.D[:, None].expand(-1, module.head_dim)
        dt_bias = module.dt_bias[:, None].expand(-1, module.head_dim)
        # We need to clone here because the kernel below updates it in-place, and we want out-of-place for the Cache in case
        # we record the history
        next_state = recurrent_state.clone()
        scan_output = mamba2_selective_state_update(
            next_state, hidden_states, dt, A, B, C, D, z=None, dt_bias=dt_bias, dt_softplus=True, **kwargs
        )
        cache.update_recurrent_state(next_state, module.layer_idx)
        return scan_output.view(batch_size, 1, -1)

    # Chunked form
    num_intermediate_recurrent_states = (
        cache.get_recurrent_states_to_keep(module.layer_idx) if cache is not None else 0
    )
    # Cannot be more than the number of tokens
    num_intermediate_recurrent_states = min(num_intermediate_recurrent_states, seq_len)
    # Since we want the last num_intermediate_recurrent_states, we need to artifically remove them from the chunks, and split the inputs
    effective_sequence_length = seq_len - num_intermediate_recurrent_states
    chunked_hidden_states, sequential_hidden_states = torch.tensor_split(
        hidden_states, [effective_sequence_length], dim=1
    )
    chunked_dt, sequential_dt = torch.tensor_split(dt, [effective_sequence_length], dim=1)
    chunked_B, sequential_B = torch.tensor_split(B, [effective_sequence_length], dim=1)
    chunked_C, sequential_C = torch.tensor_split(C, [effective_sequence_length], dim=1)

    all_outputs = []
    # First, perform the fast scan computation (if we don't need only sequential)
    scan_output = mamba2_chunk_scan(
        chunked_hidden_states.view(batch_size, effective_sequence_length, module.num_heads, module.head_dim),
        chunked_dt,
        A,
        chunked_B.view(batch_size, effective_sequence_length, module.n_groups, module.ssm_state_size),
        chunked_C.view(batch_size, effective_sequence_length, module.n_groups, module.ssm_state_size),
        chunk_size=module.chunk_size,
        D=module.D,
        z=None,
        return_final_states=cache is not None,
        dt_bias=module.dt_bias,
        dt_softplus=True,
        initial_states=recurrent_state,
        dt_limit=module.time_step_limit,
        **kwargs,
    )
    last_scan_recurrent_state = recurrent_state
    # The number of outputs varies depending on the flag
    if cache is not None:
        scan_output, last_scan_recurrent_state = scan_output
    # Collect it
    all_outputs.append(scan_output.reshape(batch_size, effective_sequence_length, module.intermediate_size))

    # If we need to return intermediate recurrent state, we now do it sequentially after the chunked part
    intermediate_recurrent_states = []
    last_recurrent_state = (
        last_scan_recurrent_state if last_scan_recurrent_state is not None else A.new_zeros(B.shape[0], *A.shape)
    )
    for i in range(num_intermediate_recurrent_states):
        local_output = mamba2_selective_state_update(
            last_recurrent_state,
            sequential_hidden_states[:, i].view(batch_size, module.num_heads, module.head_dim),
            sequential_dt[:, i : i + 1].transpose(1, 2).expand(-1, -1, module.head_dim),
            A[:, None, None].expand(-1, module.head_dim, module.ssm_state_size),
            sequential_B[:, i].view(batch_size, module.n_groups, module.ssm_state_size),
            sequential_C[:, i].view(batch_size, module.n_groups, module.ssm_state_size),
            module.D[:, None].expand(-1, module.head_dim),
            z=None,
            dt_bias=module.dt_bias[:, None].expand(-1, module.head_dim),
            dt_softplus=True,
            **kwargs,
        )
        # Combine them
        all_outputs.append(local_output.view(batch_size, 1, -1))
        # Note that we need to copy here to correctly store them since it's updated in-place
        intermediate_recurrent_states.append(last_recurrent_state.clone())

    # Cat all outputs
    scan_output = torch.cat(all_outputs, dim=1)

    # In case we needed intermediate states, we return them, otherwise the last one is the chunked one
    last_recurrent_state = (
        intermediate_recurrent_states if len(intermediate_recurrent_states) > 0 else last_scan_recurrent_state
    )
    if cache is not None:
        cache.update_recurrent_state(last_recurrent_state, module.layer_idx)

    return scan_output


class Mamba2RMSNormGated(torch.nn.Module):
    def __init__(self, hidden_size, group_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        self.group_size = group_size

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        if gate is not None:
            hidden_states = hidden_states * nn.functional.silu(gate.to(torch.float32))
        *prefix_dims, last_dim = hidden_states.shape
        group_count = last_dim // self.group_size
        hidden_states_group = hidden_states.view(*prefix_dims, group_count, self.group_size)
        variance = hidden_states_group.pow(2).mean(-1, keepdim=True)
        hidden_states_group = hidden_states_group * torch.rsqrt(variance + self.variance_epsilon)
        hidden_states = hidden_states_group.view(*prefix_dims, group_count * self.group_size)
        return self.weight * hidden_states.to(input_dtype)


@use_kernel_func_from_hub_with_fallback("mamba_split_conv1d_scan_combined", "mamba_ssm")
def mamba2_split_conv1d_scan_combined(
    zxbcdt: torch.Tensor,
    conv1d_weight: torch.Tensor,
    conv1d_bias: torch.Tensor | None,
    dt_bias: torch.Tensor,
    A: torch.Tensor,
    D: torch.Tensor,
    chunk_size: int,
    initial_states: torch.Tensor | None = None,
    dt_limit: tuple[float, float] = (0.0, float("inf")),
    return_final_states: bool = False,
    activation: str = "silu",
    rmsnorm_weight: torch.Tensor | None = None,
    rmsnorm_eps: float = 1e-6,
    outproj_weight: torch.Tensor | None = None,
    outproj_bias: torch.Tensor | None = None,
    headdim: int | None = None,
    ngroups: int = 1,
    norm_before_gate: bool = True,
    **kwargs,
):
    return None


@use_kernelized_func(
    [
        causal_conv1d_forward,
        causal_conv1d_fn,
        causal_conv1d_update,
        mamba2_split_conv1d_scan_combined,
        mamba2_scan_forward,
        mamba2_selective_state_update,
        mamba2_chunk_scan,
    ]
)
class Mamba2Mixer(nn.Module):
    """
    Compute ∆, A, B, C, and D the state space parameters and compute the `contextualized_states`.
    A, D are input independent (see Mamba paper [1] Section 3.5.2 "Interpretation of A" for why A isn't selective)
    ∆, B, C are input-dependent (this is a key difference between Mamba and the linear time invariant S4,
    and is why Mamba is called **selective** state spaces)
    """

    def __init__(self, config: Mamba2Config, layer_idx: int, initialize_mixer_weights: bool = True):
        super().__init__()
        self.num_heads = config.num_heads
        self.hidden_size = config.hidden_size
        self.ssm_state_size = config.state_size
        self.conv_kernel_size = config.conv_kernel
        self.intermediate_size = int(config.expand * self.hidden_size)
        self.time_step_rank = int(config.time_step_rank)
        self.layer_idx = layer_idx
        self.use_conv_bias = config.use_conv_bias
        self.activation = config.hidden_act
        self.act = ACT2FN[config.hidden_act]

        self.layer_norm_epsilon = config.layer_norm_epsilon

        self.n_groups = config.n_groups
        self.head_dim = config.head_dim
        self.chunk_size = config.chunk_size

        self.time_step_limit = config.time_step_limit
        self.time_step_min = config.time_step_min
        self.time_step_max = config.time_step_max
        self.time_step_floor = config.time_step_floor

        self.conv_dim = self.intermediate_size + 2 * self.n_groups * self.ssm_state_size
        self.conv1d = nn.Conv1d(
            in_channels=self.conv_dim,
            out_channels=self.conv_dim,
            bias=config.use_conv_bias,
            kernel_size=config.conv_kernel,
            groups=self.conv_dim,
            padding=config.conv_kernel - 1,
        )

        # projection of the input hidden states
        projection_size = self.intermediate_size + self.conv_dim + self.num_heads
        self.in_proj = nn.Linear(
            self.hidden_size,
            projection_size,
            bias=config.use_bias,
        )
        # selective projection used to make dt, B and C input dependent

        # time step projection (discretization)
        self.dt_bias = nn.Parameter(torch.empty(self.num_heads))

        # S4D real initialization. These are not discretized!
        # The core is to load them, compute the discrete states, then write the updated state. Keeps the memory bounded
        self.A_log = nn.Parameter(torch.empty(self.num_heads))
        self.norm = Mamba2RMSNormGated(
            self.intermediate_size, group_size=self.intermediate_size // self.n_groups, eps=self.layer_norm_epsilon
        )
        self.D = nn.Parameter(torch.empty(self.num_heads))
        if initialize_mixer_weights and self.dt_bias.device.type != "meta":
            self.init_mamba2_weights()

        self.out_proj = nn.Linear(self.intermediate_size, self.hidden_size, bias=config.use_bias)
        self.use_bias = config.use_bias

        self.layer_type = config.layer_types[layer_idx]

    @torch.no_grad()
    def init_mamba2_weights(self):
        A = torch.arange(1, self.num_heads + 1, device=self.A_log.device, dtype=torch.float32)
        init.copy_(self.A_log, torch.log(A))
        init.ones_(self.D)

        dt = torch.exp(
            torch.rand(self.num_heads, device=self.dt_bias.device, dtype=torch.float32)
            * (math.log(self.time_step_max) - math.log(self.time_step_min))
            + math.log(self.time_step_min)
        ).clamp(min=self.time_step_floor)

        # Inverse of softplus: https://github.com/pytorch/pytorch/issues/72759
        inv_dt = dt + torch.log(-torch.expm1(-dt))
        init.copy_(self.dt_bias, inv_dt)

    @force_accelerate_hooks("conv1d")
    @deprecate_kwarg("cache_params", "5.40.0", new_name="cache")
    def forward(
        self,
        hidden_states: torch.Tensor,
        cache: Cache | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ):
        batch_size, seq_len, _ = hidden_states.shape
        dtype = hidden_states.dtype
        # 1. Gated MLP's linear projection
        hidden_states = apply_mask_to_padding_states(hidden_states, attention_mask)
        projected_states = self.in_proj(hidden_states)

        A = -torch.exp(self.A_log.float())
        fused_kwargs = kwargs | {"dt_limit": self.time_step_limit}
        if self.training and cache is None:
            fused_output = mamba2_split_conv1d_scan_combined(
                projected_states,
                self.conv1d.weight.squeeze(1),
                self.conv1d.bias,
                self.dt_bias,
                A,
                D=self.D,
                chunk_size=self.chunk_size,
                activation=self.activation,
                rmsnorm_weight=self.norm.weight,
                rmsnorm_eps=self.norm.variance_epsilon,
                outproj_weight=self.out_proj.weight,
                outproj_bias=self.out_proj.bias,
                headdim=self.head_dim,
                ngroups=self.n_groups,
                norm_before_gate=False,
                return_final_states=False,
                **fused_kwargs,
            )

            # Only kernels can use this shortcircuit, fallback to normal torch otherwise
            if fused_output is not None:
                return fused_output

        gate, hidden_states_B_C, dt = projected_states.split(
            [self.intermediate_size, self.conv_dim, self.num_heads], dim=-1
        )

        # 2. Convolution sequence transformation
        hidden_states_B_C = hidden_states_B_C.transpose(1, 2)
        hidden_states_B_C = causal_conv1d_forward(
            self.conv1d,
            hidden_states_B_C,
            cache,
            self.layer_idx,
            activation=self.activation,
            **kwargs,
        )

        # 3. SSM transformation
        hidden_states_B_C = apply_mask_to_padding_states(hidden_states_B_C.transpose(1, 2), attention_mask)
        hidden_states, B, C = torch.split(
            hidden_states_B_C,
            [self.intermediate_size, self.n_groups * self.ssm_state_size, self.n_groups * self.ssm_state_size],
            dim=-1,
        )

        scan_output = mamba2_scan_forward(self, hidden_states, B, C, dt, cache, **kwargs)

        # 4. Gated norm and final linear projection
        scan_output = self.norm(scan_output, gate)
        contextualized_states = self.out_proj(scan_output.to(dtype))
        return contextualized_states


class Mamba2RMSNorm(MambaRMSNorm):
    pass


class Mamba2Block(MambaBlock):
    @deprecate_kwarg("cache_params", "5.40.0", new_name="cache")
    def forward(
        self,
        hidden_states,
        cache: Cache | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ):
        residual = hidden_states
        hidden_states = self.norm(hidden_states.to(dtype=self.norm.weight.dtype))
        if self.residual_in_fp32:
            residual = residual.to(torch.float32)

        hidden_states = self.mixer(hidden_states, cache=cache, attention_mask=attention_mask, **kwargs)
        hidden_states = residual + hidden_states
        return hidden_states


@auto_docstring
class Mamba2PreTrainedModel(MambaPreTrainedModel):
    config: Mamba2Config
    _no_split_modules = ["Mamba2Block"]
    _can_compile_fullgraph = True
    _can_record_outputs = {"hidden_states": Mamba2Block}


class Mamba2Output(MambaOutput):
    pass


class Mamba2CausalLMOutput(MambaCausalLMOutput):
    pass


@auto_docstring
class Mamba2Model(MambaModel):
    @merge_with_config_defaults
    @capture_outputs
    @auto_docstring
    @deprecate_kwarg("cache_params", "5.40.0", new_name="cache")
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        inputs_embeds: torch.LongTensor | None = None,
        cache: Cache | None = None,
        use_cache: bool | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs: Unpack[TransformersKwargs],
    ) -> Mamba2Output:
        r"""
        cache (`Cache`, *optional*):
            If passed along, the model uses the previous state in all the blocks (which will give the output for the
            `input_ids` provided as if the model add `state_input_ids + input_ids` as context).
        use_cache (`bool`, *optional*):
            If set to `True`, the `cache` is returned and can be used to quickly generate the next logits.
        """
        if (input_ids is None) ^ (inputs_embeds is not None):
            raise ValueError("You must specify exactly one of input_ids or inputs_embeds")

        if inputs_embeds is None:
            inputs_embeds = self.embeddings(input_ids)

        if use_cache and cache is None:
            cache = DynamicCache(config=self.config)

        attention_mask = create_recurrent_attention_mask(
            config=self.config,
            inputs_embeds=inputs_embeds,
            attention_mask=attention_mask,
            cache=cache,
        )

        hidden_states = inputs_embeds
        for mixer_block in self.layers:
            hidden_states = mixer_block(hidden_states, cache=cache, attention_mask=attention_mask, **kwargs)

        hidden_states = self.norm_f(hidden_states)

        return Mamba2Output(last_hidden_state=hidden_states, cache=cache if use_cache else None)


@auto_docstring(
    custom_intro="""
    The MAMBA2 Model transformer with a language modeling head on top (linear layer with weights not tied to the input
    embeddings).
    """
)
class Mamba2ForCausalLM(MambaForCausalLM):
    @can_return_tuple
    @auto_docstring
    @deprecate_kwarg("cache_params", "5.40.0", new_name="cache")
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        cache: Cache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        attention_mask: torch.Tensor | None = None,
        logits_to_keep: int | torch.Tensor = 0,
        **kwargs: Unpack[TransformersKwargs],
    ) -> Mamba2CausalLMOutput:
        r"""
        cache (`Cache`, *optional*):
            If passed along, the model uses the previous state in all the blocks (which will give the output for the
            `input_ids` provided as if the model add `state_input_ids + input_ids` as context).
        labels (`torch.LongTensor` of shape `(batch_size, sequence_length)`, *optional*):
            Labels for language modeling. Note that the labels **are shifted** inside the model, i.e. you can set
            `labels = input_ids` Indices are selected in `[-100, 0, ..., config.vocab_size]` All labels set to `-100`
            are ignored (masked), the loss is only computed for labels in `[0, ..., config.vocab_size]`
        use_cache (`bool`, *optional*):
            If set to `True`, the `cache` is returned and can be used to quickly generate the next logits.
        """
        outputs: Mamba2Output = self.backbone(
            input_ids,
            cache=cache,
            inputs_embeds=inputs_embeds,
            use_cache=use_cache,
            attention_mask=attention_mask,
            **kwargs,
        )

        hidden_states = slice_logits_to_keep(outputs.last_hidden_state, logits_to_keep)
        logits = self.lm_head(hidden_states.to(self.lm_head.weight.dtype)).float()

        loss = None
        if labels is not None:
            loss = self.loss_function(logits=logits, labels=labels, vocab_size=self.config.vocab_size, **kwargs)

        return Mamba2CausalLMOutput(
            loss=loss,
            logits=logits,
            cache=outputs.cache,
            hidden_states=outputs.hidden_states,
        )


__all__ = ["Mamba2ForCausalLM", "Mamba2Model", "Mamba2PreTrainedModel"]
