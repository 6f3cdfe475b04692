"""Label sets on disk: the files expert iteration writes and the learner reads.

A label set is a directory: ``labels.json`` (the manifest: format, search spec, rules, seed,
chunk size, the search network's digest) and chunks ``chunk-NNNNN.npz``, each written whole
(``write_chunk``) and checked whole when read (``read_chunk``: identity stamp, shapes, types,
ranges). Making labels needs the search (``training.expert_iteration.labels``); reading them
needs only numpy, so this module sits below the configs and the Deep Monte-Carlo learner,
which check and load sets (``check_label_set``, ``load_label_sets``) without importing the
search.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from agents.search import CLIP
from gongzhu_env.rules import Rules
from gongzhu_env.view import obs_size

FORMAT = 1
MANIFEST = "labels.json"
MAX_CHUNKS = 100_000
"""Most chunks of a set: chunk files are numbered with five digits (``chunk_path``), and a
sixth would be a file that neither ``--resume`` nor the loader sees."""

class LabelError(ValueError):
    """A label set is missing, damaged, or belongs to another search or rule set."""


def chunk_path(out: Path, chunk: int) -> Path:
    """File of one chunk's labels."""
    return out / f"chunk-{chunk:05d}.npz"


def write_chunk(out: Path, identity: dict[str, Any], chunk: int,
                arrays: dict[str, np.ndarray]) -> Path:
    """Write one chunk whole: to a temporary name, then renamed (never half a file)."""
    path = chunk_path(out, chunk)
    tmp = path.with_suffix(".tmp.npz")
    stamp = json.dumps({"identity": identity, "chunk": chunk}, sort_keys=True)
    np.savez_compressed(tmp, identity=np.array(stamp), **arrays)
    os.replace(tmp, path)
    return path


# ---------------------------------------------------------------------------- reading
def read_manifest(out: Path) -> dict[str, Any]:
    """Return a label set's manifest (``LabelError`` if missing or unreadable)."""
    path = out / MANIFEST
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LabelError(f"{out}: not a label set (no {MANIFEST}); make one with "
                         "python -m training labels --out DIR") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise LabelError(f"{path}: cannot be read as a label manifest ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise LabelError(f"{path}: not a label manifest of format {FORMAT}")
    return doc


def read_chunk(path: Path, identity: dict[str, Any], chunk: int, width: int,
               num_actions: int) -> tuple[np.ndarray, np.ndarray]:
    """Read one chunk and check it belongs to ``identity`` and holds valid labels."""
    def bad(problem: str) -> LabelError:
        return LabelError(f"{path}: {problem}")

    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in ("identity", "obs", "tgt", "hand")}
    except KeyError as e:
        raise bad(f"missing array {e}") from None
    except (OSError, ValueError) as e:
        raise bad(f"cannot be read as a label chunk ({e})") from None
    try:
        stamp = json.loads(str(arrays["identity"]))
    except json.JSONDecodeError:
        raise bad("its identity stamp is not JSON") from None
    if stamp != {"identity": identity, "chunk": chunk}:
        raise bad("was written for another label set or chunk (its identity stamp differs "
                  "from labels.json)")
    obs, tgt, hand = arrays["obs"], arrays["tgt"], arrays["hand"]
    n = len(obs)
    if obs.dtype != np.uint8 or obs.shape != (n, width):
        raise bad(f"obs must be uint8 of shape (n, {width}); got {obs.dtype} {obs.shape}")
    if tgt.dtype != np.float32 or tgt.shape != (n, num_actions):
        raise bad(f"tgt must be float32 of shape ({n}, {num_actions}); got {tgt.dtype} "
                  f"{tgt.shape}")
    if hand.shape != (n,):
        raise bad(f"hand must have one entry per label; got shape {hand.shape}")
    labelled = ~np.isnan(tgt)
    if n and (labelled.sum(axis=1) < 2).any():
        raise bad("a label row values fewer than two cards")
    if np.abs(tgt[labelled]).max(initial=0.0) > CLIP:
        raise bad(f"a value lies outside [-{CLIP:g}, {CLIP:g}]")
    return obs, tgt


def check_label_set(out: str | os.PathLike[str], rules: Rules) -> dict[str, Any]:
    """Return the manifest of a label set made for ``rules``; ``LabelError`` if it is not one.

    Reads only ``labels.json``, so a run's config can be checked before training starts;
    the chunks are checked when they are loaded.
    """
    out = Path(out)
    doc = read_manifest(out)
    try:
        have = Rules.from_dict(doc["rules"])
    except (KeyError, TypeError, ValueError) as e:
        raise LabelError(f"{out / MANIFEST}: its rules are not valid rules ({e})") from None
    if have != rules:
        raise LabelError(f"{out}: labels were made for other rules than the run's "
                         f"({have.to_dict()} != {rules.to_dict()})")
    return doc


def load_labels(out: str | os.PathLike[str], rules: Rules, width: int | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Every finished chunk of a label set for ``rules``: ``(obs uint8, tgt float32)``.

    Refused (``LabelError``) when the set was made for other rules, when any chunk is damaged
    or foreign, or when it holds no label yet.
    """
    out = Path(out)
    doc = check_label_set(out, rules)
    width = obs_size(rules) if width is None else width
    parts = [read_chunk(path, doc, int(path.stem.split("-")[1]), width, rules.num_actions)
             for path in sorted(out.glob("chunk-[0-9][0-9][0-9][0-9][0-9].npz"))]
    if not parts or sum(len(p[0]) for p in parts) == 0:
        raise LabelError(f"{out}: the label set has no finished chunk yet")
    return _pooled(parts)


def _pooled(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Join ``(obs, tgt)`` parts row-wise, in order."""
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def label_dirs(joined: str) -> list[str]:
    """Split a ``search_labels`` setting into its label directories.

    One directory, or several joined with ``os.pathsep`` (as in ``PATH``), so that sets made
    in other runs or sessions train together.
    """
    return [part for part in joined.split(os.pathsep) if part]


def load_label_sets(joined: str, rules: Rules, width: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Every label of the sets named by ``joined`` (``label_dirs``), one after another.

    Each set is checked as ``load_labels`` checks it; a set with no finished chunk is refused
    rather than skipped, since a mistyped directory would otherwise shrink the data unseen.
    """
    dirs = label_dirs(joined)
    if not dirs:
        raise LabelError(f"no label directory given in {joined!r}: expected one directory, "
                         f"or several joined with {os.pathsep!r}")
    parts = [load_labels(d, rules, width) for d in dirs]
    return _pooled(parts)
