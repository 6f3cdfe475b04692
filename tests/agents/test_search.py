"""``search``: worlds consistent with the view, play-likelihood weighting, determinism, legal
play under every option, refused options and networks."""

from __future__ import annotations

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.base import AgentError  # noqa: E402
from agents.knowledge import Situation  # noqa: E402
from agents.pimc import action_runs, candidates  # noqa: E402
from agents.policy import PolicyLoadError, QNetwork, policy_dict, save_policy  # noqa: E402
from agents.search import (  # noqa: E402
    TABLE_DEFAULTS,
    SearchAgent,
    SearchResult,
    normalised,
    replay_world,
)
from gongzhu_env.cards import DONE, NUM_CARDS, mask_of, parse_card, parse_cards  # noqa: E402
from gongzhu_env.engine import Game  # noqa: E402
from gongzhu_env.rules import Rules  # noqa: E402
from gongzhu_env.scoring import zero_sum  # noqa: E402
from gongzhu_env.view import PlayerView, obs_size  # noqa: E402
from gongzhu_env.worlds import build_world, sample_hands  # noqa: E402
from tests.agents.helpers import play_hand  # noqa: E402
from tests.helpers import make_deal, tiny_q_network  # noqa: E402


@pytest.fixture(scope="module")
def ducker(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A network that ignores its input and scores every card by minus its rank.

    As a model of the players it says: play your lowest legal card, so a high card played when
    a lower one was legal is unlikely, and a high card played as the only legal card is not.
    """
    net = QNetwork(hidden=(4,))
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        bias = net.net[-1].bias
        for c in range(52):
            bias[c] = -(c % 13) / 4.0
    path = tmp_path_factory.mktemp("nets") / "ducker.pt"
    return str(save_policy(path, net, Rules()))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A small random network for the standard rules: fast enough to play whole hands."""
    path = tmp_path_factory.mktemp("nets") / "tiny.pt"
    return str(save_policy(path, tiny_q_network(3), Rules()))


def _positions(seed: int, count: int) -> list[Game]:
    """Games at play decisions with a choice, reached by expert play of a seeded deal."""
    g = Game(seed=seed)
    agents = [make_agent("expert", seed=k) for k in range(4)]
    out = []
    while not g.is_over():
        p = g.current_player
        view = g.view(p)
        if view.phase == "play" and len(view.legal_actions) > 1 and len(out) < count:
            out.append(g.clone())
        g.step(agents[p].act(view))
    return out


# ------------------------------------------------------------------ worlds and inference
def test_replayed_worlds_reproduce_the_view_and_trace_only_other_seats_choices():
    rng = np.random.default_rng(0)
    expert = make_agent("expert")
    for g in _positions(4, 6):
        me = g.current_player
        view = g.view(me)
        hands = sample_hands(view, rng)
        world, trace = replay_world(view, hands)
        # The world is the present from this seat's point of view, and the engine's own
        # world builder agrees with it.
        assert world.view(me).encode().tolist() == view.encode().tolist()
        assert world.hand_masks == build_world(view, hands).hand_masks
        # One traced row per decision another seat took with more than one legal action.
        replay = Game.from_hands(world.deal, g.rules, leader=None)
        expected = []
        for a in view.actions:
            p = replay.current_player
            if p != me and len(replay.legal_actions()) > 1:
                expected.append((replay.observation(p), replay.view(p), a))
            replay.step(a)
        assert [d.action for d in trace] == [a for _, _, a in expected]
        for d, ((obs_p, mask_p), _, _) in zip(trace, expected, strict=True):
            # The seat's own observation in that world, not the observer's.
            assert d.obs.tolist() == obs_p.tolist() and d.mask.tolist() == mask_p.tolist()
            assert d.mask[d.action] == 1 and d.legal == d.mask.sum() > 1
        # The expert model's trace: the same decisions, each with what the expert plays from
        # that seat's own view of the world.
        _, expert_trace = replay_world(view, hands, "expert")
        assert [(d.action, d.legal) for d in expert_trace] == [(d.action, d.legal) for d in trace]
        for d, (_, view_p, _) in zip(expert_trace, expected, strict=True):
            assert d.obs is None and d.expert == expert.act(view_p)


def _king_worlds() -> tuple[PlayerView, list[int], list[int]]:
    """Seat 0 leads S5 and seat 1 plays SK; seat 2's view, and two worlds that explain it.

    World A: seat 1 still holds S2 S3 (it chose the king). World B: those two spades are seat
    3's, so the king was seat 1's only spade (forced).
    """
    g = Game.from_hands(make_deal("S5 S4 C2", "SK S2 S3 D3 D4", "", "D5 D6"), leader=0)
    while g.phase == "declare":
        g.step(DONE)
    g.step(parse_card("S5"))
    g.step(parse_card("SK"))
    world_a = list(g.hand_masks)
    spades, others = mask_of(parse_cards("S2 S3")), mask_of(parse_cards("D5 D6"))
    world_b = world_a[:]
    world_b[1] = world_a[1] & ~spades | others
    world_b[3] = world_a[3] & ~others | spades
    return g.view(2), world_a, world_b


def test_worlds_where_a_high_card_was_forced_outweigh_worlds_where_it_was_not(ducker):
    # Seat 0 leads S5, seat 1 plays SK. Seat 2 (the observer) cannot tell whether seat 1 could
    # have ducked. In world A seat 1 still holds S2 S3 (it chose the king); in world B those
    # two spades are seat 3's and the king was seat 1's only spade (forced). Under a model of
    # players who play low, B explains the king better.
    view, world_a, world_b = _king_worlds()
    agent = SearchAgent(seed=0, net=ducker, floor=0.0)
    traces = [replay_world(view, [(h, 0) for h in w])[1] for w in (world_a, world_b)]
    logw = agent.log_likelihoods(traces)
    # B: the king was forced, so only seat 0's lead and the declarations count.
    assert len(traces[1]) == len(traces[0]) - 1
    assert logw[1] > logw[0]
    # The gap is exactly the model's probability of the king among S2 S3 SK in world A.
    z = np.array([-0.0, -0.25, -11 / 4.0])  # -rank/4 for S2, S3, SK
    p_king = np.exp(z[2]) / np.exp(z).sum()
    assert logw[1] - logw[0] == pytest.approx(-np.log(p_king), rel=1e-5)
    # A uniform floor softens the evidence but keeps its direction.
    soft = SearchAgent(seed=0, net=ducker, floor=0.5).log_likelihoods(traces)
    assert 0 < soft[1] - soft[0] < logw[1] - logw[0]
    w = normalised(logw)
    assert w.sum() == pytest.approx(1.0) and w[1] > w[0]


def test_the_search_acts_the_same_whatever_the_hidden_hands(tiny):
    # Other deals that give the observer the same view (built by the engine from sampled
    # hidden hands) must give the same card for the same seed: the agent reads only the view.
    rng = np.random.default_rng(1)
    for g in _positions(7, 5):
        me = g.current_player
        view = g.view(me)
        first = make_agent(f"search:worlds=4,net={tiny}", seed=9).act(view)
        pretrained = make_agent("search:worlds=3", seed=9).act(view)
        for _ in range(2):
            other = build_world(view, sample_hands(view, rng))
            alt = other.view(me)
            assert alt.encode().tolist() == view.encode().tolist()
            assert make_agent(f"search:worlds=4,net={tiny}", seed=9).act(alt) == first
            assert make_agent("search:worlds=3", seed=9).act(alt) == pretrained


# ------------------------------------------------------------------ play
@pytest.mark.parametrize("options", ["worlds=3", "worlds=2,depth=1", "worlds=2,depth=end",
                                     "worlds=3,temperature=0.25,floor=0", "worlds=20,time=0.01",
                                     "worlds=3,model=expert,value=mix,declare=expert",
                                     "worlds=2,value=rollout,depth=end"])
def test_search_plays_legal_actions(options, tiny):
    rng = np.random.default_rng(2)
    agents = [make_agent(f"search:{options},net={tiny}", seed=k) if k % 2 == 0
              else make_agent("expert", seed=k) for k in range(4)]
    play_hand(Game(rng=rng), agents)


@pytest.mark.parametrize("preset", ["standard", "huapai", "scrofazero"])
def test_search_with_the_shipped_network_plays_legal_hands_under_its_rules(preset):
    rules = Rules.preset(preset)
    agents = [make_agent("search:worlds=2", seed=k, rules=rules) if k != 1
              else make_agent("random", seed=k) for k in range(4)]
    play_hand(Game(rules, seed=3), agents)


@pytest.mark.parametrize("players", [3, 5, 8])
def test_search_plays_legal_hands_at_other_table_sizes(players, tmp_path):
    rules = Rules(players=players)
    torch.manual_seed(players)
    net = QNetwork(obs_size(rules), rules.num_actions, hidden=(8,))
    path = save_policy(tmp_path / f"seats{players}.pt", net, rules)
    agents = [make_agent(f"search:worlds=3,net={path}", seed=k, rules=rules)
              for k in range(players)]
    play_hand(Game(rules, seed=players), agents)


def test_a_hand_of_a_match_is_searched_as_a_lone_hand():
    # The network reads single hands; a view carrying the match blocks is seen without them,
    # so the search plays the same card for the same seed. (The first hand of a match: a later
    # hand's first lead is free, which the worlds rightly read differently.)
    for g in _positions(3, 3):
        view = g.view(g.current_player)
        in_match = copy.copy(view)
        in_match.match_scores, in_match.hand_number = (0, 0, 0, 0), 0
        assert len(in_match.encode()) > len(view.encode())
        assert make_agent("search:worlds=3", seed=4).act(in_match) == \
            make_agent("search:worlds=3", seed=4).act(view)


def test_hidden_exposures_fall_back_to_the_network(tmp_path):
    rules = Rules(hidden_exposure=True)
    torch.manual_seed(0)
    path = save_policy(tmp_path / "hidden.pt", QNetwork(obs_size(rules), hidden=(8,)), rules)
    agents = [make_agent(f"search:worlds=2,net={path}", seed=k, rules=rules) for k in range(4)]
    play_hand(Game(rules, seed=5), agents)


def test_same_seed_same_hand_and_reseed_is_a_fresh_agent(tiny):
    def run(seed: int) -> list[int]:
        agents = [make_agent(f"search:worlds=4,net={tiny}", seed=seed + k) for k in range(4)]
        return play_hand(Game(seed=11), agents)

    first = run(0)
    assert run(0) == first
    # An agent reused for another deal after reseed acts as a fresh one of that seed.
    g = _positions(12, 3)[-1]
    view = g.view(g.current_player)
    used = make_agent(f"search:worlds=4,net={tiny}", seed=1)
    for _ in range(3):
        used.act(view)
    used.reseed(5)
    assert used.act(view) == make_agent(f"search:worlds=4,net={tiny}", seed=5).act(view)


def test_two_processes_find_what_one_finds(tiny):
    """The worlds are dealt from the decision's seed and their index alone, so sharing them
    between two processes gives the same values and moves as searching them in one."""
    alone = make_agent(f"search:worlds=5,net={tiny}", seed=3)
    shared = make_agent(f"search:worlds=5,net={tiny},workers=2", seed=3)
    assert "workers=2" in shared.name
    try:
        searched = 0
        for g in _positions(21, 8):
            view = g.view(g.current_player)
            a, b = alone.search(view), shared.search(view)
            if not isinstance(a, SearchResult):  # one run of equivalent cards: no search
                assert a == b
                continue
            searched += 1
            assert a.worlds == b.worlds == 5
            assert a.candidates == b.candidates and a.choice == b.choice
            assert np.allclose(a.values, b.values, atol=1e-6)
        assert searched >= 3 and shared._pool is not None
    finally:
        shared.close()
    assert shared._pool is None


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("option, named", [
    ("worlds=0", "worlds"), ("worlds=2.5", "worlds"), ("depth=-1", "depth"),
    ("depth=deep", "depth"), ("temperature=0", "temperature"), ("temperature=-1", "temperature"),
    ("floor=1", "floor"), ("floor=-0.1", "floor"), ("time=-5", "time"), ("scale=0", "scale"),
    ("workers=0", "workers"), ("workers=1.5", "workers"), ("model=pimc", "model"),
    ("model=expert,floor=0", "floor"), ("value=deep", "value"), ("declare=pimc", "declare"),
    # Every number is bounded, so that no spec builds an agent whose decisions never end.
    ("worlds=1000000000", "worlds"), ("depth=1000", "depth"), ("temperature=1e-300", "temperature"),
    ("temperature=1e9", "temperature"), ("time=1e12", "time"), ("scale=1e300", "scale"),
    ("scale=1e-9", "scale"), ("workers=100000", "workers"), ("temperature=nan", "temperature"),
    ("time=inf", "time"),
])
def test_out_of_range_options_are_refused_by_name(option, named):
    with pytest.raises(AgentError, match=f"search option {named} must"):
        make_agent(f"search:{option}")


def test_unknown_options_and_rules_are_refused():
    with pytest.raises(AgentError, match="wrolds"):
        make_agent("search:wrolds=3")
    with pytest.raises(AgentError, match="'rules' is not an option"):
        make_agent("search:rules=huapai")


@pytest.mark.parametrize("spec, said", [
    ("search:worlds=2,worlds=3", "option 'worlds' is given twice"),
    ("search:seed=5", "'seed' is not an option; each seat's seed"),
])
def test_repeated_options_and_a_seed_in_the_spec_are_refused(spec, said):
    # Before: the last 'worlds' won silently, and 'seed' clashed with make_agent's own.
    with pytest.raises(AgentError, match=said):
        make_agent(spec, seed=1)


def test_a_network_for_other_rules_is_refused_naming_the_option_and_the_rule():
    # The standard network brought to a huapai table, at construction and at reset.
    with pytest.raises(PolicyLoadError, match="net=gongzhu_dmc_full.pt.*strict_exposure"):
        make_agent("search:net=gongzhu_dmc_full.pt", rules=Rules.preset("huapai"))
    agent = make_agent("search:worlds=2")
    with pytest.raises(PolicyLoadError, match="search option net=pretrained.*strict_exposure"):
        agent.reset(0, Rules.preset("huapai"))
    with pytest.raises(PolicyLoadError, match="net=missing.pt.*not found"):
        make_agent("search:net=missing.pt")


def test_networks_the_search_cannot_use_are_refused(tmp_path):
    net = QNetwork(hidden=(8,))
    logits = tmp_path / "actor.pt"
    torch.save(policy_dict(net, Rules(), kind="logits", trainer="sb3-maskable-ppo"), logits)
    with pytest.raises(PolicyLoadError, match="kind 'logits'.*needs action values"):
        make_agent(f"search:net={logits}")
    match = save_policy(tmp_path / "match.pt", QNetwork(obs_size(Rules(), True), hidden=(8,)),
                        Rules())
    with pytest.raises(PolicyLoadError, match="match observations"):
        make_agent(f"search:net={match}")


def test_a_single_run_of_equivalent_cards_is_played_without_sampling(tiny):
    # Seat 2 must follow clubs with C3 or C4: the same card in effect, so there is nothing
    # to search and no world is drawn (the generator is untouched).
    hands = make_deal("C2 C5 C6 C7 C8 C9 C10 CJ CQ CK CA", "", "C3 C4", "")
    g = Game.from_hands(hands)
    while g.phase == "declare":
        g.step(DONE)
    g.step(parse_card("C2"))
    g.step(g.legal_actions()[0])
    view = g.view(2)
    assert view.legal_actions == parse_cards("C3 C4")
    agent = make_agent(f"search:worlds=2,net={tiny}", seed=0)
    before = agent.rng.bit_generator.state
    assert agent.act(view) in view.legal_actions
    assert agent.rng.bit_generator.state == before


def test_a_card_whose_sequel_is_forced_is_worth_its_real_result(tiny):
    # At the twelfth trick, when everything after this seat's card is forced, the value of a
    # card in the true world is the hand's real zero-sum result (over the scale), whatever the
    # network: no estimate is involved.
    agent = SearchAgent(seed=0, net=tiny, depth=0)
    checked = 0
    for seed in range(40):
        g = Game(seed=seed)
        experts = [make_agent("expert", seed=k) for k in range(4)]
        while not g.is_over() and checked < 4:
            view = g.view(g.current_player)
            if g.tricks_played == 11 and len(view.legal_actions) == 2:
                expected = []
                for c in view.legal_actions:
                    end = g.clone()
                    end.step(c)
                    while not end.is_over() and len(end.legal_actions()) == 1:
                        end.step(end.legal_actions()[0])
                    if not end.is_over():
                        break  # another seat still has a choice: not this test's position
                    expected.append(zero_sum(end.scores())[view.seat] / 400)
                else:
                    sit = Situation.from_view(view)
                    got = agent.values(view, [g.clone()], view.legal_actions, sit)
                    assert got.shape == (1, 2)
                    assert got[0].tolist() == pytest.approx(expected)
                    checked += 1
            g.step(experts[g.current_player].act(view))
    assert checked == 4


def test_rollout_values_are_the_expert_playing_the_world_out_and_mix_is_their_mean(tiny):
    """``value=rollout`` is what ``pimc`` computes in one world (the expert at every seat to the
    end, the zero-sum result over the scale); ``value=mix`` averages it with the network's."""
    from agents.expert import expert_play
    from agents.pimc import rollout

    g = _positions(7, 3)[-1]
    view = g.view(g.current_player)
    sit = Situation.from_view(view)
    cands = view.legal_actions
    worlds = [replay_world(view, sample_hands(view, np.random.default_rng(k)))[0]
              for k in range(3)]
    expected = np.array([[min(4.0, max(-4.0, zero_sum(rollout(_after(w, c), expert_play))
                                       [view.seat] / 400)) for c in cands] for w in worlds])
    by_value = {v: SearchAgent(seed=0, net=tiny, value=v).values(view, worlds, cands, sit)
                for v in ("net", "rollout", "mix")}
    assert by_value["rollout"] == pytest.approx(expected)
    assert by_value["mix"] == pytest.approx((by_value["net"] + expected) / 2)
    assert not np.allclose(by_value["net"], expected)


def _after(world: Game, card: int) -> Game:
    g = world.clone()
    g.step(card)
    return g


def test_play_probabilities_are_a_distribution_over_the_legal_actions() -> None:
    from agents.search import play_probabilities

    q = np.array([[0.0, 1.0, 2.0, 5.0], [0.3, 0.1, 0.2, 0.0]])
    mask = np.array([[1, 1, 1, 0], [1, 1, 0, 1]], dtype=np.int8)
    for temperature, floor in ((1.0, 0.1), (0.05, 0.0), (10.0, 0.5)):
        total = sum(play_probabilities(q, mask, np.array([a, b]), temperature, floor)
                    for a, b in ((0, 0), (1, 1), (2, 3)))
        assert np.allclose(total, 1.0)
    # The illegal action scored 5 takes nothing; a cold model picks the best legal one...
    cold = play_probabilities(q, mask, np.array([2, 0]), 0.01, 0.0)
    assert cold[0] > 0.999 and cold[1] > 0.999
    # ...and the floor keeps every legal action possible.
    floor = play_probabilities(q, mask, np.array([0, 3]), 0.01, 0.3)
    assert np.allclose(floor, [0.1, 0.1])


def test_inference_benchmark_finds_the_cards_of_players_the_model_knows(ducker: str) -> None:
    """Players who always duck (play their lowest legal card) give their hands away to a model
    that knows it: the weighted worlds place the hidden cards better than the sampler alone."""
    from training.diagnostics.inference import measure, positions

    views = positions(f"policy:{ducker}", 2, seed=3)[::4]
    rows = {r["setting"]: r for r in measure(SearchAgent(net=ducker), views, 16, 0,
                                             [("net", 0.05, 0.01)])}
    uniform, model = rows["uniform"], rows["temperature=0.05,floor=0.01"]
    assert uniform["ess"] == pytest.approx(16.0)
    assert model["ess"] < 16.0
    assert 0.0 < uniform["p_true"] < model["p_true"] <= 1.0
    assert uniform["p_true_pts"] < model["p_true_pts"] <= 1.0


def test_the_expert_model_weighs_worlds_by_whether_the_expert_would_have_played_so() -> None:
    from agents.search import expert_probabilities

    # Seat 1 played SK on a spade lead. Where it still holds S2 S3 the expert would have
    # ducked; where the king was its only spade it was forced (no evidence either way).
    view, world_a, world_b = _king_worlds()
    traces = [replay_world(view, [(h, 0) for h in w], "expert")[1] for w in (world_a, world_b)]
    king = [d for d in traces[0] if d.action == parse_card("SK")]
    assert len(king) == 1 and king[0].expert != king[0].action and king[0].legal == 3
    for floor in (0.1, 0.3):
        agent = SearchAgent(seed=0, model="expert", floor=floor)
        logw = agent.log_likelihoods(traces)
        # The decisions both worlds share are scored alike, so the gap is the king's weight.
        assert logw[1] - logw[0] == pytest.approx(-np.log(floor / 3))
    assert expert_probabilities(np.array([4, 4]), np.array([4, 5]), np.array([2, 2]), 0.3
                                ).tolist() == pytest.approx([0.85, 0.15])


def test_the_expert_model_plays_legally_and_the_same_for_a_seed(tiny: str) -> None:
    plays = []
    for _ in range(2):
        agent = make_agent(f"search:model=expert,worlds=4,net={tiny}", seed=11)
        plays.append(play_hand(Game(seed=2), [agent] + [make_agent("expert") for _ in range(3)]))
    assert plays[0] == plays[1]


def test_declare_expert_declares_by_the_experts_rule_and_net_by_the_network() -> None:
    by_expert = SearchAgent(seed=0, declare="expert")
    by_net = SearchAgent(seed=0)
    expert = make_agent("expert")
    differ = checked = 0
    for seed in range(30):
        g = Game(seed=seed)
        while g.phase == "declare":
            view = g.view(g.current_player)
            if len(view.legal_actions) > 1:
                assert by_expert.act(view) == expert.act(view)
                assert by_net.act(view) == by_net._net_choice(view)
                differ += by_net.act(view) != expert.act(view)
                checked += 1
            g.step(expert.act(view))
    assert checked > 20 and differ > 0


def _first_declaration(seed: int) -> PlayerView:
    """The first declaration with a choice in a seeded standard hand (expert play before it)."""
    expert = make_agent("expert")
    g = Game(seed=seed)
    while g.phase == "declare":
        view = g.view(g.current_player)
        if len(view.legal_actions) > 1:
            return view
        g.step(expert.act(view))
    raise AssertionError(f"no declaration with a choice in hand {seed}")


def test_declare_search_values_every_declaration_in_the_worlds(tiny):
    view = _first_declaration(0)
    agent = make_agent(f"search:worlds=4,declare=search,net={tiny}", seed=1)
    result = agent.search(view)
    assert isinstance(result, SearchResult) and result.worlds == 4
    # Every legal declaration (each exposure and done) is a candidate of its own.
    assert result.candidates == view.legal_actions and DONE in result.candidates
    assert result.values[result.candidates.index(result.choice)] >= result.values.max() - 1e-9
    # The same seed, the same declaration; without the option the network declares.
    assert make_agent(f"search:worlds=4,declare=search,net={tiny}", seed=1).act(view) == \
        result.choice
    plain = make_agent(f"search:worlds=4,net={tiny}", seed=1)
    assert plain.search(view) == plain._net_choice(view)


@pytest.mark.parametrize("value", ["net", "mix"])
def test_declare_search_plays_legal_hands(value, tiny):
    agents = [make_agent(f"search:worlds=2,declare=search,value={value},net={tiny}", seed=k)
              if k % 2 == 0 else make_agent("expert", seed=k) for k in range(4)]
    play_hand(Game(seed=7), agents)


# ------------------------------------------------------------------ two decks
TWO_DECKS = Rules.preset("two_decks")


@pytest.fixture(scope="module")
def tiny_pairs(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A small random network for the two-deck preset (1,153 inputs, 105 actions)."""
    torch.manual_seed(2)
    net = QNetwork(obs_size(TWO_DECKS), TWO_DECKS.num_actions, hidden=(8,))
    return str(save_policy(tmp_path_factory.mktemp("nets") / "pairs.pt", net, TWO_DECKS))


def test_pair_leads_form_runs_of_their_own_after_the_singles():
    legal = parse_cards("C4 C5 S9") + [NUM_CARDS + c for c in parse_cards("C4 C5 D9")]
    unseen = mask_of(parse_cards("C8 D10"))
    runs = action_runs(legal, unseen)
    assert runs == [parse_cards("C4 C5"), [parse_card("S9")],
                    [NUM_CARDS + c for c in parse_cards("C4 C5")], [NUM_CARDS + parse_card("D9")]]
    # One deck: no pair actions, so the runs are card_runs'.
    assert action_runs(parse_cards("C4 C5 S9"), unseen) == runs[:2]
    # A preferred pair lead represents its run.
    assert candidates(runs, NUM_CARDS + parse_card("C4"))[2] == NUM_CARDS + parse_card("C4")


@pytest.mark.parametrize("options", ["worlds=2", "worlds=2,value=mix,model=expert,declare=expert",
                                     "worlds=2,value=mix,declare=search"])
def test_search_plays_a_two_deck_hand_legally_and_the_same_for_a_seed(options, tiny_pairs):
    def run(seed: int) -> list[int]:
        agents = [make_agent(f"search:{options},net={tiny_pairs}", seed=seed + k,
                             rules=TWO_DECKS) if k == 0
                  else make_agent("expert", seed=seed + k, rules=TWO_DECKS) for k in range(4)]
        return play_hand(Game(TWO_DECKS, seed=4), agents)

    first = run(0)
    assert run(0) == first


def test_search_with_the_shipped_two_deck_network_has_two_deck_defaults():
    agent = make_agent("search", seed=0, rules=TWO_DECKS)
    assert (agent.decks, agent.worlds, agent.value) == (2, TABLE_DEFAULTS[2]["worlds"], "net")
    assert make_agent("search", seed=0).worlds == TABLE_DEFAULTS[1]["worlds"]
    # A two-deck search refuses a one-deck table (its network plays two decks), by name.
    with pytest.raises(AgentError, match="two-deck tables only; these rules have decks=1"):
        agent.check_table(Rules())


def test_search_values_a_pair_lead_follow_and_its_second_card(tmp_path):
    # After a pair lead the follower's first card is searched among the completions the engine
    # allows, and its second card is a decision of its own, searched the same way.
    from tests.agents.helpers import two_deck_deal, two_deck_game_at

    hands = two_deck_deal(["S6 S6", "S3 S9 SK H2", "", ""], voids={1: "S"}, seed=8)
    g = two_deck_game_at(hands, 0, "S6+S6 S3")
    view = g.view(1)
    torch.manual_seed(5)
    net = QNetwork(obs_size(g.rules), g.rules.num_actions, hidden=(8,))
    path = save_policy(tmp_path / "decks2.pt", net, g.rules)
    agent = make_agent(f"search:worlds=4,net={path}", seed=3, rules=g.rules)
    result = agent.search(view)
    assert isinstance(result, SearchResult) and result.worlds == 4
    assert sorted(result.card_values()) == view.legal_actions
    assert result.choice in view.legal_actions
    assert make_agent(f"search:worlds=4,net={path}", seed=3, rules=g.rules).act(view) == \
        result.choice
