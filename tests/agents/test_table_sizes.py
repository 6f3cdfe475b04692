"""Every agent plays tables of 3 to 8 seats (RULES.md 6.14): legal play, N-seat worlds, policies.

The four-seat behaviour of the agents is held by the other tests of this folder, which run
unchanged; here each agent meets the other table sizes, where hands are shorter, the deck loses
its lowest cards and a trick has one card per seat.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.card_features import FEATURE_NAMES, CardFeatures, unseen_cards
from agents.expert import expert_declare, expert_play, suit_length
from agents.holder_features import HolderFeatures, num_holder_features
from agents.knowledge import Situation
from agents.pimc import objective
from agents.policy import PolicyLoadError, QNetwork, load_policy_file, save_policy
from gongzhu_env.cards import DONE, NUM_CARDS, NUM_RANKS, card_str, cards_of, mask_of, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.rules import Rules
from gongzhu_env.view import obs_size
from gongzhu_env.worlds import build_world, sample_hands
from tests.agents.helpers import expected_card_features, game_at, play_hand
from tests.helpers import one_deck_masks

SIZES = (3, 5, 6, 7, 8)
ALL_SIZES = (3, 4, 5, 6, 7, 8)
SPECS = ("random", "greedy", "expert", "pimc:worlds=2", "pimc:worlds=2,rollout=greedy")


def _table(n: int, spec: str, seed: int) -> list:
    return [make_agent(spec, seed=seed * 10 + k) for k in range(n)]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("spec", SPECS)
def test_every_agent_plays_whole_hands_at_every_table_size(n, spec):
    rules = Rules(players=n)
    for seed in range(2):
        game = Game(rules, seed=seed)
        # play_hand checks every action against the view's legal actions.
        actions = play_hand(game, _table(n, spec, seed))
        assert game.is_over()
        scores = game.scores()
        assert len(scores) == n
        assert actions.count(DONE) == n  # each seat ended its declaration turn once
        cards = [c for t in game.tricks for c in t.cards]
        assert sorted(cards) == list(cards_of(rules.deck_mask))  # every card in play, once
        assert not mask_of(cards) & ~rules.deck_mask  # no card from outside the deck
        assert [len(t.cards) for t in game.tricks] == [n] * rules.hand_size


@pytest.mark.parametrize("n", [6, 8])
@pytest.mark.parametrize("spec", ["expert", "pimc:worlds=2"])
def test_team_play_at_six_and_eight_seats(n, spec):
    rules = Rules(players=n, team_play=True)
    game = Game(rules, seed=3)
    play_hand(game, _table(n, spec, 3))
    assert game.is_over() and len(game.scores()) == n


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("spec", ["random", "pimc:worlds=3"])
def test_the_same_seed_gives_the_same_actions(n, spec):
    def run(seed: int) -> list[int]:
        return play_hand(Game(Rules(players=n), seed=7), _table(n, spec, seed))

    first = run(1)
    assert run(1) == first


@pytest.mark.parametrize("n", ALL_SIZES)
@pytest.mark.parametrize("tries", [0, 4])
def test_sampled_deals_hold_exactly_the_unseen_cards(n, tries):
    # tries=0 runs the exact sampler at every decision; random play shows many voids.
    rules = Rules(players=n, declaration="all") if n % 2 else Rules(players=n)
    rng = np.random.default_rng(n * 10 + tries)
    removed = mask_of(rules.removed_cards)
    sampled = 0
    for seed in range(3):
        g = Game(rules, seed=seed)
        agents = _table(n, "random", seed)
        for s, a in enumerate(agents):
            a.reset(s, rules)
        step = 0
        while not g.is_over():
            p = g.current_player
            view = g.view(p)
            if g.phase == "play" and step % 2 == 0:
                hands = one_deck_masks(sample_hands(view, rng, tries=tries))
                truth = [mask_of(h) for h in g.hands]
                assert len(hands) == n
                assert hands[p] == truth[p]
                others = 0
                for s in range(n):
                    assert hands[s].bit_count() == truth[s].bit_count()
                    assert not hands[s] & removed
                    for suit in g.voids[s]:
                        assert not any(c // NUM_RANKS == suit for c in cards_of(hands[s]))
                    exposed_unplayed = mask_of(g.exposed[s]) & truth[s]
                    assert hands[s] & exposed_unplayed == exposed_unplayed
                    if s != p:
                        assert not others & hands[s]  # no card dealt twice
                        others |= hands[s]
                assert others == view.unseen_mask
                world = build_world(view, [(h, 0) for h in hands])
                assert world.num_seats == n
                assert world.actions == g.actions and world.legal_mask() == g.legal_mask()
                assert Situation.from_game(world).unseen == Situation.from_view(view).unseen
                sampled += 1
            g.step(agents[p].act(view))
            step += 1
    assert sampled >= 3 * rules.hand_size


@pytest.mark.parametrize("n", ALL_SIZES)
def test_the_situation_counts_the_table_and_its_deck(n):
    rules = Rules(players=n)
    g = Game(rules, seed=n)
    while g.phase == "declare":
        g.step(DONE)
    g.step(g.legal_actions()[0])
    g.step(g.legal_actions()[0])
    s = Situation.from_view(g.view(g.current_player))
    assert s.seats == n
    # The unseen cards are the other seats' cards, never a card left out of the deck.
    assert s.unseen == mask_of(c for seat in range(n) if seat != s.seat for c in g.hands[seat])
    assert s.seats_after() == [(s.seat + k) % n for k in range(1, n - 2)]
    assert s.last_to_play() == (n == 3)


def _position(n: int, fixed: dict[int, str], plays: str, spread: tuple[int, ...]) -> Game:
    """A free-lead hand from seat 0 at a table of ``n``, with ``plays`` made.

    ``fixed`` gives seats their only cards of one suit; the other cards of that suit go round
    the ``spread`` seats, and the other suits fill every hand.
    """
    rules = Rules(players=n)
    deck = [c for c in range(NUM_CARDS) if rules.deck_mask >> c & 1]
    given = {s: parse_cards(text) for s, text in fixed.items()}
    suit = next(iter(given.values()))[0] // NUM_RANKS
    taken = [c for cards in given.values() for c in cards]
    hands = [list(given.get(s, [])) for s in range(n)]
    for i, c in enumerate(c for c in deck if c // NUM_RANKS == suit and c not in taken):
        hands[spread[i % len(spread)]].append(c)
    for c in deck:
        if c // NUM_RANKS != suit:
            hands[next(s for s in range(n) if len(hands[s]) < rules.hand_size)].append(c)
    return game_at([sorted(h) for h in hands], 0, plays, rules)


@pytest.mark.parametrize(("n", "fixed", "plays", "spread", "last", "want"), [
    # Three seats, two clubs down: the trick is ours whatever we play, and taking the
    # transformer alone is +50, so the last seat plays it.
    (3, {0: "C3", 1: "C4", 2: "C10 CJ"}, "C3 C4", (0, 1), True, "C10"),
    # Four seats, two clubs down: a seat is still to play, so it keeps the transformer.
    (4, {0: "C3", 1: "C4", 2: "C10 CJ"}, "C3 C4", (0, 1, 3), False, "CJ"),
    # Three seats, two hearts down: the last seat sheds the ace (a burden: every unseen
    # heart is below it) into a trick it must win anyway.
    (3, {0: "H5", 1: "H6", 2: "H7 HA"}, "H5 H6", (0, 1), True, "HA"),
    # Five seats, three hearts down: seat 4 is still to play and may overtake, so it
    # follows low with H7.
    (5, {0: "H5", 1: "H6", 2: "H2", 3: "H7 HA"}, "H5 H6 H2", (0, 1, 2, 4), False, "H7"),
])
def test_last_to_play_means_every_other_seat_has_played(n, fixed, plays, spread, last, want):
    game = _position(n, fixed, plays, spread)
    seat = len(plays.split())
    assert game.current_player == seat
    assert Situation.from_game(game).last_to_play() is last
    assert card_str(make_agent("expert").act(game.view(seat))) == want
    assert card_str(expert_play(Situation.from_game(game))) == want


def test_declaration_lengths_scale_with_the_hand():
    assert suit_length(5, 13) == 5 and suit_length(5, 6) == 2 and suit_length(5, 17) == 7
    assert suit_length(3, 6) == 1
    hand = mask_of(parse_cards("SQ SK S3 H2 C4 D5"))  # three spades with a cage, of six
    legal = mask_of(parse_cards("SQ")) | 1 << DONE
    assert card_str(expert_declare(hand, legal, hand_size=6)) == "SQ"
    assert expert_declare(hand, legal) == DONE  # three of thirteen is short


def test_the_zero_sum_objective_at_other_table_sizes():
    scores = [30, -100, 20, 0, 50]
    assert objective(scores, 0, (0,), True) == pytest.approx(30 - (-30) / 4)
    assert objective(scores, 0, (0,), False) == 30
    six = [10, -40, 20, 30, 0, -60]
    # Pairs (0, 3), (1, 4), (2, 5): own pair minus the mean of the two others.
    assert objective(six, 0, (0, 3), True, teams=3) == pytest.approx(40 - (-40 + -40) / 2)


# ---------------------------------------------------------------------- neural features
@pytest.mark.parametrize("n", SIZES)
def test_card_and_holder_features_read_an_n_seat_observation(n):
    rules = Rules(players=n)
    feats, holders = CardFeatures(players=n), HolderFeatures(players=n)
    game = Game(rules, seed=n)
    agents = _table(n, "greedy", n)
    removed = list(rules.removed_cards)
    checked = 0
    while not game.is_over():
        seat = game.current_player
        view = game.view(seat)
        obs = torch.from_numpy(view.encode()).unsqueeze(0)
        got = feats(obs)[0].numpy().reshape(len(FEATURE_NAMES), NUM_CARDS)
        want = expected_card_features(game, seat)
        for i, name in enumerate(FEATURE_NAMES):
            np.testing.assert_allclose(got[i], want[name], atol=1e-6, err_msg=name)
        assert not unseen_cards(obs, n)[0, removed].any()
        h = holders(obs)[0].numpy()
        assert h.shape == (num_holder_features(n),)
        may, holds = h.reshape(2, n - 1, NUM_CARDS)
        for r in range(1, n):
            hand = game.hands[(seat + r) % n]
            assert all(may[r - 1, c] == 1.0 for c in hand)  # a true holder may hold its card
            assert all(c in hand for c in np.flatnonzero(holds[r - 1]))  # a known one is right
        assert not may[:, removed].any()
        checked += 1
        game.step(agents[seat].act(view))
    assert checked >= n * rules.hand_size


def test_a_network_reads_its_table_size_off_its_input_width():
    for n in ALL_SIZES:
        rules = Rules(players=n)
        assert QNetwork(obs_size(rules), rules.num_actions, (4,), card_features=True).players == n
        match_width = obs_size(Rules(players=n, team_play=n % 2 == 0), True)
        assert QNetwork(match_width, 53, (4,), holder_features=True).players == n
    with pytest.raises(ValueError, match="five seats, not players=4"):
        QNetwork(obs_size(Rules(players=5)), 53, (4,), card_features=True, players=4)
    with pytest.raises(ValueError, match="3 to 8 seats"):
        CardFeatures(players=9)


# ---------------------------------------------------------------------- trained policies
def test_a_four_seat_policy_is_refused_at_a_five_seat_table(tmp_path):
    path = save_policy(tmp_path / "four.pt", QNetwork(hidden=(8,)), Rules())
    five = Rules(players=5)
    with pytest.raises(PolicyLoadError, match="table of four players.*this table of five"):
        load_policy_file(path, five)
    with pytest.raises(PolicyLoadError, match="table of four players.*this table of five"):
        make_agent(f"policy:{path}", rules=five)
    agent = make_agent(f"policy:{path}")
    with pytest.raises(PolicyLoadError, match="table of four players.*this table of five"):
        agent.reset(0, five)
    with pytest.raises(PolicyLoadError, match="no policy is shipped for a table of six.*3, 4, 5"):
        make_agent("policy:pretrained", rules=Rules(players=6))


@pytest.mark.parametrize("n", [3, 6])
def test_an_n_seat_policy_plays_at_its_table_and_only_there(tmp_path, n):
    rules = Rules(players=n)
    torch.manual_seed(n)
    net = QNetwork(obs_size(rules), rules.num_actions, (8,), card_features=True,
                   holder_features=True)
    path = save_policy(tmp_path / f"p{n}.pt", net, rules)
    loaded, data = load_policy_file(path, rules)
    assert data["architecture"]["players"] == n and loaded.players == n
    agents = [make_agent(f"policy:{path}", rules=rules)] + _table(n, "random", 1)[1:]
    game = Game(rules, seed=2)
    play_hand(game, agents)
    assert game.is_over() and len(game.scores()) == n
    with pytest.raises(PolicyLoadError, match=f"table of {['three', 'six'][n == 6]} players"):
        make_agent(f"policy:{path}", rules=Rules())


def test_a_file_whose_features_read_another_table_size_is_refused(tmp_path):
    five = Rules(players=5)
    net = QNetwork(obs_size(five), five.num_actions, (8,), card_features=True)
    path = save_policy(tmp_path / "five.pt", net, five)
    data = torch.load(path, weights_only=True)
    data["architecture"]["players"] = 4  # a hand-edited or foreign file
    torch.save(data, path)
    with pytest.raises(PolicyLoadError, match="cannot be built"):
        load_policy_file(path)
