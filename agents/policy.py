"""Trained neural policies: the network, the checkpoint format and the ``policy:`` agent.

A policy file is one ``torch.save`` of a plain dict (tensors, strings, numbers, lists), so it is
loaded with ``torch.load(..., weights_only=True)`` and never executes pickled code:

=============  ================================================================================
key            meaning
=============  ================================================================================
format         the string ``"gongzhu-policy"`` (anything else is not a policy file)
version        format version, ``1``
kind           ``"q"``: the network outputs one value per action (Deep Monte-Carlo), or
               ``"logits"``: masked action logits (an actor of an actor-critic)
state_dict     the network weights
architecture   ``{"obs_size": int, "num_actions": int, "hidden": [int, ...],
               "card_features": bool, "holder_features": bool, "players": int}`` (a flag
               absent in older files: false; ``players``, the table size the feature
               builders read, is written for networks with features and absent: four)
rules          ``Rules.to_dict()`` of the rule set the policy was trained for
episode        ``"hand"`` (single hands) or ``"match"`` (whole matches, whose observation adds
               the match blocks); absent in older files: ``"hand"``
rules_mix      only for one network trained at tables of several rule sets: their
               ``to_dict()`` list (``rules`` is then the first); with ``rule_features``, the
               names of the rule features its input ends with (``agents.rule_features``)
obs_size       length of the observation it reads: ``gongzhu_env.view.obs_size(rules, match)``
               of the rules and episode above (600 for single hands of the standard game)
trainer        which trainer wrote it (``"dmc"``, ``"sb3-maskable-ppo"``)
metadata       free-form facts about the run (preset, decisions trained, wall-clock seconds)
=============  ================================================================================

Loading checks the format, and that the observation size and the action count are the ones
the file's own rules and episode give (``obs_size(rules, match)``, ``rules.num_actions``): the
size belongs to the rules, so a team-play policy reads 604 values, a standard one 600, a
standard match policy 605, and a two-deck policy scores 105 actions. Given the table's rules,
loading also checks the rule set; without them the agent takes the rules it was trained for and
refuses, at ``reset``, a table whose rules differ. Either way ``PolicyLoadError`` names what
differs, so a policy is never silently played under rules or an observation layout it was not
trained for. The table size is one of the rules (``players``, RULES.md 6.14): a policy trained
for ``n`` seats plays at tables of ``n`` seats only, and the error of a policy brought to a
table of another size names both sizes first.

Either kind is played the same way: encode the view, one forward pass, the highest-scoring
legal action (``argmax`` over the legal mask). A match policy plays a lone hand as the first
hand of a match (cumulative scores zero), and a hand policy plays a hand of a match without
the match blocks (it was never shown them), so either can sit at either kind of table.
 ``make_agent("policy:PATH")`` and
``make_agent("policy:pretrained")`` (the file shipped in ``agents/pretrained/``) build one;
``policy:PATH,device=cuda`` plays it on a GPU (``agents.devices``; a file always loads to the
CPU first, so files written on either kind of machine load on both).
"""

from __future__ import annotations

import copy
import numbers
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.base import Agent, AgentError
from agents.card_features import NUM_FEATURES, CardFeatures
from agents.devices import DeviceError, resolve_device
from agents.holder_features import HolderFeatures, num_holder_features
from agents.rule_features import MixedInput, rules_label
from gongzhu_env.match import EPISODES
from gongzhu_env.rules import Rules, count_word
from gongzhu_env.view import PlayerView, obs_size

FORMAT = "gongzhu-policy"
FORMAT_VERSION = 1
KINDS = ("q", "logits")
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"
PRETRAINED_FILE = "gongzhu_dmc_full.pt"
SELF_PLAY_FILE = "gongzhu_dmc_full_selfplay.pt"
"""The standard ``full`` run alone (seed 0, 90 minutes of self-play), before expert iteration:
``policy:pretrained`` until the expert-iteration network replaced it, kept so that the
measurements made with it can be repeated (``policy:gongzhu_dmc_full_selfplay.pt``)."""
SHIPPED: dict[str, str] = {
    "standard": PRETRAINED_FILE,
    "scrofazero": "gongzhu_dmc_full_scrofazero.pt",
    "huapai": "gongzhu_dmc_full_huapai.pt",
    "two_decks": "gongzhu_dmc_full_two_decks.pt",
    "three_players": "gongzhu_dmc_full_3p.pt",
    "five_players": "gongzhu_dmc_full_5p.pt",
}
"""Table -> the policy shipped for it (``shipped_rules`` says which rules each name means).

The standard one is the ``full`` preset's run (seed 0) followed by three rounds of expert
iteration at a mixed table (``python -m training recipe``; docs/search.md); the others are
``full`` runs, seed 0 (the huapai one trained for the two hours the preset may use, the two-deck
one for the preset's 90 minutes; docs/training.md).

``policy:pretrained`` picks the one trained for the table's rules. The tables of three and five
players play the standard rules at that size (``Rules(players=3)``, ``Rules(players=5)``):
``full`` runs on the batched engine (docs/models/)."""

TABLE_SIZES: dict[str, int] = {"three_players": 3, "five_players": 5}
"""The shipped tables that are the standard rules at another table size, not a preset."""


def shipped_rules(name: str) -> Rules:
    """Return the rules of the shipped table ``name`` (a key of ``SHIPPED``)."""
    if name in TABLE_SIZES:
        return Rules(players=TABLE_SIZES[name])
    return Rules.preset(name)


MAX_HIDDEN_LAYERS = 16
"""Most hidden layers a network may have. The trained networks have two or three; the bound
stops a list of thousands of widths (in a config or a policy file) from building thousands of
modules before anything else is checked."""
MAX_LAYER_WIDTH = 16_384
"""Widest hidden layer. The shipped networks are at most 512 wide; one layer of 16,384 reading
the standard game's 1,120 inputs (observation and card features) already holds 18 million
weights, near ``MAX_PARAMETERS``."""
MAX_PARAMETERS = 20_000_000
"""Most weights and biases a network may have: 80 MB of float32. A trainer keeps several
copies of its network (gradients, Adam's two moments, up to ``snapshot_pool_size`` frozen
snapshots, one per actor), so this bounds a run's network memory to a few gigabytes; the
shipped network has 0.7 million. It is checked from the architecture alone, before any tensor
is allocated, so a width of a billion in a config or a policy file is refused instead of
asking the allocator for terabytes."""
MAX_POLICY_BYTES = 8 * MAX_PARAMETERS + 2**24
"""Largest policy file read: the weights of the largest network allowed, even stored as
float64, and 16 MiB for everything else. A larger file cannot be a policy this version would
build, and is refused before ``torch.load`` reads it into memory."""


class PolicyLoadError(AgentError):
    """A policy file is missing, corrupt, or was trained for other rules or another shape."""


def _brief(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut and escaped: an error quotes bad input, not megabytes of it."""
    from gongzhu_env.integrity import printable

    return printable(repr(value), limit)


def check_hidden(hidden: object) -> list[int]:
    """Return the hidden layer widths as a list of ints; ``ValueError`` says what is expected.

    Integers only (numpy's too): a bool, a float such as ``1e9`` or a string is refused by its
    type, and a width outside ``1..MAX_LAYER_WIDTH`` or more than ``MAX_HIDDEN_LAYERS`` layers
    by its size, so neither a config nor a policy file can make torch allocate an absurd layer.
    """
    if isinstance(hidden, (str, bytes)) or not isinstance(hidden, Sequence) or not hidden:
        raise ValueError(f"hidden layer widths must be a non-empty list of positive integers; "
                         f"got {_brief(hidden)}")
    if len(hidden) > MAX_HIDDEN_LAYERS:
        raise ValueError(f"a network has at most {MAX_HIDDEN_LAYERS} hidden layers; got "
                         f"{len(hidden):,}")
    for h in hidden:
        if isinstance(h, bool) or not isinstance(h, numbers.Integral) \
                or not 1 <= int(h) <= MAX_LAYER_WIDTH:
            raise ValueError(f"hidden layer widths must be positive integers up to "
                             f"{MAX_LAYER_WIDTH:,}; got {_brief(list(hidden))}")
    return [int(h) for h in hidden]


def parameter_count(in_width: int, hidden: Sequence[int], num_actions: int) -> int:
    """Weights and biases of an MLP from ``in_width`` inputs through ``hidden`` to the actions."""
    widths = [in_width, *hidden, num_actions]
    return sum((a + 1) * b for a, b in zip(widths, widths[1:], strict=False))


def plan_network(obs_size: int, num_actions: int, hidden: Sequence[int], *,
                 card_features: bool = False, holder_features: bool = False,
                 players: int | None = None) -> tuple[list[int], int | None, int]:
    """Check a network's shape without building it; return ``(hidden, players, input width)``.

    ``QNetwork`` builds from this plan, and a config or a policy file is checked with it before
    anything is allocated. ``ValueError`` names what is wrong: a width or count out of bounds,
    a table size that does not fit the observation, or more than ``MAX_PARAMETERS`` weights.
    """
    widths = check_hidden(hidden)
    for name, value in (("obs_size", obs_size), ("num_actions", num_actions)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {_brief(value)}")
    # The action count tells the game: two decks have pair leads (105 actions) and their card
    # features count copies.
    two_decks = num_actions == Rules(decks=2).num_actions
    if card_features or holder_features:
        players = _feature_seats(int(obs_size), players, two_decks)
    seats = players or 4
    width = (int(obs_size) + (NUM_FEATURES if card_features else 0)
             + (num_holder_features(seats) if holder_features else 0))
    count = parameter_count(width, widths, int(num_actions))
    if count > MAX_PARAMETERS:
        raise ValueError(f"a network of {width:,} inputs, hidden widths {widths} and "
                         f"{num_actions} actions has {count:,} weights; at most "
                         f"{MAX_PARAMETERS:,} are built (80 MB of float32, kept several times "
                         "over in training)")
    return widths, players, width


class QNetwork(nn.Module):
    """An MLP from the observation vector to one score per action (``rules.num_actions``).

    For the Deep Monte-Carlo trainer the scores are the expected hand results Q(s, a); every
    action shares the trunk, so what is learnt about one card carries over to the others.
    ``card_features=True`` feeds the trunk the per-card trick features of
    ``agents.card_features`` next to the observation, and ``holder_features=True`` the
    per-seat "who may hold each card" features of ``agents.holder_features`` (both computed,
    not learnt).

    ``players`` is the table size of the observations, which the feature builders need to
    find their blocks (a plain MLP reads any vector and ignores it). Left ``None`` with
    features it is read off ``obs_size``: the observations of different table sizes do not
    overlap in length (``seats_of_width``), so a trainer that only passes the width of its
    rules' observation builds the right features. Given, it must fit ``obs_size``.
    """

    def __init__(self, obs_size: int | None = None, num_actions: int | None = None,
                 hidden: Sequence[int] = (512, 512, 256), card_features: bool = False,
                 holder_features: bool = False, players: int | None = None) -> None:
        super().__init__()
        # None: the standard game's observation; other rule sets pass obs_size(rules).
        obs_size = obs_size if obs_size is not None else _standard_obs_size()
        num_actions = num_actions if num_actions is not None else Rules().num_actions
        self.card_features = bool(card_features)
        self.holder_features = bool(holder_features)
        # Every size is checked before a layer is allocated.
        self.hidden, self.players, width = plan_network(
            obs_size, num_actions, hidden, card_features=self.card_features,
            holder_features=self.holder_features, players=players)
        self.obs_size, self.num_actions = int(obs_size), int(num_actions)
        two_decks = self.num_actions == Rules(decks=2).num_actions
        seats = self.players or 4
        self.features = CardFeatures(two_decks, seats) if self.card_features else None
        self.holders = HolderFeatures(seats) if self.holder_features else None
        layers: list[nn.Module] = []
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, self.num_actions))
        self.net = nn.Sequential(*layers)

    @classmethod
    def from_architecture(cls, arch: Mapping[str, Any]) -> QNetwork:
        """Build an untrained network of a stored ``architecture()``.

        Files written before a feature flag existed do not name it: they have none.
        """
        return cls(arch["obs_size"], arch["num_actions"], arch["hidden"],
                   card_features=bool(arch.get("card_features", False)),
                   holder_features=bool(arch.get("holder_features", False)),
                   players=arch.get("players"))

    def architecture(self) -> dict[str, Any]:
        """Return the constructor arguments, as stored in a policy file.

        ``players`` only when it was given or the features needed it (a plain network of
        an unknown table size has none).
        """
        arch = {"obs_size": self.obs_size, "num_actions": self.num_actions,
                "hidden": list(self.hidden), "card_features": self.card_features,
                "holder_features": self.holder_features}
        if self.players is not None:
            arch["players"] = self.players
        return arch

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Scores of shape ``(batch, num_actions)``."""
        parts = [obs]
        if self.features is not None:
            parts.append(self.features(obs))
        if self.holders is not None:
            parts.append(self.holders(obs))
        return self.net(torch.cat(parts, dim=1) if len(parts) > 1 else obs)




def _base_width(players: int) -> int:
    """Length of the base observation (no variant block) at a one-deck table of ``players``."""
    return obs_size(Rules(players=players))


def seats_of_width(width: int) -> int | None:
    """Table size whose observations are ``width`` values long, or ``None`` if none fits.

    A table of ``n`` seats encodes at least its base layout and less than the base layout of
    ``n + 1`` seats: the variant blocks (a few per-seat rows, 56 for first-drawn exposure)
    and a rules mix's rule features add far less than the 130-odd values one more seat adds.
    """
    sizes = list(range(3, 9))
    for n in reversed(sizes):
        if width >= _base_width(n):
            return n
    return None


def _feature_seats(width: int, players: int | None, two_decks: bool) -> int:
    """Return the table size the feature builders of a network of ``width`` inputs read.

    Raises ``ValueError`` when the given ``players`` does not fit the width, or none does.
    """
    if two_decks:
        if players not in (None, 4):
            raise ValueError(f"a two-deck network plays at four seats; got players={players!r}")
        return 4
    seats = seats_of_width(width)
    if seats is None:
        raise ValueError(f"a network with card or holder features reads the observation of a "
                         f"table of 3 to 8 seats (at least {_base_width(3)} values); got "
                         f"obs_size={width}")
    if players is not None and players != seats:
        raise ValueError(f"a network of {width} inputs reads the observation of a table of "
                         f"{count_word(seats)} seats, not players={players!r}")
    return seats


def network_episode(net: QNetwork, rules: Rules) -> str:
    """Return the episode (``"hand"`` or ``"match"``) whose observation ``net`` reads.

    The match blocks make a match observation longer than a hand's, so the size decides.
    Raises ``ValueError`` when the network fits neither, or scores another number of actions.
    """
    if net.num_actions != rules.num_actions:
        raise ValueError(f"the network scores {net.num_actions} actions, but these rules have "
                         f"{rules.num_actions}: it cannot be their policy")
    for episode in EPISODES:
        if net.obs_size == obs_size(rules, episode == "match"):
            return episode
    raise ValueError(f"the network reads {net.obs_size} values, but the observation of these "
                     f"rules has {obs_size(rules)} (single hands) or {obs_size(rules, True)} "
                     "(matches): it cannot be their policy")


def _check_feature_seats(players: int | None, mix: Sequence[Rules], what: str) -> None:
    """Refuse a network whose feature builders read another table size than its rules'."""
    if players is None:
        return
    sizes = sorted({r.players for r in mix})
    if sizes != [players]:
        raise ValueError(f"the network's features read a table of {count_word(players)} "
                         f"seats, but {what} are for "
                         f"{' and '.join(count_word(n) for n in sizes)} players")


def policy_dict(net: QNetwork, rules: Rules, *, kind: str = "q", trainer: str = "dmc",
                metadata: Mapping[str, Any] | None = None,
                mixed: MixedInput | None = None) -> dict[str, Any]:
    """Build the dict a policy file holds (see the module docstring).

    ``mixed``: the network plays every rule set of this mix (``rules`` is ignored).
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    extra: dict[str, Any] = {}
    if mixed is not None:
        _check_feature_seats(net.players, mixed.mix, "the mix")
        rules = mixed.mix[0]
        if net.obs_size != mixed.width or net.num_actions != rules.num_actions:
            raise ValueError(f"the network reads {net.obs_size} values into {net.num_actions} "
                             f"actions; the mix needs {mixed.width} into {rules.num_actions}")
        episode = "hand"
        extra = {"rules_mix": [r.to_dict() for r in mixed.mix],
                 "rule_features": list(mixed.names)}
    else:
        episode = network_episode(net, rules)
        _check_feature_seats(net.players, (rules,), "these rules")
    return {**extra,
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "kind": kind,
        "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
        "architecture": net.architecture(),
        "rules": rules.to_dict(),
        "episode": episode,
        "obs_size": net.obs_size,
        "trainer": trainer,
        "metadata": dict(metadata or {}),
    }


def save_policy(path: str | os.PathLike[str], net: QNetwork, rules: Rules, *, kind: str = "q",
                trainer: str = "dmc", metadata: Mapping[str, Any] | None = None,
                mixed: MixedInput | None = None) -> Path:
    """Write a policy file atomically (a crash never leaves half a file under ``path``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(policy_dict(net, rules, kind=kind, trainer=trainer, metadata=metadata,
                           mixed=mixed), tmp)
    os.replace(tmp, path)
    return path


def pretrained_path(rules: Rules | None = None) -> Path:
    """Return the shipped policy trained for ``rules`` (default: the standard game).

    Raises ``PolicyLoadError`` naming what is shipped when no policy is trained for them.
    """
    want = rules or Rules()
    for table, name in SHIPPED.items():
        if shipped_rules(table) == want:
            return PRETRAINED_DIR / name
    sizes = sorted({shipped_rules(table).players for table in SHIPPED})
    if want.players not in sizes:
        raise PolicyLoadError(
            f"no policy is shipped for a table of {count_word(want.players)} players: the "
            f"shipped ones ({sorted(SHIPPED)}) are trained for tables of "
            f"{', '.join(map(str, sizes))}. Train one for this table with: gongzhu train "
            f"--rules ... (players={want.players})")
    raise PolicyLoadError(
        f"no policy is shipped for these rules ({rule_differences(Rules(), want)}); "
        f"'policy:pretrained' has one for each of the tables {sorted(SHIPPED)}. Train one "
        f"for this table with: gongzhu train --rules ...")


def resolve_policy_path(path_or_name: str | os.PathLike[str],
                        rules: Rules | None = None) -> Path:
    """Resolve a policy spec's path: ``"pretrained"``, a shipped file name, or a path.

    ``"pretrained"`` is the shipped policy for ``rules``; a bare file name found in
    ``agents/pretrained/`` is that file; anything else is a path on disk.
    """
    text = os.fspath(path_or_name).strip()
    if not text:
        raise PolicyLoadError("policy spec needs a path, e.g. 'policy:runs/quick/policy.pt', "
                              "or 'policy:pretrained'")
    if text == "pretrained":
        return pretrained_path(rules)
    path = Path(text).expanduser()
    if not path.exists() and (PRETRAINED_DIR / text).exists():
        return PRETRAINED_DIR / text
    return path


def load_policy_file(path_or_name: str | os.PathLike[str],
                     rules: Rules | None = None) -> tuple[QNetwork, dict[str, Any]]:
    """Load and check a policy file; return the network (in eval mode) and the file's dict.

    ``rules`` is the rule set of the table the policy will play at; a file trained for another
    rule set is refused, naming the options that differ. ``None`` accepts the rules the file
    was trained for (the agent then checks each table at ``reset``).
    """
    path = resolve_policy_path(path_or_name, rules)
    if not path.is_file():
        raise PolicyLoadError(f"policy file not found: {path}")
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    cached = _CACHE.get(key)
    if cached is None:
        cached = _CACHE[key] = _read_policy(path)
    net, data = cached
    mixed = policy_mix(data, path)
    if mixed is not None:
        if rules is not None and rules not in mixed:
            raise PolicyLoadError(f"{path} was trained for the rule sets {_mix_text(mixed)}; "
                                  f"the table's rules ({rules_label(rules)}) are not among "
                                  "them")
    elif rules is not None and trained_rules(data, path) != rules:
        raise rules_mismatch(str(path), trained_rules(data, path), rules, is_shipped(path))
    return net, data


def policy_mix(data: Mapping[str, Any], path: object = "policy") -> MixedInput | None:
    """Return the rules mix of a mixed-rules policy file (``None`` for a one-rule-set file)."""
    if "rules_mix" not in data:
        return None
    try:
        return MixedInput([Rules.from_dict(r) for r in data["rules_mix"]],
                          [str(n) for n in data["rule_features"]])
    except (KeyError, TypeError, ValueError) as e:
        raise PolicyLoadError(f"{path}: its rules mix is not valid ({e})") from None


def _mix_text(mixed: MixedInput) -> str:
    return ", ".join(rules_label(r) for r in mixed.mix)


def is_shipped(path: Path) -> bool:
    """Whether a resolved policy path is one of the files shipped in ``agents/pretrained/``."""
    return path.resolve().parent == PRETRAINED_DIR.resolve()


def rules_mismatch(what: str, have: Rules, table: Rules, shipped: bool) -> PolicyLoadError:
    """Build the error for a policy trained for other rules than its table's, naming them.

    For a shipped file it says what is shipped: asking for ``policy:pretrained`` at a variant
    table means there is no shipped policy for it, and the fix is to train one.
    """
    diff = rule_differences(have, table)
    if have.players != table.players:
        # The table size first: the network reads another layout and plays other hands, so
        # no other option matters until it is right.
        return PolicyLoadError(
            f"{'the shipped policy ' if shipped else ''}{what} was trained for a table of "
            f"{count_word(have.players)} players and cannot play at this table of "
            f"{count_word(table.players)} (players={have.players}, table: {table.players}); "
            f"a policy plays only at the table size it was trained for (rules that differ: "
            f"{diff})")
    if shipped:
        return PolicyLoadError(
            f"the shipped policy {what} is trained for other rules ({diff}); "
            f"'policy:pretrained' has one for each of the tables {sorted(SHIPPED)}. "
            f"Train one for this table with: gongzhu train --rules ...")
    return PolicyLoadError(f"{what} was trained for rules {diff}, which the table's rules do "
                           f"not match")


def trained_rules(data: Mapping[str, Any], path: object = "policy") -> Rules:
    """Return the ``Rules`` a policy file was trained for.

    Options added to ``Rules`` after the file was written take their defaults (a file from
    before an option existed was trained without it); an option the file names that no longer
    exists is an error.
    """
    try:
        return Rules.from_dict(data["rules"])
    except (KeyError, TypeError, ValueError) as e:
        raise PolicyLoadError(f"{path}: the rules it was trained for are not valid rules of "
                              f"this version ({e})") from None


def rule_differences(have: Rules, table: Rules) -> str:
    """Name the options in which a policy's rules differ from a table's, with both values."""
    mine, theirs = have.to_dict(), table.to_dict()
    diff = {k: (mine[k], theirs[k]) for k in theirs if mine.get(k) != theirs[k]}
    return ", ".join(f"{k}={a!r} (table: {b!r})" for k, (a, b) in diff.items()) or "?"


def _standard_obs_size() -> int:
    """Observation length of the standard rules, the default of networks built without rules."""
    return obs_size(Rules())


# Loaded files by (path, mtime, size). The arena builds a fresh agent for every hand from its
# spec; without this each hand would re-read and re-check the file. Agents share the network
# read-only (inference only), which is safe.
_CACHE: dict[tuple[str, int, int], tuple[QNetwork, dict[str, Any]]] = {}


def _read_policy(path: Path) -> tuple[QNetwork, dict[str, Any]]:
    """Read and check one policy file (everything but the rule set, which the caller checks)."""
    nbytes = path.stat().st_size
    if nbytes > MAX_POLICY_BYTES:
        raise PolicyLoadError(f"{path} is {nbytes:,} bytes, larger than any policy this version "
                              f"builds (at most {MAX_POLICY_BYTES:,}: {MAX_PARAMETERS:,} "
                              "weights); not a policy file")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises several types for truncated or foreign files
        raise PolicyLoadError(f"cannot read policy file {path}: it is corrupt or not a "
                              f"torch policy file ({type(e).__name__}: {e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PolicyLoadError(f"{path} is not a Gong Zhu policy file (expected a dict with "
                              f"format={FORMAT!r})")
    if data.get("version") != FORMAT_VERSION:
        raise PolicyLoadError(f"{path}: policy format version {data.get('version')!r} is not "
                              f"supported; expected {FORMAT_VERSION}")
    if not isinstance(data.get("rules"), dict):
        raise PolicyLoadError(f"{path}: the file does not record the rules it was trained for")
    episode = data.get("episode", "hand")
    if episode not in EPISODES:
        raise PolicyLoadError(f"{path}: unknown episode {episode!r}; expected one of {EPISODES}")
    rules = trained_rules(data, path)
    mixed = policy_mix(data, path)
    size = mixed.width if mixed is not None else obs_size(rules, episode == "match")
    if data.get("obs_size") != size:
        raise PolicyLoadError(
            f"{path} was trained on observations of size {data.get('obs_size')}, but this "
            f"version of gongzhu_env encodes {size} values for its rules; retrain the policy")
    if data.get("kind") not in KINDS:
        raise PolicyLoadError(f"{path}: unknown policy kind {data.get('kind')!r}; "
                              f"expected one of {KINDS}")
    arch = data.get("architecture")
    if not isinstance(arch, dict):
        raise PolicyLoadError(f"{path}: its architecture must be a dict of the network's "
                              f"sizes; got {_brief(arch)}")
    if arch.get("obs_size") != size or arch.get("num_actions") != rules.num_actions:
        raise PolicyLoadError(f"{path}: network shape {_brief(arch, 200)} does not read {size} "
                              f"observations into {rules.num_actions} actions")
    shape = _checked_architecture(path, arch, mixed.mix if mixed is not None else (rules,))
    _check_weights(path, data.get("state_dict"), shape)
    net = QNetwork.from_architecture(arch)
    try:
        net.load_state_dict(data["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise PolicyLoadError(f"{path}: weights do not match the stored architecture "
                              f"{arch} ({e})") from None
    net.eval()
    return net, data


def _checked_architecture(path: Path, arch: Mapping[str, Any],
                          mix: Sequence[Rules]) -> dict[str, tuple[int, ...]]:
    """Check a file's stored architecture; return the shape of each tensor it must hold.

    Types and bounds first (``plan_network``: widths, layer count, weights), then the shapes
    from a network built on torch's ``meta`` device, which allocates no memory: a file that
    names a huge network is refused before a byte of it is allocated.
    """
    for flag in ("card_features", "holder_features"):
        if type(arch.get(flag, False)) is not bool:
            raise PolicyLoadError(f"{path}: architecture {flag} must be true or false; got "
                                  f"{_brief(arch.get(flag))}")
    players = arch.get("players")
    if players is not None and type(players) is not int:
        raise PolicyLoadError(f"{path}: architecture players must be a table size; got "
                              f"{_brief(players)}")
    try:
        if "hidden" not in arch:
            raise ValueError("it names no hidden layer widths")
        _, players, _ = plan_network(
            arch["obs_size"], arch["num_actions"], arch["hidden"],
            card_features=arch.get("card_features", False),
            holder_features=arch.get("holder_features", False), players=players)
        _check_feature_seats(players, mix, "the rules it was trained for")
    except ValueError as e:
        raise PolicyLoadError(f"{path}: its stored architecture cannot be built ({e})") from None
    with torch.device("meta"):
        shell = QNetwork.from_architecture(arch)
    return {k: tuple(v.shape) for k, v in shell.state_dict().items()}


def _check_weights(path: Path, weights: object, shape: Mapping[str, tuple[int, ...]]) -> None:
    """Refuse weights that are not the architecture's tensors, or that are not all finite.

    A NaN or infinite weight makes every score NaN, and the argmax over NaN is the first legal
    action: such a network would load silently and always play its lowest legal card.
    """
    if not isinstance(weights, dict):
        raise PolicyLoadError(f"{path}: its weights (state_dict) must be a dict of tensors; "
                              f"got {type(weights).__name__}")
    missing, extra = sorted(set(shape) - set(weights)), sorted(set(weights) - set(shape), key=str)
    if missing or extra:
        raise PolicyLoadError(f"{path}: weights do not match the stored architecture (missing "
                              f"{_brief(missing)}, unexpected {_brief(extra)})")
    for name, want in shape.items():
        t = weights[name]
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            raise PolicyLoadError(f"{path}: weights {name} must be a tensor of floats; got "
                                  f"{type(t).__name__}")
        if tuple(t.shape) != want:
            raise PolicyLoadError(f"{path}: weights do not match the stored architecture: "
                                  f"{name} has shape {tuple(t.shape)}, expected {want}")
        if not bool(torch.isfinite(t).all()):
            raise PolicyLoadError(f"{path}: weights {name} hold NaN or infinite values; a "
                                  "network with them scores every action NaN and plays its "
                                  "lowest legal card. Retrain it or restore a good copy")


class PolicyAgent(Agent):
    """Plays the legal action a trained network scores highest; deterministic by default.

    ``temperature > 0`` samples from a softmax over the legal scores instead (with the agent's
    seeded generator), for variety in human play; the arena uses the default argmax.
    ``mixed``: the network plays every rule set of a mix (``agents.rule_features``) and reads
    the table's rules from its input; ``rules`` is then the mix's first. ``device``: where the
    forward passes run (``agents.devices``); off the CPU the agent plays with its own copy of
    the network there (the given one, maybe shared through the file cache, stays put), and
    each view's observation follows it. One view a call is too small a batch for a GPU to
    pay, so the CPU is the default.
    """

    name = "policy"

    def __init__(self, net: QNetwork, rules: Rules | None = None, *, seed: int | None = None,
                 temperature: float = 0.0, label: str = "policy",
                 mixed: MixedInput | None = None, device: str | torch.device = "cpu") -> None:
        super().__init__(seed)
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0; got {temperature}")
        self.device = (device if isinstance(device, torch.device)
                       else resolve_device(device, "device"))
        """Where the network runs (its inputs are moved there, its scores back)."""
        if self.device.type != "cpu":
            net = copy.deepcopy(net).to(self.device)
        self.net = net.eval()
        self.mixed = mixed
        self.rules = mixed.mix[0] if mixed is not None else rules or Rules()
        self.temperature = float(temperature)
        self.name = label
        if mixed is not None:
            if net.obs_size != mixed.width:
                raise PolicyLoadError(f"policy {label!r}: its network reads {net.obs_size} "
                                      f"values; its rules mix gives {mixed.width}")
            self.episode = "hand"
        else:
            try:
                self.episode = network_episode(net, self.rules)
            except ValueError as e:
                raise PolicyLoadError(f"policy {label!r}: {e}") from None
        self._obs = np.empty(net.obs_size, dtype=np.float32)
        self.shipped = False
        """Whether the network is a shipped file (``agents/pretrained/``): errors say so."""

    def reset(self, seat: int, rules: Rules) -> None:
        """Refuse to sit at a table whose rules the policy was not trained for."""
        if self.mixed is not None:
            if rules not in self.mixed:
                raise PolicyLoadError(f"policy {self.name!r} was trained for the rule sets "
                                      f"{_mix_text(self.mixed)}; the table's rules "
                                      f"({rules_label(rules)}) are not among them")
        elif rules != self.rules:
            raise rules_mismatch(f"policy {self.name!r}", self.rules, rules, self.shipped)

    def scores(self, view: PlayerView) -> np.ndarray:
        """Return the network's score of each action (illegal ones too)."""
        if self.mixed is not None:
            self.mixed.write(view, self._obs)
        else:
            _in_episode(view, self.episode == "match").encode(out=self._obs)
        with torch.inference_mode():
            # from_numpy shares the buffer; built per call so a deep copy of the agent (the
            # arena copies agents per seat) never reads a stale buffer.
            x = torch.from_numpy(self._obs).unsqueeze(0)
            if self.device.type == "cpu":
                return self.net(x)[0].numpy().copy()
            return self.net(x.to(self.device))[0].cpu().numpy()

    def act(self, view: PlayerView) -> int:
        """Play the legal action the network scores highest."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        q = self.scores(view)[legal]
        if self.temperature > 0:
            z = (q - q.max()) / self.temperature
            p = np.exp(z)
            return legal[int(self.rng.choice(len(legal), p=p / p.sum()))]
        return legal[int(np.argmax(q))]


def _in_episode(view: PlayerView, match: bool) -> PlayerView:
    """Return ``view`` as a view of the episode kind a network was trained on.

    A match network at a lone hand sees it as the first hand of a match (nothing scored yet);
    a hand network in a match sees the hand without the match blocks it never learnt from.
    """
    if (view.match_scores is not None) == match:
        return view
    v = copy.copy(view)
    if match:
        v.match_scores, v.hand_number, v.match_result = (0,) * view.rules.players, 0, None
    else:
        v.match_scores, v.hand_number, v.match_result = None, 0, None
    return v


def load_policy_agent(path_or_name: str | os.PathLike[str], seed: int | None = None, *,
                      rules: Rules | None = None, temperature: float = 0.0,
                      device: object = "cpu") -> PolicyAgent:
    """Build a ``PolicyAgent`` from a policy file path or ``"pretrained"``.

    ``rules``: the table's rules, checked at once; ``None`` plays under the rules the file was
    trained for (and ``reset`` refuses any other table). ``device``: where its network runs
    (``agents.devices``; a file always loads to the CPU first, so it loads on any machine).
    """
    label = f"policy:{os.fspath(path_or_name)}"
    try:
        where = resolve_device(device, "device")
    except DeviceError as e:
        raise PolicyLoadError(f"{label}: {e}") from None
    net, data = load_policy_file(path_or_name, rules)
    agent = PolicyAgent(net, trained_rules(data, path_or_name), seed=seed,
                        temperature=temperature, label=label,
                        mixed=policy_mix(data, path_or_name), device=where)
    agent.shipped = is_shipped(resolve_policy_path(path_or_name, rules))
    return agent


__all__ = ["QNetwork", "PolicyAgent", "PolicyLoadError", "load_policy_agent",
           "load_policy_file", "save_policy", "policy_dict", "trained_rules", "rule_differences",
           "PRETRAINED_DIR", "PRETRAINED_FILE", "SHIPPED", "TABLE_SIZES", "shipped_rules",
           "pretrained_path", "EPISODES", "network_episode", "policy_mix", "check_hidden",
           "plan_network", "parameter_count",
           "MAX_HIDDEN_LAYERS", "MAX_LAYER_WIDTH", "MAX_PARAMETERS", "MAX_POLICY_BYTES"]
