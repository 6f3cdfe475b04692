"""Number format of the Q network's matrix products while training (``DMCConfig.precision``).

Why: on two cores the DMC learner's Adam steps bound the run's decisions/s (benchmarks/
bench_train.py reports the split), and most of a step is the first layer's products of a
1,024-row batch. CPUs with native bfloat16 dot products (x86 AVX512-BF16 or AMX) run those
products in bfloat16 about 1.4x faster for the full preset's network. Autocast keeps the
weights, the optimiser state, the loss and every reduction in float32; only the products of
the linear layers (and the card-feature tables, whose integer counts are exact in bfloat16)
take 8-bit mantissas. Where the CPU lacks the instructions bfloat16 is emulated and slower, so
``"auto"`` picks it only where it is native.

On a CUDA learner (``TrainerConfig.device``) the same setting autocasts on the GPU instead:
``"auto"`` picks bfloat16 where the GPU computes it natively (``torch.cuda.is_bf16_supported``,
Ampere and later), and the CPU's instructions do not matter.

Only the learner's steps use it: the actors score batches of a few dozen to a few hundred rows,
where casting the weights on every call costs about as much as bfloat16 saves (slower at 32
rows, at most 1.3x faster at 128). Policy files and ``PolicyAgent`` always use float32: the format
only changes how fast the trainer computes, not what it stores.
"""

from __future__ import annotations

import torch
from torch import nn

from training.config import PRECISIONS


def native_bfloat16(device_type: str = "cpu") -> bool:
    """Whether the device multiplies bfloat16 matrices in hardware.

    CPU: AVX512-BF16 or AMX tiles; CUDA: what ``torch.cuda.is_bf16_supported`` reports.
    """
    if device_type == "cuda":
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    cpu = torch.cpu
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(cpu, name, lambda: False)()) for name in checks)


def resolve_precision(name: str, device_type: str = "cpu") -> torch.dtype:
    """Map a ``precision`` setting to the dtype of the products (``"auto"`` asks the device).

    ``device_type`` is the learner's (``torch.device.type``: ``"cpu"`` or ``"cuda"``).
    """
    if name not in PRECISIONS:
        raise ValueError(f"precision: must be one of {PRECISIONS}; got {name!r}")
    if name == "bfloat16" or (name == "auto" and native_bfloat16(device_type)):
        return torch.bfloat16
    return torch.float32


def q_values(net: nn.Module, obs: torch.Tensor, dtype: torch.dtype,
             device_type: str = "cpu") -> torch.Tensor:
    """``net(obs)`` with its products in ``dtype``, returned as float32.

    ``device_type`` is where ``net`` and ``obs`` are (the autocast's device). Gradients flow
    as usual: this is the learner's forward pass.
    """
    if dtype == torch.float32:
        return net(obs)
    with torch.autocast(device_type, dtype=dtype):
        q = net(obs)
    return q.float()
