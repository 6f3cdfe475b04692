"""No hidden card reaches a browser: the engine's leak check, applied to what goes out.

Two checks, each with a guard that plants a leak (one opponent card in a message) and shows
that the check catches it:

* The swap test of the engine's views (tests/gongzhu_env/test_view.py), over the message
  builders: swap hidden cards between two opponents, replay the same actions, and every
  message the observer would have been sent along the way is the same, byte for byte. A
  message that depended on a hidden card in any way (the card itself, a count, an order)
  would differ.
* Over the wire: hands played through the real application (its WebSocket, with the
  person choosing seeded random legal moves), every message the browser received collected;
  every card named anywhere in a message must be one the person may know at that moment: their
  own dealt cards, cards played so far, and exposures they were shown.

Both run over every preset, hidden exposure, first-drawn exposure, two decks and tables of three
and six players: at least 300 seeded hands each.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from gongzhu_cli.web.messages import PublicTable, action_event, state_message
from gongzhu_env import Game, IllegalActionError, Rules
from gongzhu_env.cards import card_str, cards_of, parse_action, parse_card
from tests.gongzhu_cli.web.support import TEST_HOSTS, require_web

starlette_testclient = require_web("starlette.testclient")

RULE_SETS: list[tuple[str, Rules]] = [
    ("standard", Rules()),
    ("huapai", Rules.preset("huapai")),
    ("online", Rules.preset("online")),
    ("scrofazero", Rules.preset("scrofazero")),
    ("all_but_sheep", Rules.preset("all_but_sheep")),
    ("hidden_exposure", Rules(hidden_exposure=True)),
    ("first_drawn_exposure", Rules(first_drawn_exposure=True)),
    ("two_decks", Rules.preset("two_decks")),
    ("three_players", Rules(players=3)),
    ("six_players", Rules(players=6)),
]
CARD = re.compile(r"^(?:[CDHS](?:10|[2-9JQKA]))(?:\+[CDHS](?:10|[2-9JQKA]))?$")

Build = Callable[[Game, int, int, "dict[str, Any] | None"], "dict[str, Any]"]


def honest(game: Game, observer: int, step: int, event: dict[str, Any] | None) -> dict:
    """The server's builder: the observer's view and public facts, nothing else."""
    public = PublicTable(table="t", labels=[f"Seat {s}" for s in range(game.rules.players)],
                         match=False, hand_number=1, totals=[0] * game.rules.players)
    return state_message(game.view(observer), public, step, event)


def leaky(game: Game, observer: int, step: int, event: dict[str, Any] | None) -> dict:
    """A planted leak: one card of the next opponent's hand rides along."""
    msg = honest(game, observer, step, event)
    other = (observer + 1) % game.rules.players
    if game.hands[other]:
        msg["debug"] = card_str(game.hands[other][0])
    return msg


# --------------------------------------------------------------------------- swap test
def _hidden(game: Game, seat: int) -> list[int]:
    """Cards of ``seat`` the others cannot have seen: in hand, unexposed, not the lead card."""
    exposed = {c for e in game.exposed for c in e}
    return [c for c in set(game.hands[seat])
            if c not in exposed and c != game.rules.lead_card]


def _swaps(game: Game, a: int, b: int) -> list[tuple[int, int]]:
    """Pairs (x of a, y of b) whose exchange the public history cannot rule out."""
    voids = game.voids
    return [(x, y) for x in _hidden(game, a) for y in _hidden(game, b)
            if x != y and y // 13 not in voids[a] and x // 13 not in voids[b]]


def _messages(deal: list[list[int]], actions: list[int], rules: Rules, observer: int,
              build: Build) -> Iterator[str]:
    """Every message ``observer`` would be sent while ``actions`` are played from ``deal``."""
    game = Game.from_hands(deal, rules)
    yield json.dumps(build(game, observer, 0, None), sort_keys=True)
    for step, action in enumerate(actions, start=1):
        seat, phase = game.current_player, str(game.phase)
        game.step(action)
        event = action_event(game.view(observer), seat, phase)
        yield json.dumps(build(game, observer, step, event), sort_keys=True)


def swap_check(build: Build, hands_per_rules: int, seed: int = 0) -> tuple[int, int, int]:
    """Run the swap test; return (hands, swaps checked, swaps whose messages differed)."""
    rng = np.random.default_rng(seed)
    hands = checked = differed = 0
    for _, rules in RULE_SETS:
        n = rules.players
        for _ in range(hands_per_rules):
            game = Game(rules, rng=rng)
            stop = int(rng.integers(0, len(game.deal[0]) * n))
            while not game.is_over() and len(game.actions) < stop:
                legal = game.legal_actions()
                game.step(legal[int(rng.integers(len(legal)))])
            if game.is_over():
                continue
            hands += 1
            observer = int(rng.integers(n))
            a, b = (int(s) for s in rng.choice([s for s in range(n) if s != observer], 2,
                                                replace=False))
            pairs = _swaps(game, a, b)
            rng.shuffle(pairs)
            mine = list(_messages(game.deal, list(game.actions), rules, observer, build))
            for x, y in pairs[:2]:
                deal = [list(h) for h in game.deal]
                deal[a][deal[a].index(x)] = y
                deal[b][deal[b].index(y)] = x
                try:
                    Game.replay(deal, game.actions, rules)
                except IllegalActionError:
                    continue  # a play that the swap makes illegal shows the suit was empty
                theirs = list(_messages(deal, list(game.actions), rules, observer, build))
                checked += 1
                differed += mine != theirs
    return hands, checked, differed


def test_swapping_hidden_cards_between_opponents_changes_no_message():
    hands, checked, differed = swap_check(honest, hands_per_rules=40)
    assert hands >= 300 and checked >= 300, (hands, checked)
    assert differed == 0


def test_the_swap_check_catches_a_planted_leak():
    # Guard: the same check over a builder that sends one card of the next opponent (its
    # lowest). A swap can show it only when it moves that very card, which about one swap
    # in five does here; each such swap is caught.
    hands, checked, differed = swap_check(leaky, hands_per_rules=6)
    assert checked > 50 and differed >= 10, (hands, checked, differed)


# --------------------------------------------------------------------------- over the wire
def _cards_in(obj: Any) -> Iterator[str]:
    """Every card named in a message (``"SQ"``, ``"SQ+SQ"`` as both its cards)."""
    if isinstance(obj, str):
        if CARD.match(obj):
            yield from obj.split("+")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _cards_in(k)
            yield from _cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _cards_in(v)


def _unknown_cards(message: dict[str, Any], record: dict[str, Any], seat: int) -> set[str]:
    """Cards named in ``message`` that ``seat`` may not know after ``message['seq']`` actions."""
    rules = Rules.from_dict(record["rules"])
    actions = [parse_action(a, rules.decks) for a in record["actions"]][:message["seq"]]
    game = Game.replay([[parse_card(c) for c in h] for h in record["deal"]], actions, rules,
                       leader=record["leader"])
    known = {card_str(c) for c in game.deal[seat]}
    known |= {card_str(c) for s in range(rules.players) for c in cards_of(game.played_masks[s])}
    view = game.view(seat)
    known |= {card_str(c) for s in range(rules.players) for c in view.exposed[s]}
    return set(_cards_in(message)) - known


def play_over_the_wire(client: Any, rules_name: str, rules: Rules, seed: int,
                       rng: np.random.Generator) -> tuple[list[dict], dict, int]:
    """Play one hand through the app; return the messages received, the record, the seat."""
    seat = int(rng.integers(rules.players))
    config = {"preset": "standard", "options": rules.to_dict(), "seat": seat,
              "opponents": "random", "seed": seed}
    received: list[dict] = []
    with client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "hello"
        ws.send_json({"type": "new_table", "config": config})
        while True:
            msg = ws.receive_json()
            received.append(msg)
            assert msg["type"] in ("table", "state"), msg
            if msg["type"] != "state":
                continue
            if msg["phase"] == "over":
                break
            if msg["your_turn"]:
                legal = msg["legal"]
                ws.send_json({"type": "move", "action": legal[int(rng.integers(len(legal)))]})
        ws.send_json({"type": "record"})
        record = json.loads(ws.receive_json()["text"])
        ws.send_json({"type": "leave"})
        assert ws.receive_json()["type"] == "left"
    return received, record, seat


def wire_check(client: Any, hands_per_rules: int, seed: int = 0) -> tuple[int, int, int]:
    """Play hands through the app; return (hands, messages checked, messages with leaks)."""
    rng = np.random.default_rng(seed)
    hands = messages = leaks = 0
    for k, (name, rules) in enumerate(RULE_SETS):
        for i in range(hands_per_rules):
            received, record, seat = play_over_the_wire(client, name, rules, 1000 * k + i, rng)
            hands += 1
            for msg in received:
                if msg["type"] != "state":
                    continue
                messages += 1
                leaks += bool(_unknown_cards(msg, record, seat))
    return hands, messages, leaks


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    from gongzhu_cli.web.app import Limits, create_app

    app = create_app(Limits(rate=1e6, burst=10**6), allowed_hosts=TEST_HOSTS)
    with starlette_testclient.TestClient(app) as c:
        yield c


def test_no_hidden_card_in_any_message_over_the_wire(client):
    hands, messages, leaks = wire_check(client, hands_per_rules=31)
    assert hands >= 300 and messages > 300 * 13
    assert leaks == 0


def test_the_wire_check_catches_a_planted_leak(client, monkeypatch):
    from gongzhu_cli.web.tables import TableSession

    honest_state = TableSession.state

    def leaking_state(self: TableSession, event: dict | None = None) -> dict:
        msg = honest_state(self, event)
        other = (self.seat + 1) % self.rules.players
        if self.game.hands[other]:
            msg["trick"]["debug"] = card_str(self.game.hands[other][-1])
        return msg

    monkeypatch.setattr(TableSession, "state", leaking_state)
    hands, messages, leaks = wire_check(client, hands_per_rules=1)
    assert hands == len(RULE_SETS) and leaks > messages // 2, (hands, messages, leaks)


# --------------------------------------------------------------------------- the deal's source
# A cheater who keeps everything the server sends (every frame, every downloaded record and
# its file name) and tries every number in it as the seed of every way this project deals.
NUMBER = re.compile(r"\d+")
HEX = re.compile(r"(?:0[xX])?([0-9a-fA-F]{6,})")
TOKEN = re.compile(r"[A-Za-z0-9_-]{8,}")


def numbers_in(obj: Any) -> set[int]:
    """Every number a cheater could read in ``obj``: ints, digit runs, hex, base64 tokens."""
    found: set[int] = set()
    if isinstance(obj, bool) or obj is None:
        return found
    if isinstance(obj, int):
        found.add(abs(obj))
    elif isinstance(obj, float) and obj.is_integer():
        found.add(abs(int(obj)))
    elif isinstance(obj, str):
        found.update(int(m) for m in NUMBER.findall(obj))
        found.update(int(m, 16) for m in HEX.findall(obj))
        for token in TOKEN.findall(obj):
            try:
                raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            except ValueError:
                continue
            found.update({int.from_bytes(raw, "big"), int.from_bytes(raw, "little")})
        if obj[:1] in "{[":
            try:
                found |= numbers_in(json.loads(obj))
            except ValueError:
                pass
        for line in obj.splitlines()[1:] if "\n" in obj else ():
            try:
                found |= numbers_in(json.loads(line))
            except ValueError:
                pass
        if "\n" in obj:
            try:
                found |= numbers_in(json.loads(obj.splitlines()[0]))
            except ValueError:
                pass
    elif isinstance(obj, dict):
        for k, v in obj.items():
            found |= numbers_in(k) | numbers_in(v)
    elif isinstance(obj, list):
        for v in obj:
            found |= numbers_in(v)
    return found


def deals_from(n: int, rules: Rules, hands: int) -> Iterator[list[tuple[int, ...]]]:
    """Every deal the engine and the server would make from the seed ``n``, hand after hand."""
    from gongzhu_cli.web.tables import Dealer

    if n >= 2**128:
        return  # numpy takes any size, but no deal path of the project draws a seed that big
    yield [tuple(h) for h in Game(rules, seed=n).deal]
    shared = np.random.default_rng(n)
    dealer = Dealer(n)  # the table's own dealing code, as a practice seed drives it
    for _ in range(hands):
        yield [tuple(h) for h in Game(rules, rng=shared).deal]
        yield [tuple(h) for h in Game(rules, rng=dealer.generator()).deal]


def cheat(frames: list[Any], rules: Rules, seat: int, hands_seen: list[tuple[int, ...]],
          ahead: int = 2) -> list[int]:
    """Return the numbers in ``frames`` that rebuild a hand the person was dealt."""
    mine = set(hands_seen)
    found = []
    for n in sorted(set().union(*(numbers_in(f) for f in frames))):
        if any(deal[seat] in mine for deal in deals_from(n, rules, len(hands_seen) + ahead)):
            found.append(n)
    return found


def play_match_as_a_cheater(client: Any, config: dict[str, Any], rng: np.random.Generator,
                            hands: int = 3) -> tuple[list[Any], list[tuple[int, ...]]]:
    """Play ``hands`` hands of a match through the app; keep every frame, download and name.

    Returns the frames and the person's hand as dealt in each hand. The record is downloaded
    after every hand, while the match goes on, as a cheater would. The cheater leaves after
    ``hands`` hands (or when the match ends first), so the length of the match never rests on
    the server's secret deals.
    """
    frames: list[Any] = []
    dealt: list[tuple[int, ...]] = []
    with client.websocket_connect("/ws") as ws:
        def get() -> dict[str, Any]:
            msg = ws.receive_json()
            frames.append(msg)
            return msg

        assert get()["type"] == "hello"
        ws.send_json({"type": "new_table", "config": config})
        ws.send_json({"type": "join", "table": "nonsense"})  # an error message, kept too
        state = get()
        while True:
            if state.get("type") == "state" and state["phase"] != "over":
                if len(dealt) < state["hand_number"]:
                    assert state["tricks_played"] == 0
                    view_hand = [parse_card(c) for c in state["hand"]]
                    exposed_by_me = [parse_card(c) for c in state["exposed"][state["seat"]]]
                    dealt.append(tuple(sorted(view_hand + [c for c in exposed_by_me
                                                           if c not in view_hand])))
                if state["your_turn"]:
                    legal = state["legal"]
                    ws.send_json({"type": "move",
                                  "action": legal[int(rng.integers(len(legal)))]})
            if state.get("type") == "state" and state["phase"] == "over":
                ws.send_json({"type": "record"})
                record = get()
                while record["type"] != "record":
                    record = get()
                if state["match"]["over"] or len(dealt) >= hands:
                    break
                ws.send_json({"type": "next_hand"})
            state = get()
    return frames, dealt


@pytest.fixture
def cheat_client() -> Iterator[Any]:
    from gongzhu_cli.web.app import Limits, create_app

    app = create_app(Limits(rate=1e6, burst=10**6), allowed_hosts=TEST_HOSTS)
    with starlette_testclient.TestClient(app) as c:
        yield c


# A threshold no three hands can reach: the match goes on while the cheater watches it.
MATCH = {"preset": "standard", "opponents": "random", "match": True, "threshold": -10**6,
         "seat": 1}


def test_a_cheater_keeping_every_frame_of_a_match_rebuilds_no_hand(cheat_client):
    frames, dealt = play_match_as_a_cheater(cheat_client, MATCH, np.random.default_rng(5))
    table = next(f for f in frames if f["type"] == "table")
    assert table["config"]["seed"] is None and table["config"]["practice"] is False
    assert len(dealt) == 3, "the cheater should have watched three hands of the match"
    tried = set().union(*(numbers_in(f) for f in frames))
    assert len(tried) > 100  # scores, sequence numbers, digests, ids, dates...
    assert cheat(frames, Rules(), 1, dealt) == []
    # The records downloaded during the match carry no seed either.
    records = [json.loads(line) for f in frames if f["type"] == "record"
               for line in f["text"].splitlines()]
    assert records and all("seed" not in r["meta"] for r in records)


def test_a_practice_table_says_so_and_its_seed_rebuilds_its_hands(cheat_client):
    # The same cheater does find a typed seed: it is no secret, and the table says so.
    frames, dealt = play_match_as_a_cheater(cheat_client, {**MATCH, "seed": 4242},
                                            np.random.default_rng(6))
    table = next(f for f in frames if f["type"] == "table")
    assert table["config"]["practice"] is True and table["config"]["seed"] == 4242
    assert 4242 in cheat(frames, Rules(), 1, dealt)


def test_the_cheater_models_the_tables_own_dealing():
    # Guard: the deal paths tried above are the ones a table deals by (a practice seed's
    # table deals exactly what Dealer(seed) does, hand after hand).
    from gongzhu_cli.web.tables import TableConfig, TableSession

    config = TableConfig(Rules(), 0, ("random",) * 3, True, 77)
    table = TableSession("t", config)
    first = [tuple(h) for h in table.game.deal]
    assert first in list(deals_from(77, Rules(), 1))
    table.close()


@pytest.mark.parametrize("where", ["state_int", "state_hex", "file_name"])
def test_the_cheater_finds_a_planted_seed(cheat_client, monkeypatch, where):
    # Plant the secret of each hand's deal in what the server sends: a number in the state,
    # hex inside a string, digits in the record's file name. The cheater must find it.
    from gongzhu_cli.web import tables

    secrets_drawn: list[int] = []
    honest_randbits = tables.secrets.randbits

    def remembered(k: int) -> int:
        value = honest_randbits(k)
        if k == tables.DEAL_BITS:
            secrets_drawn.append(value)
        return value

    monkeypatch.setattr(tables.secrets, "randbits", remembered)
    honest_state, honest_name = tables.TableSession.state, tables.TableSession.record_name

    def state(self: Any, event: dict | None = None) -> dict:
        msg = honest_state(self, event)
        if where == "state_int":
            msg["debug"] = secrets_drawn[-1]
        elif where == "state_hex":
            msg["trick"]["note"] = f"dealt by {secrets_drawn[-1]:#x}"
        return msg

    def record_name(self: Any) -> str:
        name = honest_name(self)
        return f"gongzhu-{secrets_drawn[-1]}.jsonl" if where == "file_name" else name

    monkeypatch.setattr(tables.TableSession, "state", state)
    monkeypatch.setattr(tables.TableSession, "record_name", record_name)
    frames, dealt = play_match_as_a_cheater(cheat_client, MATCH, np.random.default_rng(5))
    found = cheat(frames, Rules(), 1, dealt)
    assert found and set(found) <= set(secrets_drawn), (found, secrets_drawn)
