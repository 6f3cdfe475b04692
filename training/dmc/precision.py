"""Number format of the Q network's matrix products while training (``DMCConfig.precision``).

Why: on two cores the DMC learner's Adam steps bound the run's decisions/s (benchmarks/
bench_train.py reports the split), and most of a step is the first layer's products of a
1,024-row batch. CPUs with native bfloat16 dot products (x86 AVX512-BF16 or AMX) run those
products in bfloat16 about 1.4x faster for the full preset's network. Autocast keeps the
weights, the optimiser state, the loss and every reduction in float32; only the products of
the linear layers (and the card-feature tables, whose integer counts are exact in bfloat16)
take 8-bit mantissas. Where the CPU lacks the instructions bfloat16 is emulated and slower, so
``"auto"`` picks it only where it is native.

Only the learner's steps use it: the actors score batches of a few dozen to a few hundred rows,
where casting the weights on every call costs about as much as bfloat16 saves (slower at 32
rows, at most 1.3x faster at 128). Policy files and ``PolicyAgent`` always use float32: the format
only changes how fast the trainer computes, not what it stores.
"""

from __future__ import annotations

import torch
from torch import nn

from training.config import PRECISIONS


def native_bfloat16() -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (AVX512-BF16 or AMX tiles)."""
    cpu = torch.cpu
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(cpu, name, lambda: False)()) for name in checks)


def resolve_precision(name: str) -> torch.dtype:
    """Map a ``precision`` setting to the dtype of the products (``"auto"`` asks the CPU)."""
    if name not in PRECISIONS:
        raise ValueError(f"precision: must be one of {PRECISIONS}; got {name!r}")
    if name == "bfloat16" or (name == "auto" and native_bfloat16()):
        return torch.bfloat16
    return torch.float32


def q_values(net: nn.Module, obs: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``net(obs)`` with its products in ``dtype``, returned as float32.

    Gradients flow as usual: this is the learner's forward pass.
    """
    if dtype == torch.float32:
        return net(obs)
    with torch.autocast("cpu", dtype=dtype):
        q = net(obs)
    return q.float()
