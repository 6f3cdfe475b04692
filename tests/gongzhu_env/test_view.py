"""``PlayerView`` and its encoding: layout, relative seats, the mask, and no hidden-card leak."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gongzhu_env import Game, IllegalActionError, Rules
from gongzhu_env.cards import DONE, EXPOSABLE, parse_cards
from gongzhu_env.view import LAYOUT, OBS_SIZE, SLICES, PlayerView, decode
from tests.helpers import finish_declaration, make_deal, random_playout

D1 = make_deal(
    "C2 C3 C4 C5 C6 C7 C8 C9 D2 D3 D4 D5 D6",
    "C10 CJ CQ CK CA D7 D8 D9 D10 H2 H3 H4 H5",
    "DJ DQ DK DA H6 H7 H8 H9 H10 HJ HQ HK HA",
    "S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK SA",
)


def c(text: str) -> int:
    return parse_cards(text)[0]


def test_slices_cover_the_vector_contiguously_in_layout_order() -> None:
    start = 0
    for name, shape, meaning in LAYOUT:
        s = SLICES[name]
        assert s.start == start and s.stop - s.start == math.prod(shape) and meaning
        start = s.stop
    assert start == OBS_SIZE and len(SLICES) == len(LAYOUT)


def test_decode_splits_and_reshapes() -> None:
    v = np.arange(OBS_SIZE, dtype=np.float32)
    parts = decode(v)
    for name, shape, _ in LAYOUT:
        assert parts[name].shape == shape
        assert np.array_equal(parts[name].ravel(), v[SLICES[name]])
    with pytest.raises(ValueError, match=str(OBS_SIZE)):
        decode(np.zeros(OBS_SIZE + 1))


def test_encode_shape_range_and_out_buffer() -> None:
    rng = np.random.default_rng(0)
    g = Game(seed=0)
    buf = np.full(OBS_SIZE, 7.0, dtype=np.float32)
    while True:
        for seat in range(4):
            v = g.view(seat).encode()
            assert v.dtype == np.float32 and v.shape == (OBS_SIZE,)
            assert v.min() >= 0.0 and v.max() <= 1.0
            out = g.view(seat).encode(out=buf)
            assert out is buf and np.array_equal(buf, v)
        if g.is_over():
            break
        random_playout(g, rng, stop_after=1)


def test_relative_seats_in_the_encoding() -> None:
    g = finish_declaration(Game.from_hands(D1), ["C10"])
    g.step(c("C2"))
    g.step(c("CQ"))
    # Observer seat 0: it played C2 (row 0), the next seat played CQ (row 1); seat 1 to move.
    d = decode(g.view(0).encode())
    assert d["trick_cards"][0, c("C2")] == 1 and d["trick_cards"][1, c("CQ")] == 1
    assert d["trick_cards"].sum() == 2
    assert list(d["trick_leader"]) == [1, 0, 0, 0]
    assert list(d["to_move"]) == [0, 0, 1, 0]
    assert list(d["phase"]) == [0, 1, 0]
    assert list(d["trick_number"]) == [1] + [0] * 12
    # Seat 1 is "next" for seat 0; C10 is third in exposable order (SQ, DJ, C10, HA).
    assert list(d["exposed"][1]) == [0, 0, 1, 0] and d["exposed"].sum() == 1
    assert np.flatnonzero(d["hand"]).tolist() == sorted(set(D1[0]) - {c("C2")})
    # Observer seat 1: it played CQ itself, the previous seat led C2.
    d = decode(g.view(1).encode())
    assert d["trick_cards"][0, c("CQ")] == 1 and d["trick_cards"][3, c("C2")] == 1
    assert list(d["trick_leader"]) == [0, 0, 0, 1]
    assert list(d["exposed"][0]) == [0, 0, 1, 0]
    assert list(d["first_leader"]) == [0, 0, 0, 1]
    g.step(c("DJ"))
    g.step(c("SQ"))
    # Seat 1 took DJ and SQ; seat 2 showed a club void. Seen from seat 3, seat 1 is "across".
    d = decode(g.view(3).encode())
    assert d["captured"][2].tolist() == [0] * 13 + [1, 1, 0]
    assert d["captured"].sum() == 2
    assert d["voids"][3].tolist() == [1, 0, 0, 0] and d["voids"].sum() == 2  # seats 2 and 3
    assert d["played"][1, c("C2")] == 1 and d["played"][0, c("SQ")] == 1
    assert d["trick_cards"].sum() == 0 and list(d["trick_number"][:2]) == [0, 1]
    # Provisional scores: seat 1 has -100 + 100 = 0 so far.
    assert d["scores"][2] == pytest.approx(0.5)


def test_declared_seats_and_scores_encoding() -> None:
    g = Game.from_hands(D1)
    g.step(DONE)
    g.step(c("C10"))
    d = decode(g.view(2).encode())
    # Seat 0 has finished its turn: relative to seat 2 it is "across".
    assert d["declared"].tolist() == [0, 0, 1, 0]
    assert list(d["phase"]) == [1, 0, 0]
    # A view's provisional score is 0.5 + 0.5 tanh(s / 400) (the documented squashing).
    g = random_playout(Game(seed=4), np.random.default_rng(4))
    for seat in range(4):
        d = decode(g.view(seat).encode())
        for r in range(4):
            s = g.scores()[(seat + r) % 4]
            assert d["scores"][r] == pytest.approx(0.5 + 0.5 * math.tanh(s / 400), abs=1e-6)
        assert d["to_move"].sum() == 0 and list(d["phase"]) == [0, 0, 1]


def test_mask_is_the_legal_set_for_the_mover_and_zero_otherwise() -> None:
    rng = np.random.default_rng(1)
    for seed in range(3):
        g = Game(seed=seed)
        while not g.is_over():
            for seat in range(4):
                view = g.view(seat)
                mask = view.action_mask()
                assert mask.dtype == np.int8 and mask.shape == (53,)
                if seat == g.current_player:
                    assert np.flatnonzero(mask).tolist() == g.legal_actions()
                    assert view.legal_actions == g.legal_actions()
                else:
                    assert not mask.any() and view.legal_actions == []
            random_playout(g, rng, stop_after=1)


def test_view_fields_are_the_seat_own_and_public() -> None:
    g = random_playout(Game(seed=2), np.random.default_rng(2), stop_after=30)
    for seat in range(4):
        v = g.view(seat)
        assert v.seat == seat and v.hand == g.hands[seat]
        assert v.exposed == g.exposed and v.captured == g.captured
        assert v.tricks == g.tricks and v.actions == g.actions
        assert v.current_trick == g.current_trick[1]
        assert v.voids == g.voids
        assert v.scores == tuple(g.provisional_scores())
        # A view holds no reference to the game and no other seat's cards.
        assert not any(isinstance(getattr(v, f), Game) for f in PlayerView.__slots__)
    with pytest.raises(ValueError, match="seat"):
        g.view(4)


# ------------------------------------------------------------------ information leak
PUBLIC_FIELDS = (
    "phase", "current_player", "first_leader", "hand_mask", "legal_mask", "trick_leader",
    "current_trick", "tricks", "exposed_masks", "captured_masks", "played_masks", "void_masks",
    "declared_seats", "actions", "scores",
)


def _swap_candidates(g: Game, a: int, b: int) -> list[tuple[int, int]]:
    """Pairs (x from a, y from b) whose exchange the public history cannot rule out.

    Hidden means still in hand and not exposed; C2 is public while unplayed (its holder is the
    first leader); a card may not move to a seat that has shown a void in its suit.
    """
    exposed = {x for e in g.exposed for x in e}
    hidden_a = [x for x in g.hands[a] if x not in exposed and x != c("C2")]
    hidden_b = [y for y in g.hands[b] if y not in exposed and y != c("C2")]
    return [(x, y) for x in hidden_a for y in hidden_b
            if y // 13 not in g.voids[a] and x // 13 not in g.voids[b]]


def test_swapping_hidden_cards_between_opponents_changes_no_observation() -> None:
    rng = np.random.default_rng(2024)
    checked = 0
    for seed in range(250):
        g = Game(seed=seed)
        random_playout(g, rng, stop_after=int(rng.integers(0, 56)))
        if g.is_over():
            continue
        observer = int(rng.integers(4))
        a, b = (int(s) for s in rng.choice([s for s in range(4) if s != observer], 2, False))
        pairs = _swap_candidates(g, a, b)
        rng.shuffle(pairs)
        for x, y in pairs[:3]:
            deal = [list(h) for h in g.deal]
            deal[a][deal[a].index(x)] = y
            deal[b][deal[b].index(y)] = x
            try:
                other = Game.replay(deal, g.actions)
            except IllegalActionError:
                # Only an exposed card played as its holder's only card of its suit can make
                # a swap inconsistent: that play itself shows the suit was otherwise empty.
                continue
            assert other.hands[a] != g.hands[a]
            for seat in {0, 1, 2, 3} - {a, b}:
                mine, theirs = g.view(seat), other.view(seat)
                for f in PUBLIC_FIELDS:
                    assert getattr(mine, f) == getattr(theirs, f), f
                assert np.array_equal(mine.encode(), theirs.encode())
                assert np.array_equal(mine.action_mask(), theirs.action_mask())
            checked += 1
    assert checked > 300


def test_encoding_does_see_a_change_of_own_hand() -> None:
    # Guard for the leak test: the comparison is sensitive to the observer's own cards.
    g = Game.from_hands(D1)
    swapped = [D1[1][:1] + D1[0][1:], D1[0][:1] + D1[1][1:], D1[2], D1[3]]
    h = Game.from_hands(swapped)
    assert not np.array_equal(g.view(0).encode(), h.view(0).encode())
    assert np.array_equal(g.view(2).encode()[SLICES["hand"]], h.view(2).encode()[SLICES["hand"]])
    assert EXPOSABLE == tuple(parse_cards("SQ DJ C10 HA"))


@pytest.mark.parametrize("rules", ["standard", "huapai", "scrofazero", Rules(hidden_exposure=True)],
                         ids=str)
def test_game_observation_is_the_encoded_view(rules: Rules | str) -> None:
    # The env's fast path (``Game.observation``) and the view encode the same facts.
    rng = np.random.default_rng(12)
    for seed in range(6):
        g = Game(rules, seed=seed)
        while True:
            for seat in range(4):
                obs, mask = g.observation(seat)
                view = g.view(seat)
                assert np.array_equal(obs, view.encode())
                assert np.array_equal(mask, view.action_mask())
            # Guard: the comparison tells one seat's observation from another's.
            assert not np.array_equal(g.observation(0)[0], g.view(1).encode())
            if g.is_over():
                break
            random_playout(g, rng, stop_after=1)
