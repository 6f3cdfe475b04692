"""Where a network runs: the one place a device setting becomes a ``torch.device``.

Why one place: the trainers' ``device`` field (``training.config.TrainerConfig``), the
``policy:PATH,device=...`` and ``search:device=...`` agent specs and the GPU benchmark all take
the same four kinds of text, and a machine without CUDA must refuse ``"cuda"`` with the same
message wherever it is asked for: naming the setting, the value, and what torch found (a
CPU-only build, or a CUDA build that sees no GPU), before any work starts, not as a device
error deep in the first forward pass.

==============  ==============================================================================
``"auto"``      CUDA device 0 when ``torch.cuda.is_available()``, else the CPU
``"cpu"``       the CPU
``"cuda"``      the current CUDA device (refused where torch sees none)
``"cuda:N"``    CUDA device ``N`` (refused where torch sees fewer than ``N + 1``)
==============  ==============================================================================

It lives in ``agents`` (the lowest room with torch) so that the agents and the trainers above
them share it.
"""

from __future__ import annotations

import re

import torch

DEVICES = ("auto", "cpu", "cuda", "cuda:N")
"""The forms a device setting may take (``N``: a CUDA device's index)."""

_CUDA = re.compile(r"cuda(?::(\d{1,3}))?")


class DeviceError(ValueError):
    """A device setting names no device this machine has; the message says what was found."""


def cuda_found() -> str:
    """Describe the CUDA devices torch sees here, for error messages and benchmark reports."""
    build = torch.version.cuda
    if build is None:
        return f"torch {torch.__version__} sees no CUDA device (a CPU-only build)"
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        return (f"torch {torch.__version__} (built for CUDA {build}) sees no CUDA device "
                "(no GPU visible, or no driver)")
    names = ", ".join(f"cuda:{i} {torch.cuda.get_device_name(i)}" for i in range(count))
    return f"torch {torch.__version__} sees {count} CUDA device(s): {names}"


def resolve_device(setting: object, what: str = "device") -> torch.device:
    """Turn a device setting into a ``torch.device``, refusing one this machine lacks.

    ``what`` names the setting in the error (a config field, an agent option), so that a
    message can be traced to the option that caused it. ``"auto"`` never fails.
    """
    if not isinstance(setting, str):
        raise DeviceError(f"{what}: must be one of {', '.join(map(repr, DEVICES))}; got "
                          f"{setting!r} ({type(setting).__name__})")
    text = setting.strip()
    if text == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if text == "cpu":
        return torch.device("cpu")
    match = _CUDA.fullmatch(text)
    if match is None:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise DeviceError(f"{what}: must be one of {', '.join(map(repr, DEVICES))} (N a CUDA "
                          f"device's index); got {shown!r}")
    if not torch.cuda.is_available():
        raise DeviceError(f"{what}: {text!r} asked for, but {cuda_found()}; use {what}='cpu' "
                          "or 'auto'")
    index = match.group(1)
    if index is not None and int(index) >= torch.cuda.device_count():
        raise DeviceError(f"{what}: {text!r} asked for, but {cuda_found()}; use one of "
                          f"cuda:0 to cuda:{torch.cuda.device_count() - 1}, or 'auto'")
    return torch.device(text)


def cpu_state_dict(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """Return CPU copies of a module's weights, whatever device it is on.

    Copies, not views: what the copy goes to (an actor's queue, a snapshot, a file) must not
    see the learner's next steps, and a CPU copy loads on a machine without a GPU.
    """
    return {k: v.detach().to("cpu", copy=True) for k, v in module.state_dict().items()}


__all__ = ["DEVICES", "DeviceError", "cpu_state_dict", "cuda_found", "resolve_device"]
