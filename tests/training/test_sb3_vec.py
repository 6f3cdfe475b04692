"""MaskablePPO on the batched engine: ``training.sb3.vec_env.BatchVecEnv``, ``engine="batch"``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecEnv

from agents.policy import load_policy_agent
from gongzhu_env.scoring import hand_results
from gongzhu_env.vector_env import SingleSeatVectorEnv
from training import train
from training.config import BATCH_OPPONENT_MIX, ENGINES, ConfigError, make_config
from training.sb3.vec_env import BatchVecEnv


def _venv(n: int = 6, **kwargs) -> BatchVecEnv:
    return BatchVecEnv(SingleSeatVectorEnv(n, **kwargs))


def test_sb3_contrib_reads_the_masks_the_way_it_does_from_any_vec_env() -> None:
    venv = _venv()
    assert isinstance(venv, VecEnv)
    assert is_masking_supported(venv)
    venv.seed(3)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (6, 53) and masks.dtype == np.bool_
    assert np.array_equal(masks, venv.env.action_masks())
    assert obs.shape == (6, 600) and venv.observation_space.contains(obs[0])
    assert len(venv.env_method("action_masks", indices=[1, 4])) == 2
    assert venv.get_attr("reward_scale") == [400.0] * 6
    assert venv.env_is_wrapped(object) == [False] * 6


def test_steps_give_sb3_infos_with_the_terminal_observation_and_scores() -> None:
    venv = _venv(reward_scale=100.0)
    venv.seed(0)
    venv.reset()
    rng = np.random.default_rng(0)
    done_seen = 0
    for _ in range(40):
        masks = get_action_masks(venv)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        assert rewards.dtype == np.float32 and dones.dtype == np.bool_ and len(infos) == 6
        for i in range(6):
            if dones[i]:
                done_seen += 1
                info = infos[i]
                assert info["TimeLimit.truncated"] is False
                assert info["terminal_observation"].shape == (600,)
                assert info["terminal_observation"][2] == 1  # phase "over"
                expected = hand_results(info["scores"], "zero_sum", None)[info["seat"]] / 100
                assert rewards[i] == pytest.approx(expected, abs=1e-6)
            else:
                assert infos[i] == {} and rewards[i] == 0
    assert done_seen >= 6


def test_the_same_seed_gives_the_same_rollout() -> None:
    def run(seed: int) -> list[np.ndarray]:
        venv = _venv(4, opponents=["random"])
        venv.seed(seed)
        out = [venv.reset()]
        for _ in range(25):
            masks = get_action_masks(venv)
            out.append(venv.step(masks.argmax(axis=1))[:3])
        return out

    a, b, c = run(1), run(1), run(2)
    assert all(np.array_equal(x, y) for p, q in zip(a[1:], b[1:], strict=True)
               for x, y in zip(p, q, strict=True))
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])


def test_set_opponents_goes_through_env_method() -> None:
    venv = _venv(3)
    venv.reset()

    def lowest(obs, masks):
        return masks.argmax(axis=1)

    venv.env_method("set_opponents", [lowest], [1.0])
    assert venv.env.opponents == [lowest]


def test_a_tiny_maskable_ppo_run_on_it_finishes() -> None:
    venv = _venv(8, opponents=["random"])
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [16]})
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    venv.reset()
    actions, _ = model.predict(venv.reset(), action_masks=get_action_masks(venv))
    assert get_action_masks(venv)[np.arange(8), actions].all()


# ------------------------------------------------------------------ the config and the trainer
def test_engine_is_validated_and_the_scalar_engine_stays_the_default() -> None:
    assert make_config("quick", "sb3").engine == "scalar"
    with pytest.raises(ConfigError, match="engine: must be one of"):
        make_config("quick", "sb3", engine="gpu")


def test_engine_auto_picks_the_batched_engine_for_sb3_where_it_covers_the_run(
        tmp_path, monkeypatch) -> None:
    # One list of engines for both trainers; "auto" used to be refused here (and before that
    # read as "scalar" without a word). It is the batched engine exactly where "batch" would
    # be accepted: covered rules, single hands, no subprocesses, no rule agent in the mix.
    assert ENGINES == ("auto", "batch", "scalar")
    covered = make_config("tiny", "sb3", engine="auto")
    assert covered.engine == "auto" and covered.uses_batch_engine()
    mix = {"self": 1.0, "greedy": 1.0}
    with_greedy = make_config("tiny", "sb3", engine="auto", opponent_mix=mix)
    assert with_greedy.opponent_mix == mix  # "auto" keeps the mix, and plays it on "scalar"
    assert not with_greedy.uses_batch_engine()
    assert not make_config("quick", "sb3", engine="auto").uses_batch_engine()  # quick: greedy
    for extra in ({"episode": "match"}, {"subproc": True}):
        assert not make_config("tiny", "sb3", engine="auto", **extra).uses_batch_engine()
    # Two decks used to be refused: the vector env now plays them on GameBatch's two-deck layout.
    assert make_config("tiny", "sb3", engine="auto", rules="two_decks").uses_batch_engine()
    assert not make_config("tiny", "sb3").uses_batch_engine()  # "scalar" stays the default

    built = []

    class CountingBatchVecEnv(BatchVecEnv):
        def __init__(self, *args, **kwargs) -> None:
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr("training.sb3.vec_env.BatchVecEnv", CountingBatchVecEnv)
    out = tmp_path / "auto"
    assert train.main(["--trainer", "sb3", "--preset", "tiny", "--set", 'engine="auto"',
                       "--set", "n_envs=8", "--set", "n_steps=16", "--out", str(out),
                       "--quiet"]) == 0
    assert json.loads((out / "config.json").read_text())["engine"] == "auto"
    assert built, "engine='auto' on a covered run did not train on the batched engine"


def test_a_mix_naming_a_rule_agent_is_refused_with_engine_batch() -> None:
    with pytest.raises(ConfigError) as e:
        make_config("quick", "sb3", engine="batch",
                    opponent_mix={"self": 1.0, "expert": 0.5})
    message = str(e.value)
    assert "'expert' cannot play with engine='batch'" in message
    assert "'random', 'self', 'snapshot'" in message
    # The preset's own mix names greedy: engine=batch alone takes the mix without it.
    cfg = make_config("quick", "sb3", engine="batch")
    assert cfg.opponent_mix == BATCH_OPPONENT_MIX
    assert make_config("tiny", "sb3", engine="batch").opponent_mix == \
        make_config("tiny", "sb3").opponent_mix


@pytest.mark.parametrize("extra, words", [
    ({"episode": "match"}, "plays single hands"),
    ({"subproc": True}, "subproc"),
])
def test_what_the_batched_engine_cannot_do_is_refused(extra, words) -> None:
    with pytest.raises(ConfigError, match=words):
        make_config("quick", "sb3", engine="batch", **extra)


def test_gongzhu_train_sb3_with_engine_batch_trains_and_saves_a_policy(tmp_path, capsys) -> None:
    out = tmp_path / "batch"
    assert train.main(["--trainer", "sb3", "--preset", "tiny", "--set", "engine=batch",
                       "--set", "n_envs=8", "--set", "n_steps=16", "--out", str(out),
                       "--quiet"]) == 0
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["engine"] == "batch"
    state = json.loads((out / "checkpoints" / "sb3_state.json").read_text())
    assert state["snapshots"]  # snapshots were taken and played as batched opponents
    agent = load_policy_agent(out / "policy.pt")
    assert agent.net.obs_size == 600
    refused = tmp_path / "refused"
    assert train.main(["--trainer", "sb3", "--preset", "tiny", "--set", "engine=batch",
                       "--set", 'opponent_mix={"self": 1, "greedy": 1}', "--out",
                       str(refused)]) == 2
    assert "'greedy' cannot play with engine='batch'" in capsys.readouterr().err
    assert not refused.exists()


def test_a_tiny_two_deck_run_trains_on_the_batched_engine(tmp_path) -> None:
    cfg = make_config("tiny", "sb3", rules="two_decks", engine="batch")
    assert cfg.batch_engine_obstacle() is None and cfg.uses_batch_engine()
    venv = _venv(4, rules="two_decks", reward_mode="team")
    venv.seed(0)
    assert venv.reset().shape == (4, 1153)
    assert get_action_masks(venv).shape == (4, 105)
    out = tmp_path / "two_decks"
    assert train.main(["--trainer", "sb3", "--preset", "tiny", "--set", "engine=batch",
                       "--set", 'rules="two_decks"', "--set", "n_envs=8", "--set",
                       "n_steps=32", "--set", "total_timesteps=512", "--out", str(out),
                       "--quiet"]) == 0
    saved = json.loads((out / "config.json").read_text())
    assert saved["engine"] == "batch" and saved["rules"] == "two_decks"
    agent = load_policy_agent(out / "policy.pt")
    assert agent.net.obs_size == 1153


def test_snapshots_and_the_live_policy_play_as_batched_opponents() -> None:
    import torch

    from agents.policy import PolicyAgent, QNetwork
    from training.opponents import BatchLivePolicy, BatchNetPolicy, sb3_pool

    mix = {"self": 0.5, "snapshot": 0.3, "random": 0.2}
    live, cache = BatchLivePolicy(0), {}

    def entry(agent):
        return cache.setdefault(id(agent), BatchNetPolicy(agent.net, "snapshot"))

    # Before the first snapshot a snapshot seat is the learner's current policy.
    pool, weights = sb3_pool(mix, [], live, entry)
    assert pool == [live, live, "random"] and weights == [0.5, 0.3, 0.2]
    torch.manual_seed(0)
    snaps = [PolicyAgent(QNetwork(600, 53, (8,))) for _ in range(2)]
    pool, weights = sb3_pool(mix, snaps, live, entry)
    assert pool[0] is live and pool[-1] == "random"
    assert [type(p) for p in pool[1:3]] == [BatchNetPolicy] * 2
    assert weights[1:3] == pytest.approx([0.15, 0.15])
    again, _ = sb3_pool(mix, snaps[1:], live, entry)
    assert again[1] is pool[2]  # the same object while the snapshot is kept
    # A snapshot plays what its PolicyAgent plays: the legal action of highest score.
    env = SingleSeatVectorEnv(4, [pool[1]])
    obs, _ = env.reset(seed=0)
    rows, masks = env.batch.observations[:4], env.batch.action_masks[:4].astype(bool)
    got = pool[1](rows, masks)
    with torch.no_grad():
        scores = snaps[0].net(torch.from_numpy(rows)).numpy()
    scores[~masks] = -np.inf
    assert np.array_equal(got, scores.argmax(axis=1))
    # The live policy before a model: a legal random action.
    acts = live(rows, masks)
    assert masks[np.arange(4), acts].all()
