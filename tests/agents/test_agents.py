"""Agents: legality over many seeded games, determinism, the factory, scripted heuristics."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from agents import AgentError, make_agent
from agents.base import Agent
from agents.expert import expert_declare
from agents.knowledge import Situation, sample_hands
from agents.pimc import PimcAgent, build_world, card_runs, distinct_cards
from gongzhu_env.cards import DONE, card_str, mask_of, parse_card, parse_cards
from gongzhu_env.engine import Game
from gongzhu_env.rules import PRESETS, Rules

RULE_AGENTS = ("random", "greedy", "expert")


def play_hand(game: Game, agents: list[Agent]) -> list[int]:
    """Play a hand to the end, checking that every action is legal for its view."""
    for seat, a in enumerate(agents):
        a.reset(seat, game.rules)
    actions = []
    while not game.is_over():
        p = game.current_player
        view = game.view(p)
        a = agents[p].act(view)
        assert a in view.legal_actions, (
            f"{agents[p].name} at seat {p} chose {a} ({card_str(a) if 0 <= a <= 52 else a}), "
            f"not in {view.legal_actions}"
        )
        game.step(a)
        actions.append(a)
    return actions


# ---------------------------------------------------------------------- legality
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rule_agents_only_play_legal_actions(preset):
    rules = Rules.preset(preset)
    rng = np.random.default_rng(7)
    games = 0
    for i in range(2000):
        # Mixed tables, so every agent meets every kind of trick (and random exposures).
        specs = [RULE_AGENTS[(i + k) % 3] if k != i % 4 else RULE_AGENTS[i % 3]
                 for k in range(4)]
        agents = [make_agent(s, seed=i * 4 + k) for k, s in enumerate(specs)]
        leader = None if i % 5 else i % 4  # some later-hand-of-a-match free leads
        game = Game(rules, rng=rng, leader=leader)
        play_hand(game, agents)
        games += 1
        assert len(game.tricks) == 13
    assert games == 2000


def test_expert_and_greedy_tables_play_legal_actions():
    rng = np.random.default_rng(11)
    for spec in ("greedy", "expert"):
        for _ in range(500):
            agents = [make_agent(spec, seed=k) for k in range(4)]
            play_hand(Game(rng=rng), agents)


@pytest.mark.parametrize("rules", [Rules.preset(p) for p in sorted(PRESETS)]
                         + [Rules(hidden_exposure=True)])
def test_pimc_plays_legal_actions_under_every_preset(rules):
    rng = np.random.default_rng(5)
    for i in range(2):
        agents = [make_agent("pimc:worlds=2", seed=i * 4 + k) if k != 1
                  else make_agent("random", seed=k) for k in range(4)]
        play_hand(Game(rules, rng=rng), agents)


@pytest.mark.parametrize("rollout", ["expert", "greedy"])
def test_pimc_only_plays_legal_actions(rollout):
    rng = np.random.default_rng(3)
    for i in range(3):
        agents = [make_agent(f"pimc:worlds=3,rollout={rollout}", seed=i * 4 + k)
                  if k % 2 == 0 else make_agent("random", seed=k) for k in range(4)]
        play_hand(Game(rng=rng, leader=None if i else 2), agents)


# ---------------------------------------------------------------------- determinism
@pytest.mark.parametrize("spec", ["random", "greedy", "expert", "pimc:worlds=3"])
def test_same_seed_same_play(spec):
    def run(seed):
        agents = [make_agent(spec, seed=seed + k) for k in range(4)]
        return play_hand(Game(seed=5), agents)

    assert run(1) == run(1)


def test_random_agent_depends_on_its_seed():
    def run(spec, seed):
        agents = [make_agent(spec, seed=seed + k) for k in range(4)]
        return play_hand(Game(seed=9), agents)

    assert len({tuple(run("random", s)) for s in range(4)}) > 1


# ---------------------------------------------------------------------- factory
def test_make_agent_parses_specs():
    assert make_agent("greedy").name == "greedy"
    assert make_agent("expert").name == "expert"
    p = make_agent("pimc:worlds=8,rollout=greedy", seed=1)
    assert isinstance(p, PimcAgent)
    assert (p.worlds, p.rollout_name, p.objective) == (8, "greedy", "zero_sum")
    q = make_agent(" pimc : worlds = 5 , objective = raw ")
    assert (q.worlds, q.objective) == (5, "raw")
    d = make_agent("pimc")
    assert d.worlds >= 1 and d.rollout_name == "expert"


@pytest.mark.parametrize("spec, words", [
    ("alphazero", ["unknown agent", "alphazero", "expert"]),
    ("", ["non-empty"]),
    ("pimc:depth=3", ["bad option", "depth"]),
    ("pimc:worlds=0", ["worlds", "positive"]),
    ("pimc:worlds=many", ["worlds", "positive"]),
    ("pimc:rollout=minimax", ["rollout", "minimax", "greedy"]),
    ("pimc:objective=win", ["objective", "win"]),
    ("pimc:worlds", ["key=value"]),
    ("greedy:level=2", ["bad option", "level"]),
    ("policy:", ["checkpoint path"]),
])
def test_make_agent_rejects_bad_specs(spec, words):
    with pytest.raises(AgentError) as e:
        make_agent(spec)
    for w in words:
        assert w in str(e.value)


def test_policy_spec_without_policy_module_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "agents.policy", None)
    with pytest.raises(AgentError, match="agents.policy"):
        make_agent("policy:some/file.pt")


def test_policy_spec_with_missing_file_fails_clearly(tmp_path):
    missing = tmp_path / "nope.pt"
    with pytest.raises(Exception) as e:
        make_agent(f"policy:{missing}")
    assert "nope.pt" in str(e.value)


# ---------------------------------------------------------------------- scripted situations
def deal(*hands: str) -> list[list[int]]:
    out = [parse_cards(h) for h in hands]
    assert sorted(c for h in out for c in h) == list(range(52)), "test deal is not a deck"
    return out


def game_at(hands: list[list[int]], leader: int, plays: str, rules: Rules | None = None) -> Game:
    """A free-lead hand from ``leader`` with no exposures and the given cards played."""
    g = Game.from_hands(hands, rules, leader=leader)
    while g.phase == "declare":
        g.step(DONE)
    for c in parse_cards(plays):
        g.step(c)
    return g


def choose(spec: str, g: Game) -> str:
    return card_str(make_agent(spec, seed=0).act(g.view(g.current_player)))


def test_expert_ducks_under_the_pig():
    # SQ is out (seat 2); the expert (seat 1) holds S5 SJ SK behind a S3 lead: it plays SJ,
    # the highest spade that the pig still beats, keeping SK off a trick the pig may fall on.
    hands = deal("S2 S3 S4 C2 C3 C4 C5 C6 C7 C8 C9 C10 D2",
                 "S5 SJ SK CJ CQ CK CA D3 D4 D5 D6 D7 D8",
                 "SQ S6 S7 D9 D10 DJ DQ DK DA H2 H3 H4 H5",
                 "S8 S9 S10 SA H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 0, "S3")
    assert choose("expert", g) == "SJ"
    assert choose("greedy", g) == "S5"  # greedy only sees that everything wins: lowest


def test_expert_catches_the_sheep_with_a_master_cage():
    # DJ is out with only four other diamonds: the expert's DA, the master, goes to fetch it.
    hands = deal("DA D2 D3 D4 D5 D6 D7 D8 SK C2 C3 C4 H2",
                 "DJ D9 S2 S3 S4 C10 CJ CQ CK CA H3 C5 C6",
                 "D10 DQ DK S5 S6 S7 H4 H5 H6 H7 C7 C8 C9",
                 "SQ SA S8 S9 S10 SJ H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 0, "")
    assert choose("expert", g) == "DA"
    assert choose("greedy", g) == "C2"


def test_expert_leads_the_pig_into_the_cages():
    # Every spade the expert cannot see is SK or SA: led, the pig goes to whoever covers it.
    hands = deal("SQ S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ C2 H2",
                 "SK C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ CK CA",
                 "SA D2 D3 D4 D5 D6 D7 D8 D9 D10 DJ DQ DK",
                 "DA H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 0, "")
    assert choose("expert", g) == "SQ"


def test_expert_flushes_the_pig_with_low_spades():
    hands = deal("S2 S5 S9 D2 D3 D4 D5 D6 C2 C3 C4 C5 C6",
                 "SQ S3 S4 D7 D8 D9 D10 C7 C8 C9 C10 H2 H3",
                 "SK S6 S7 S8 DJ DQ DK DA CJ CQ CK CA H4",
                 "SA S10 SJ H5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 0, "")
    assert choose("expert", g) == "S2"
    assert choose("greedy", g) == "C2"


def test_expert_does_not_take_the_transformer_with_hearts():
    # Clubs: C3 led, C10 played, HQ discarded. Last to play with CA C2, the expert ducks.
    hands = deal("CA C2 D2 D3 D4 D5 D6 S2 S3 S4 S5 S6 H2",
                 "C3 C4 C5 C6 C7 C8 C9 D7 D8 D9 D10 S7 S8",
                 "C10 CJ CQ CK DJ DQ DK DA S9 S10 SJ H3 H4",
                 "SQ SK SA H5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 1, "C3 C10 HQ")
    assert choose("expert", g) == "C2"


def test_expert_takes_a_clean_transformer():
    # Same, but the trick is C3 C10 C5 and the expert has taken nothing: CA takes a clean +50.
    hands = deal("CA C2 D2 D3 D4 D5 D6 S2 S3 S4 S5 S6 H2",
                 "C3 C4 H5 C6 C7 C8 C9 D7 D8 D9 D10 S7 S8",
                 "C10 CJ CQ CK DJ DQ DK DA S9 S10 SJ H3 H4",
                 "SQ SK SA C5 H6 H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 1, "C3 C10 C5")
    assert choose("expert", g) == "CA"
    assert choose("greedy", g) == "C2"


def test_expert_sheds_its_own_pig_under_a_cage():
    hands = deal("SQ S3 D2 D3 D4 D5 D6 C2 C3 C4 C5 C6 H2",
                 "S4 S5 D7 D8 D9 D10 C7 C8 C9 C10 H3 H4 H5",
                 "SK S6 S7 S8 DJ DQ DK DA CJ CQ CK CA H6",
                 "SA S2 S9 S10 SJ H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 2, "SK S2")
    assert choose("expert", g) == "SQ"


def test_expert_keeps_its_pig_behind_a_lower_spade():
    # S4 S6 S9 played, SK and SA still out: the expert ducks with S8, its highest spade under
    # S9, and keeps the pig.
    hands = deal("SQ S3 S8 D3 D4 D5 D6 C2 C3 C4 C5 C6 H2",
                 "S4 S5 D7 D8 D9 D10 C7 C8 C9 C10 H3 H4 H5",
                 "SK S6 S7 D2 DJ DQ DK DA CJ CQ CK CA H6",
                 "SA S2 S9 S10 SJ H7 H8 H9 H10 HJ HQ HK HA")
    g = game_at(hands, 1, "S4 S6 S9")
    assert choose("expert", g) == "S8"


def test_greedy_and_expert_discard_the_pig_when_void():
    hands = deal("SQ S3 D2 D3 D4 D5 D6 H2 H3 H4 H5 H6 H7",
                 "C2 C4 C5 D7 D8 D9 D10 C7 C8 C9 C10 H8 H9",
                 "SK S6 S7 S8 DJ DQ DK DA CJ CQ CK CA H10",
                 "SA S2 S4 S5 S9 S10 SJ C3 C6 HJ HQ HK HA")
    g = game_at(hands, 1, "C4 CA C3")
    assert choose("greedy", g) == "SQ"
    assert choose("expert", g) == "SQ"


def test_expert_exposes_by_hand_shape():
    strong = mask_of(parse_cards("SQ SK SA S9 S5 C10 D2 D3 H2 H3 H4 C2 C3"))
    legal = mask_of(parse_cards("SQ C10")) | 1 << DONE
    assert expert_declare(strong, legal) == parse_card("SQ")
    weak = mask_of(parse_cards("SQ S2 C10 CK CA H9 HJ HQ D2 D3 D4 D5 D6"))
    assert expert_declare(weak, legal) == DONE  # short spades, no cage; C10 never
    sheep = mask_of(parse_cards("DJ DA D5 D6 S2 S3 C2 C3 C4 H2 H3 H4 H5"))
    assert expert_declare(sheep, mask_of([parse_card("DJ")]) | 1 << DONE) == parse_card("DJ")
    bare_sheep = mask_of(parse_cards("DJ D9 D5 D6 S2 S3 C2 C3 C4 H2 H3 H4 H5"))  # no cage
    assert expert_declare(bare_sheep, mask_of([parse_card("DJ")]) | 1 << DONE) == DONE
    c10_only = 1 << parse_card("C10") | 1 << DONE
    long_low_clubs = mask_of(parse_cards("C10 C2 C3 C5 CK D2 D3 D4 S2 S3 S4 H2 H9"))
    assert expert_declare(long_low_clubs, c10_only) == parse_card("C10")
    with_big_hearts = mask_of(parse_cards("C10 C2 C3 C5 CK D2 D3 D4 S2 S3 S4 H2 HQ"))
    assert expert_declare(with_big_hearts, c10_only) == DONE


def test_greedy_never_exposes():
    g = Game(seed=1)
    for _ in range(4):
        assert make_agent("greedy").act(g.view(g.current_player)) == DONE
        g.step(DONE)


# ---------------------------------------------------------------------- sampling
@pytest.mark.parametrize("tries", [0, 4])
def test_sampled_worlds_respect_voids_exposures_and_sizes(tries):
    # tries=0 exercises the exact sampler at every step; random play shows many voids.
    rng = np.random.default_rng(tries)
    for seed in range(25):
        g = Game(seed=seed)
        agents = [make_agent("random", seed=seed * 4 + k) for k in range(4)]
        steps = 0
        while not g.is_over():
            p = g.current_player
            view = g.view(p)
            if g.phase == "play" and (tries == 0 or steps % 3 == 0):
                hands = sample_hands(view, rng, tries=tries)
                truth = [mask_of(h) for h in g.hands]
                assert hands[p] == truth[p]
                for s in range(4):
                    assert hands[s].bit_count() == truth[s].bit_count()
                    assert hands[s] & view.played_mask == 0
                    for suit in g.voids[s]:
                        assert not any(c // 13 == suit for c in _cards(hands[s]))
                    exposed_unplayed = mask_of(g.exposed[s]) & truth[s]
                    assert hands[s] & exposed_unplayed == exposed_unplayed
                assert sum(h.bit_count() for h in hands) == sum(len(h) for h in g.hands)
                world = build_world(view, hands)
                assert world.actions == g.actions and world.legal_mask() == g.legal_mask()
                assert Situation.from_game(world).legal == Situation.from_view(view).legal
            g.step(agents[p].act(view))
            steps += 1


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def test_pimc_searches_equivalent_cards_once():
    legal = parse_cards("C4 C5 C7 C10 CJ H2 H3")
    # C4 and C5 are adjacent (one run); C6 is unseen, so C7 is a new run; C10 scores, so it
    # stands alone, as do CJ and every heart.
    unseen = mask_of(parse_cards("C6 C8 CQ H4"))
    got = [card_str(c) for c in distinct_cards(legal, unseen)]
    assert got == ["C5", "C7", "C10", "CJ", "H2", "H3"]
    # A preferred card represents its run.
    assert card_str(distinct_cards(legal, unseen, prefer=parse_card("C4"))[0]) == "C4"
    # The runs themselves partition the legal cards, in order.
    runs = [[card_str(c) for c in run] for run in card_runs(legal, unseen)]
    assert runs == [["C4", "C5"], ["C7"], ["C10"], ["CJ"], ["H2"], ["H3"]]


def test_expert_feeds_its_partner_the_sheep_not_the_pig():
    # Team play: the partner (seat 2) wins with CA; void in clubs, the expert gives it DJ.
    hands = deal("SQ S3 D2 D3 D4 D5 D6 H2 H3 H4 H5 H6 DJ",
                 "C2 C4 C5 D7 D8 D9 D10 C7 C8 C9 C10 H8 H9",
                 "SK S6 S7 S8 H7 DQ DK DA CJ CQ CK CA H10",
                 "SA S2 S4 S5 S9 S10 SJ C3 C6 HJ HQ HK HA")
    g = game_at(hands, 2, "CA C3", Rules(team_play=True))
    assert choose("expert", g) == "DJ"
    alone = game_at(hands, 2, "CA C3")
    assert choose("expert", alone) == "SQ"
