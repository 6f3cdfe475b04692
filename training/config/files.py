"""A run's ``config.json``: written whole, read back within bounds and checked field by field."""

from __future__ import annotations

import json

from training.config.checks import ConfigError
from training.config.presets import FORMER_DEFAULTS, Config, config_from_dict

MAX_CONFIG_BYTES = 2**20
"""Largest ``config.json`` read (a real one is a few kilobytes)."""


def save_config(cfg: Config, path: str) -> None:
    """Write ``config.json``."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cfg.to_dict(), f, indent=2, sort_keys=True)


def load_config(path: str, device: str | None = None) -> Config:
    """Read a run's ``config.json``; a damaged or foreign file raises ``ConfigError`` naming it.

    A field the file lacks (it was written before the field existed) takes the value that file
    meant: the default of that time, which for a few fields is not today's default. The file is
    read within the bounds of ``gongzhu_env.integrity.strict_loads`` and every field is
    validated (``config_from_dict``) before a resumed run uses it. ``device``, if given,
    replaces the file's before that check: the device belongs to the machine, not to the run,
    so a run started with ``device="cuda"`` can resume on a machine without one.
    """
    from gongzhu_env.integrity import StrictJSONError, printable, strict_loads

    name = printable(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{name}: larger than {MAX_CONFIG_BYTES:,} bytes; not a run's "
                              "config.json")
        data = strict_loads(raw.decode("utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read {name}: {printable(e.strerror or e)}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{name} is not UTF-8 text; expected a run's config.json") from None
    except StrictJSONError as e:
        raise ConfigError(f"{name} is damaged: {e}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{name} must hold a JSON object of config fields, got "
                          f"{type(data).__name__}")
    former = FORMER_DEFAULTS["sb3" if data.get("trainer") == "sb3" else "dmc"]
    try:
        machine = {} if device is None else {"device": device}
        return config_from_dict({**former, **data, **machine})
    except (ValueError, TypeError) as e:  # ConfigError, or a value no check foresaw
        raise ConfigError(f"{name}: {printable(e, 400)}") from None
