"""Rule options of a Gong Zhu table.

``Rules()`` is the standard one-deck game of the rule book. Every house rule is a field of this
frozen dataclass, declared once with its default, its allowed values and a one-line meaning in
``_OPTIONS``; the engine and the scoring read the fields, nothing else decides rules. Options
are validated when a ``Rules`` is built, so a typo, a wrong type or a contradictory combination
fails at construction, not in the middle of a training run.

Variant readings
----------------
RULES.md section 6 is terse in places; these are the readings the engine implements.

* ``exposed_may_lead`` (6.1): an exposed card may open the first trick of its suit; a follower
  still may not play it to that trick (unless it is their only card of the suit).
* ``strict_exposure`` (6.2, Hua Pai): an exposed card may be neither led nor discarded before
  its suit has been led once; the follow restriction of the first trick of the suit stays, with
  its only-card exception. If that leaves a player no legal card, the restricted cards become
  legal (a player always has a legal card).
* ``first_lead="any"`` (6.3): the C2 holder leads the first trick with any card (exposure
  restrictions still apply).
* ``declaration`` (6.4): ``"free"`` is the standard declaration phase. ``"none"``: no exposure
  and no declaration phase at all. ``"all_but_sheep"`` (SQ, C10, HA exposed, DJ not) and
  ``"all"`` (all four exposed): the exposures are forced and applied right after the deal by
  their holders, with every effect of an exposed card; the declaration phase is skipped.
  ``auto_expose`` only matters with ``"free"``; with any other declaration it must be left at
  its default (``True``) or the rules are refused as contradictory.
* ``hidden_exposure`` (6.5, 暗卖): the others learn only how many cards a seat exposed (the
  view shows other seats' exposures as counts; their exposure actions appear in
  ``PlayerView.actions`` as ``HIDDEN_ACTION`` = -1). Values change as if exposed; hidden
  exposures restrict no play. Provisional scores in a view use only the exposures the observer
  knows. The auto-exposed fourth card is a hidden exposure of its holder too.
* ``first_drawn_exposure`` (6.6, 首明): the deal records each seat's first dealt card
  (``Game(seed)``: the first card of each seat's block of the shuffled deck; ``from_hands``:
  ``first_drawn=`` or ``hands[i][0]`` as given). Its holder knows it. When it is exposed, its
  effect is doubled again (SQ -400, DJ +400, C10 x8 and +200 alone, HA hearts x4), it carries no
  play restriction, and the doubling is public from the moment of exposure.
* ``self_capture_double`` (6.7, 自得): a seat that takes back its own exposed SQ, DJ, C10 or HA
  doubles that card's effect again (on top of any first-drawn doubling).
* ``discard_colour`` (6.8): legality does not change. A discard whose colour (red: D H, black:
  C S) differs from the led suit's while the player held a card of the led colour is
  "wrong-colour"; the first wrong-colour discarder of a trick (in play order) takes all the
  scoring cards of that trick instead of the winner; the winner still leads next
  (``Trick.winner`` stays the trick's winner; the captured cards tell who took them).
* ``hearts_table`` (6.9): ``"book"``: H9..H2 = -9, -8, -7, -6, -5, -10, -3, -2, the others
  standard, all hearts +200. ``"positive"``: HA 50, HK 40, HQ 30, HJ 20, H10..H2 10 each; all
  hearts = the sum (230) plus a +200 bonus = 430. An exposed HA doubles whatever table is used.
* ``pig_sheep_swap`` (6.10): for a player who took all 13 hearts (but not the grand slam), SQ
  and DJ swap values: SQ +100, DJ -100 (each still scaled by its exposure factors).
* ``team_play`` (section 5, 对家): partners 0 & 2 vs 1 & 3; each hand is scored per player (a
  team's split hearts are not all hearts); settlement gives each member of team A
  ``(A - B) / 2`` times the multiplier.
* ``pig_sheep_team`` (6.12, 猪羊一家): after the deal the SQ holder and the DJ holder form a
  team against the other two; no exposure (requires ``declaration="none"``). If one seat holds
  both, it plays alone against three: the lone seat settles ``S - T / 3`` (its score minus the
  mean of the other three) and each of the three gets minus a third of that, so the four sum
  to zero. The view tells each seat its partner(s).
* ``double_pig`` (6.13, 双猪): in a match the lowest and the highest cumulative scorer both
  lose; the two others win. Individual only (refused with team rules).
* ``players`` (6.14): 3 to 8 seats, one deck. ``removed_cards`` leave the deck, each seat gets
  ``hand_size`` cards and a hand has that many tricks; ``first_lead="club2"`` means "the holder
  of ``lead_card`` leads it" (C2, or S2 / C3 when C2 is out). Play passes from seat ``i`` to
  ``(i + 1) % players``. ``team_play`` needs an even count: partners ``i`` and
  ``i + players / 2`` (``fixed_teams``), and each member gets (own team minus the mean of the
  other teams) / 2. Refused for other sizes than four: ``decks=2`` and ``pig_sheep_team``
  (both are defined for four seats only). Auto-exposure, forced declarations and every other
  option read the same at any size.
* ``settlement="yuanbao"`` (section 5, coin rooms): the top scorer collects from every other
  seat the difference of their raw scores, times ``settlement_multiplier``; several top scorers
  split each payment evenly (a share that is not whole stays an exact fraction). Individual
  only (refused with team rules). It changes ``settle`` only: the env's rewards follow
  ``reward_mode``.
* Matches (section 5): hands follow one another until a cumulative raw score is
  ``<= match_threshold``, or, with ``match_end="either"``, also ``>= -match_threshold`` (a
  hand that crosses both ends the match once). Each later hand is led with any card by the
  previous hand's SQ taker (``next_leader="pig_taker"``; the first SQ's taker with two decks)
  or, with ``next_leader="biggest_loser"``, by the seat with the lowest raw score of the
  previous hand, a tie going to the tied seat first in play order from that hand's first
  leader. Each seat's own cumulative score counts, with teams too. The highest cumulative
  score wins (with ``team_play``: the team with the higher cumulative sum).
  ``gongzhu_env.match`` applies these rules; they change no hand.
"""

from __future__ import annotations

import dataclasses
import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gongzhu_env.cards import CLUBS, DIAMONDS, NUM_CARDS, SPADES, card

# name -> (allowed type, allowed values or None, meaning). The single table of options.
_OPTIONS: dict[str, tuple[type, tuple[Any, ...] | None, str]] = {
    "exposed_may_lead": (bool, None, "an exposed card may lead the first trick of its suit (6.1)"),
    "strict_exposure": (
        bool, None, "an exposed card is neither led nor discarded before its suit is led (6.2)"),
    "first_lead": (str, ("club2", "any"), "the first trick is led with C2 or with any card (6.3)"),
    "declaration": (
        str, ("free", "none", "all_but_sheep", "all"),
        "free choice, no exposure, or forced exposure of SQ C10 HA / of all four (6.4)"),
    "auto_expose": (
        bool, None, "three exposed cards expose the fourth (free declaration only, 6.4)"),
    "hidden_exposure": (bool, None, "others learn only how many cards were exposed (6.5)"),
    "first_drawn_exposure": (
        bool, None, "exposing one's first dealt card doubles its effect again (6.6)"),
    "self_capture_double": (
        bool, None, "taking back one's own exposed card doubles its effect again (6.7)"),
    "discard_colour": (
        bool, None, "the first wrong-colour discarder takes the trick's scoring cards (6.8)"),
    "hearts_table": (
        str, ("standard", "book", "positive"), "values of the hearts (6.9)"),
    "pig_sheep_swap": (bool, None, "after all hearts SQ and DJ swap values (6.10)"),
    "team_play": (bool, None, "fixed partners 0 & 2 vs 1 & 3 (section 5)"),
    "pig_sheep_team": (
        bool, None, "the SQ and DJ holders play as a team against the others (6.12)"),
    "double_pig": (
        bool, None, "in a match the lowest and the highest cumulative scorer both lose (6.13)"),
    "settlement_multiplier": (
        int, None, "settlement is multiplied by this (default 12 for one deck, 1 for two)"),
    "match_threshold": (
        int, None, "a match ends when a cumulative raw score is at or below this (negative)"),
    "decks": (int, (1, 2), "one deck of 52, or two decks of 104 with pairs (6.11)"),
    "players": (int, (3, 4, 5, 6, 7, 8), "seats at the table; low cards leave the deck (6.14)"),
    "settlement": (
        str, ("zero_sum", "yuanbao"),
        "zero-sum settlement, or coin rooms where the top scorer collects (section 5)"),
    "match_end": (
        str, ("loss", "either"),
        "a match ends at the threshold below zero only, or also at its opposite above (section 5)"),
    "next_leader": (
        str, ("pig_taker", "biggest_loser"),
        "each later hand of a match is led by the previous hand's SQ taker or its lowest scorer "
        "(section 5)"),
}


@dataclass(frozen=True)
class Rules:
    """The rule options of one table. ``Rules()`` is the standard game.

    Build variants by keyword (``Rules(strict_exposure=True)``), from a preset name
    (``Rules.preset("huapai")``) or from a mapping (``Rules.from_dict({...})``).
    ``dataclasses.replace(rules, ...)`` gives a modified copy and is validated the same way.
    The module docstring gives the reading of each variant.
    """

    exposed_may_lead: bool = False
    """RULES.md 6.1: an exposed card may open the first trick of its suit."""
    strict_exposure: bool = False
    """RULES.md 6.2: an exposed card may be neither led nor discarded before its suit is led
    (if that leaves no legal card, the restricted cards become legal)."""
    first_lead: str = "club2"
    """RULES.md 6.3: ``"club2"`` (the C2 holder leads C2) or ``"any"`` (any card)."""
    declaration: str = "free"
    """RULES.md 6.4: ``"free"``, ``"none"`` (no exposure, no declaration phase),
    ``"all_but_sheep"`` (SQ C10 HA forced exposed) or ``"all"`` (all four forced exposed)."""
    auto_expose: bool = None  # type: ignore[assignment]
    """RULES.md 3.2 / 6.4: with free declaration, three exposed cards expose the fourth.
    Left unset it is ``True`` for one deck and ``False`` for two (which have no auto-exposure);
    it always reads as a bool."""
    hidden_exposure: bool = False
    """RULES.md 6.5: exposures are announced as a count only; no play restriction."""
    first_drawn_exposure: bool = False
    """RULES.md 6.6: an exposed first-dealt card doubles again and is not restricted."""
    self_capture_double: bool = False
    """RULES.md 6.7: taking back one's own exposed card doubles its effect again."""
    discard_colour: bool = False
    """RULES.md 6.8: the first wrong-colour discarder takes the trick's scoring cards."""
    hearts_table: str = "standard"
    """RULES.md 6.9: ``"standard"``, ``"book"`` or ``"positive"`` heart values."""
    pig_sheep_swap: bool = False
    """RULES.md 6.10: after all hearts (not a slam) SQ is worth +100 and DJ -100."""
    team_play: bool = False
    """RULES.md 5: partners 0 & 2 vs 1 & 3 (``i`` and ``i + players / 2`` at other even sizes),
    team settlement."""
    pig_sheep_team: bool = False
    """RULES.md 6.12: the SQ and DJ holders form a team after the deal; no exposure."""
    double_pig: bool = False
    """RULES.md 6.13: in a match the lowest and the highest cumulative scorer both lose."""
    settlement_multiplier: int = None  # type: ignore[assignment]
    """Settlement is multiplied by this. Left unset it is 12 for one deck (RULES.md section 5)
    and 1 for two (6.11: no x12); it always reads as an int."""
    match_threshold: int = -1000
    """A match ends once a cumulative raw score is at or below this (RULES.md section 5)."""
    decks: int = 1
    """RULES.md 6.11 (拱双猪): ``2`` plays with two decks, 26 cards each, pairs led and
    followed, exposure per copy. Options the two-deck game does not define are refused."""
    players: int = 4
    """RULES.md 6.14: 3 to 8 seats with one deck. The deck loses D2, C2, S2, D3, C3, S3 in that
    order until it divides evenly (``removed_cards``); the holder of ``lead_card`` leads it."""
    settlement: str = "zero_sum"
    """RULES.md section 5: ``"zero_sum"`` (raw minus the others' mean, or team settlement) or
    ``"yuanbao"`` (coin rooms: the top scorer collects the difference from every other seat)."""
    match_end: str = "loss"
    """RULES.md section 5: ``"loss"`` ends a match once a cumulative score is at or below
    ``match_threshold``; ``"either"`` also once one is at or above ``-match_threshold``."""
    next_leader: str = "pig_taker"
    """RULES.md section 5: who leads each later hand of a match, with any card:
    ``"pig_taker"`` (the previous hand's SQ taker, the first SQ's with two decks) or
    ``"biggest_loser"`` (the previous hand's lowest raw score; ties go to the tied seat first in
    play order from that hand's first leader)."""

    def __post_init__(self) -> None:
        # Options whose default depends on the deck count are resolved first, so that a
        # ``Rules`` always holds concrete values (and compares and serialises by them).
        # (A wrong ``decks`` is reported by the checks below.)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            # A count read from numpy (``np.int64(5)``) is a count: stored as a plain int, so
            # that rules compare, hash and serialise alike whatever built them. A bool is no
            # count (``True`` would read as 1) and is left for the type check to refuse.
            if _OPTIONS[f.name][0] is int and type(value) is not int \
                    and isinstance(value, numbers.Integral) and not isinstance(value, bool):
                object.__setattr__(self, f.name, int(value))
        one_deck = self.decks == 1
        if self.auto_expose is None:
            object.__setattr__(self, "auto_expose", one_deck)
        if self.settlement_multiplier is None:
            object.__setattr__(self, "settlement_multiplier", 12 if one_deck else 1)
        for f in dataclasses.fields(self):
            kind, allowed, meaning = _OPTIONS[f.name]
            value = getattr(self, f.name)
            # An exact type check: bool is an int subclass and must not pass for a count
            # (numpy integers were made ints above).
            if type(value) is not kind:
                raise TypeError(
                    f"rule option {f.name!r} must be {kind.__name__} ({meaning}); "
                    f"got {value!r} of type {type(value).__name__}"
                )
            if allowed is not None and value not in allowed:
                raise ValueError(
                    f"rule option {f.name!r} must be one of {list(allowed)} ({meaning}); "
                    f"got {value!r}"
                )
        if self.settlement_multiplier < 1:
            raise ValueError(
                "rule option 'settlement_multiplier' must be a positive integer; "
                f"got {self.settlement_multiplier}"
            )
        if self.match_threshold >= 0:
            raise ValueError(
                "rule option 'match_threshold' must be a negative integer (a match ends when a "
                f"cumulative score falls to it); got {self.match_threshold}"
            )
        if self.decks == 2:
            # Checked before the one-deck conflicts: an option two decks do not define is the
            # problem to name, whatever else it would conflict with.
            for cond, why in _ONE_DECK_ONLY:
                if _on(self, cond):
                    raise ValueError(f"rule option {_show(self, cond)} cannot be combined with "
                                     f"decks=2: {why}")
        if self.players != 4:
            for cond, why in _FOUR_SEATS_ONLY:
                if _on(self, cond):
                    raise ValueError(f"rule option {_show(self, cond)} cannot be combined with "
                                     f"players={self.players}: {why}")
            if self.team_play and self.players % 2:
                raise ValueError(f"rule option team_play=True needs an even number of players "
                                 f"(partners sit opposite); got players={self.players}")
        for a, b, why in _CONFLICTS:
            if _on(self, a) and _on(self, b):
                raise ValueError(
                    f"contradictory rule options: {_show(self, a)} with {_show(self, b)} ({why})")
        if self.decks == 1 and not self.auto_expose and _on(self, ("declaration", _NOT_FREE)):
            raise ValueError(
                f"contradictory rule options: auto_expose=False with "
                f"{_show(self, ('declaration', _NOT_FREE))} (auto-exposure only applies to a "
                "free declaration; leave auto_expose unset)")
        # Computed once: the engine and the scoring pick their fast standard path from it.
        object.__setattr__(self, "_standard_hand", self.hand_rules() == _STANDARD_HAND
                           if "_STANDARD_HAND" in globals() else True)
        # Read at every decision of the agents (``PlayerView.unseen_mask``): worked out once.
        mask = (1 << NUM_CARDS) - 1
        for c in self.removed_cards:
            mask &= ~(1 << c)
        object.__setattr__(self, "_deck_mask", mask)
        # Read at every deal: worked out once too.
        object.__setattr__(self, "_hand_size", self.num_cards // self.players)
        removed = self.removed_cards
        object.__setattr__(self, "_lead_card",
                           next(c for c in FIRST_LEAD_ORDER if c not in removed))

    # ------------------------------------------------------------------ derived facts
    @property
    def exposure(self) -> bool:
        """Whether any card can be exposed in this rule set."""
        return self.declaration != "none"

    @property
    def num_cards(self) -> int:
        """Cards in play: 52, or 104 with two decks."""
        return NUM_CARDS * self.decks

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat, and tricks in a hand.

        13 for four players, 26 with two decks, 52 // players otherwise (17, 10, 8, 7, 6 for
        3, 5, 6, 7, 8 players).
        """
        return self._hand_size  # type: ignore[attr-defined, no-any-return]

    @property
    def removed_cards(self) -> tuple[int, ...]:
        """Cards taken out of the deck so that it divides evenly (RULES.md 6.14), in order.

        None for four players: ``52 % players`` of D2, C2, S2, D3 (3 players: D2; 5: D2 C2;
        7: D2 C2 S2; 6 and 8: D2 C2 S2 D3).
        """
        return REMOVAL_ORDER[:self.num_cards % self.players]

    @property
    def deck_mask(self) -> int:
        """The cards in play, as a mask (bit ``c`` is card ``c``); one bit per card index."""
        return self._deck_mask  # type: ignore[attr-defined, no-any-return]

    @property
    def lead_card(self) -> int:
        """The card that opens the first trick (unless ``first_lead="any"``).

        The first of C2, S2, C3, S3 still in the deck: C2 for 3 and 4 players, S2 for 5, C3
        for 6 to 8.
        """
        return self._lead_card  # type: ignore[attr-defined, no-any-return]

    @property
    def fixed_teams(self) -> tuple[tuple[int, ...], ...]:
        """The partners of ``team_play``; empty without team play.

        Seats ``i`` and ``i + players / 2``: 0 & 2 vs 1 & 3 for four players.
        """
        if not self.team_play:
            return ()
        half = self.players // 2
        return tuple((i, i + half) for i in range(half))

    @property
    def num_actions(self) -> int:
        """Size of the action space: 53 (52 cards, DONE), or 105 with two decks.

        Two decks add the 52 pair leads (action ``52 + k``) and move DONE to 104.
        """
        return self.num_cards + 1

    @property
    def pair_leads(self) -> bool:
        """Whether a pair of one card may be led: the trick rules of two decks (RULES.md 6.11).

        The 52 pair-lead actions (``52 + k``), two-card follows and the winner of a pair-led
        trick (``gongzhu_env.pair_tricks``) exist exactly when this is true; code that shows
        or reads them asks this rather than the deck count.
        """
        return self.decks == 2

    @property
    def done_action(self) -> int:
        """The action that ends a declaration turn: 52, or 104 with two decks."""
        return self.num_actions - 1

    @property
    def has_teams(self) -> bool:
        """Whether seats play in teams (fixed or formed after the deal)."""
        return self.team_play or self.pig_sheep_team

    @property
    def is_standard(self) -> bool:
        """Whether play and scoring of a hand are those of the standard game (the fast path).

        The settlement options and the match options do not change a hand.
        """
        return self._standard_hand  # type: ignore[attr-defined, no-any-return]

    def hand_rules(self) -> tuple[Any, ...]:
        """Return the options that change how a hand is played or scored, as a tuple."""
        return tuple(getattr(self, name) for name in _HAND_OPTIONS)

    @classmethod
    def options(cls) -> dict[str, str]:
        """Every option name with its one-line meaning."""
        return {name: meaning for name, (_, _, meaning) in _OPTIONS.items()}

    @classmethod
    def choices(cls) -> dict[str, tuple[Any, ...]]:
        """Every option with a finite set of values, the default first (for sweeps and checks).

        Numeric options (the settlement multiplier, the match threshold) are left out.
        """
        defaults = cls().to_dict()
        out: dict[str, tuple[Any, ...]] = {}
        for name, (kind, allowed, _) in _OPTIONS.items():
            if kind is bool:
                out[name] = (defaults[name], not defaults[name])
            elif allowed is not None:
                out[name] = (defaults[name], *(v for v in allowed if v != defaults[name]))
        return out

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> Rules:
        """Build rules from a mapping, rejecting unknown option names with the valid ones."""
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            raise ValueError(
                f"unknown rule option(s) {unknown}; valid options are {sorted(_OPTIONS)}"
            )
        return cls(**dict(options))

    @classmethod
    def preset(cls, name: str) -> Rules:
        """Return a named rule set (see ``PRESETS``)."""
        if not isinstance(name, str) or name not in PRESETS:
            raise ValueError(f"unknown rules preset {name!r}; known presets: {sorted(PRESETS)}")
        return cls.from_dict(PRESETS[name])

    @classmethod
    def coerce(cls, rules: Rules | str | Mapping[str, Any] | None) -> Rules:
        """Accept a ``Rules``, a preset name, a mapping of options or ``None`` (standard)."""
        if rules is None:
            return cls()
        if isinstance(rules, Rules):
            return rules
        if isinstance(rules, str):
            return cls.preset(rules)
        if isinstance(rules, Mapping):
            return cls.from_dict(rules)
        raise TypeError(
            f"rules must be a Rules, a preset name or a mapping of options; got {rules!r}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the options as a plain dict (for checkpoints and hand records)."""
        return dataclasses.asdict(self)


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")


def count_word(n: int) -> str:
    """``4`` -> ``"four"``: how error messages name a count of seats."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def rules_value(text: str) -> str | dict[str, Any]:
    """Read rules given as text (a command's ``--rules``): a preset name, or a JSON object.

    Returns the name or the dict of options as given (``Rules.coerce`` builds the rules and
    names a wrong preset or option); text that starts like JSON but is not an object raises
    ``ValueError`` saying so.
    """
    text = text.strip()
    if not text.startswith("{"):
        return text
    try:
        options = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"--rules {text!r}: not a preset name nor a JSON object ({e})") from None
    if not isinstance(options, dict):
        raise ValueError(f"--rules {text!r}: expected a JSON object of rule options")
    return options


def _on(rules: Rules, cond: tuple[str, Any]) -> bool:
    value: object
    name, value = cond
    actual: object = getattr(rules, name)
    if isinstance(value, tuple):
        return actual in value
    return actual == value


def _show(rules: Rules, cond: tuple[str, Any]) -> str:
    return f"{cond[0]}={getattr(rules, cond[0])!r}"


# Low non-scoring cards leave the deck in this order until it divides evenly (RULES.md 6.14);
# the first trick is led by the first of FIRST_LEAD_ORDER still in the deck.
REMOVAL_ORDER = (card(DIAMONDS, 2), card(CLUBS, 2), card(SPADES, 2), card(DIAMONDS, 3),
                 card(CLUBS, 3), card(SPADES, 3))
FIRST_LEAD_ORDER = (card(CLUBS, 2), card(SPADES, 2), card(CLUBS, 3), card(SPADES, 3))

_FORCED = ("all_but_sheep", "all")
_NOT_FREE = ("none", "all_but_sheep", "all")
# Pairs of (option, value or tuple of values) that cannot be on together, with the reason.
_CONFLICTS: tuple[tuple[tuple[str, Any], tuple[str, Any], str], ...] = (
    (("exposed_may_lead", True), ("strict_exposure", True),
     "strict exposure forbids leading an exposed card that exposed_may_lead allows"),
    (("pig_sheep_team", True), ("declaration", ("free", "all_but_sheep", "all")),
     "pig-sheep team forbids exposure: use declaration='none'"),
    (("team_play", True), ("pig_sheep_team", True),
     "teams are either fixed partners or formed by the pig and sheep holders, not both"),
    (("hidden_exposure", True), ("declaration", "none"), "there is no exposure to hide"),
    (("hidden_exposure", True), ("declaration", _FORCED),
     "forced exposures are known to everyone, they cannot be hidden"),
    (("first_drawn_exposure", True), ("declaration", "none"), "there is no exposure"),
    (("self_capture_double", True), ("declaration", "none"), "there is no exposure"),
    (("exposed_may_lead", True), ("declaration", "none"), "there is no exposed card"),
    (("strict_exposure", True), ("declaration", "none"), "there is no exposed card"),
    (("double_pig", True), ("team_play", True),
     "double pig ranks individual cumulative scores, team play ranks teams"),
    (("double_pig", True), ("pig_sheep_team", True),
     "double pig ranks individual cumulative scores, the pig-sheep team plays as teams"),
    (("settlement", "yuanbao"), ("team_play", True),
     "coin rooms settle each seat's own score against the top scorer's"),
    (("settlement", "yuanbao"), ("pig_sheep_team", True),
     "coin rooms settle each seat's own score against the top scorer's"),
)

# One-deck options with two decks (RULES.md 6.11), each with the reason it is refused.
_ONE_DECK_ONLY: tuple[tuple[tuple[str, Any], str], ...] = (
    (("auto_expose", True), "there is no auto-exposure with two decks (leave it unset)"),
    (("declaration", _FORCED),
     "forced declarations name one copy of each card; the two-deck game defines none"),
    (("strict_exposure", True),
     "the two-deck restriction is per copy on the first round only (6.11); strict exposure is "
     "not defined for it"),
    (("hidden_exposure", True), "not defined for per-copy exposure"),
    (("first_drawn_exposure", True), "not defined for per-copy exposure"),
    (("self_capture_double", True), "not defined for per-copy exposure"),
    (("discard_colour", True), "not defined for plays of two cards"),
    (("hearts_table", ("book", "positive")),
     "the all-hearts values of 6.11 are those of the standard table"),
    (("pig_sheep_swap", True), "not defined for 26 hearts"),
    (("pig_sheep_team", True), "two pigs and two sheep make no pig-sheep team"),
)

# Options defined only at a table of four (RULES.md 6.14), each with the reason.
_FOUR_SEATS_ONLY: tuple[tuple[tuple[str, Any], str], ...] = (
    (("decks", 2), "two decks are dealt to four players (26 cards each)"),
    (("pig_sheep_team", True),
     "the pig-sheep team is defined as two against two (or one against three)"),
)

# Options that change the play or the scoring of one hand (everything but settlement/match).
_HAND_OPTIONS = tuple(f.name for f in dataclasses.fields(Rules)
                      if f.name not in ("settlement_multiplier", "match_threshold", "double_pig",
                                        "settlement", "match_end", "next_leader"))
_STANDARD_HAND = Rules().hand_rules()

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "huapai": {"strict_exposure": True},
    "online": {"exposed_may_lead": True},
    "scrofazero": {"team_play": True, "declaration": "none", "first_lead": "any"},
    "all_but_sheep": {"declaration": "all_but_sheep"},
    "two_decks": {"decks": 2, "team_play": True},
}
"""Named rule sets: preset name -> options that differ from the standard game.

``"huapai"``: the Hua Pai association's strict exposure. ``"online"``: online rooms where an
exposed card may be led. ``"scrofazero"``: team play, no declaration phase, free first lead
(the rules of the best-known published Gong Zhu AI). ``"all_but_sheep"``: SQ, C10 and HA are
always exposed, DJ never. ``"two_decks"``: 拱双猪, two decks played as partners, the usual
two-deck table (RULES.md 6.11).
"""
