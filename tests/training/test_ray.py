"""Ray: the backend of the arena and the DMC trainer, and the RLlib example.

(training.cluster, training.dmc.ray_actors, examples/rllib_ppo.py.) The arena on Ray must give the
local numbers to the last digit, on a private instance and on a simulated two-node cluster,
keep its journal, and play again a chunk whose worker died. The trainer on Ray must train,
checkpoint and resume like the local one, and survive the loss of an actor. Bad input (Ray
missing, an address that does not answer) fails fast and says why. The RLlib example's short
run cannot show strength (docs/distributed.md reports a ten-minute run against ``random``);
its tests hold the plumbing: the mask, the export that must give RLlib's own logits, the
checkpoint loader and the arena reading the result.

Order matters inside the ``ray`` xdist group: the tests that start a private instance come
before the module's two-node cluster is started, so two Ray clusters never run at once. Where
the platform allows it (Linux, root), the module runs in a network namespace whose only
interface is loopback (``ray_support.loopback_only``): a Ray process that tried to reach
beyond this machine could not.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policy import load_policy_file
from gongzhu_env import env
from gongzhu_env.rules import Rules
from tests.helpers import random_views
from tests.training.arena.scripted_agents import Cheater, DiesOnce, FirstLegal
from tests.training.arena.test_journal import Interrupt, _interrupt_after
from tests.training.ray_support import (
    RAY_GROUP,
    loopback_only,  # noqa: F401 - the module's network namespace (an autouse fixture)
    require_ray,
    two_node_cluster,
)
from training import train
from training.arena.cli import main as eval_main
from training.arena.duplicate import duplicate_match
from training.arena.hands import IllegalAgentActionError
from training.cluster import (
    BackendError,
    RayExecutor,
    WorkerLostError,
    is_loopback,
    parse_address,
    ray_session,
)

ROOT = Path(__file__).resolve().parents[2]
MATCH = ["--candidate", "expert", "--opponents", "random,greedy", "--seed", "5",
         "--no-progress", "--no-plot"]


def _results(out: Path, name: str = "eval") -> list[dict]:
    """The results of a run without what may differ between backends (time, workers)."""
    doc = json.loads((out / f"{name}.json").read_text())
    rows = doc["results"] if name == "eval" else doc["matches"]
    for r in rows:
        del r["elapsed_seconds"], r["workers"]
    return rows


def _eval(args: list[str], out: Path) -> list[dict]:
    assert eval_main([*args, "--out", str(out)]) == 0
    return _results(out)


# ---------------------------------------------------------------------------- bad input
def test_plain_imports_do_not_load_ray():
    code = ("import sys, gongzhu_env, agents, training, training.train, training.arena.cli, "
            "training.arena, training.cluster, training.dmc, training.sb3, "
            "training.expert_iteration, "
            "gongzhu_cli.main; print(sorted(m for m in sys.modules if m.split('.')[0] == 'ray'))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_without_ray_the_backend_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` sees without the extra
    assert eval_main([*MATCH, "--deals", "2", "--backend", "ray"]) == 2
    assert 'pip install -e ".[ray]"' in capsys.readouterr().err
    assert train.main(["--preset", "tiny", "--out", str(tmp_path / "run"), "--quiet",
                       "--actors", "1", "--backend", "ray"]) == 2
    assert 'pip install -e ".[ray]"' in capsys.readouterr().err


@pytest.mark.parametrize(("args", "said"), [
    (["--address", "127.0.0.1:6379"], "needs --backend ray"),
    (["--backend", "ray", "--address", "head-node"], "HOST:PORT"),
    (["--backend", "ray", "--address", "127.0.0.1:99999"], "HOST:PORT"),
])
def test_a_backend_that_means_nothing_is_refused_before_any_work(args, said, tmp_path, capsys):
    assert eval_main([*MATCH, "--deals", "2", *args]) == 2
    assert said in capsys.readouterr().err
    assert train.main(["--preset", "tiny", "--out", str(tmp_path / "r"), "--actors", "1",
                       *args]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_training_on_ray_needs_dmc_actors(tmp_path, capsys):
    assert train.main(["--preset", "tiny", "--out", str(tmp_path / "a"),
                       "--backend", "ray"]) == 2
    assert "--actors N" in capsys.readouterr().err
    assert train.main(["--preset", "tiny", "--trainer", "sb3", "--out", str(tmp_path / "b"),
                       "--backend", "ray"]) == 2
    assert "--trainer dmc" in capsys.readouterr().err


def test_a_worker_lost_for_good_is_exit_1_and_points_at_resume(tmp_path, monkeypatch, capsys):
    import training.arena.cli as cli

    def lost(*args, **kwargs):
        raise WorkerLostError("a Ray worker was lost and its retries are used up (NodeDiedError)")

    monkeypatch.setattr(cli, "duplicate_match", lost)
    assert eval_main([*MATCH, "--deals", "2", "--workers", "1",
                      "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "retries are used up" in err and "--resume" in err


def test_addresses_are_read_and_loopback_is_told_apart():
    assert parse_address("auto") is None
    assert parse_address("127.0.0.1:6379") == ("127.0.0.1", 6379)
    assert parse_address("[::1]:6379") == ("::1", 6379)
    with pytest.raises(BackendError):
        parse_address("6379")
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("10.0.0.5") and not is_loopback("head-node")


@RAY_GROUP
def test_an_address_that_does_not_answer_fails_fast_and_says_so(tmp_path, capsys, monkeypatch):
    """A closed port is refused at once; a port that accepts but is no Ray cluster times out.

    Neither is judged by a clock (a busy machine stretches any): the closed port is tried with
    a wait of ten minutes allowed, and its message must be the refusal, not the wait running
    out; the silent port gets a 3 s wait, and its message must name that wait. The second in
    a subprocess of the command, as a user runs it: a ``ray.init`` left waiting cannot be
    taken back inside a process (the first never gets that far).
    """
    require_ray()
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    monkeypatch.setenv("GONGZHU_RAY_CONNECT_TIMEOUT", "600")
    where = ["--backend", "ray", "--address", f"127.0.0.1:{closed_port}"]
    refused = f"cannot reach a Ray cluster at 127.0.0.1:{closed_port} (Connection refused"
    assert eval_main([*MATCH, "--deals", "2", *where]) == 2
    assert refused in capsys.readouterr().err
    # Training checks the address before it writes anything.
    assert train.main(["--preset", "tiny", "--actors", "1", "--out", str(tmp_path / "run"),
                       *where]) == 2
    assert refused in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "training", "eval", *MATCH, "--deals", "2",
             "--backend", "ray", "--address", f"127.0.0.1:{silent.getsockname()[1]}"],
            cwd=ROOT, env={**os.environ, "GONGZHU_RAY_CONNECT_TIMEOUT": "3"},
            capture_output=True, text=True, timeout=600)
        assert proc.returncode == 2, proc.stderr
        assert "did not accept this process within 3 s" in proc.stderr
    finally:
        silent.close()


# ---------------------------------------------------------------------------- private instance
@RAY_GROUP
def test_eval_on_a_private_instance_gives_the_local_numbers(tmp_path):
    ray = require_ray()
    args = [*MATCH, "--deals", "40"]
    local = _eval([*args, "--workers", "2"], tmp_path / "local")
    on_ray = _eval([*args, "--backend", "ray"], tmp_path / "ray")
    assert on_ray == local
    assert not ray.is_initialized()  # the instance the command started is stopped


# ---------------------------------------------------------------------------- two nodes
@pytest.fixture(scope="module")
def cluster():
    """A head and a worker node, one CPU each, on 127.0.0.1 (see ray_support)."""
    with two_node_cluster() as c:
        yield c


def _node_after(seconds: float) -> str:
    import ray

    time.sleep(seconds)
    return ray.get_runtime_context().get_node_id()


@RAY_GROUP
def test_eval_on_two_nodes_gives_the_local_numbers_and_resumes_its_journal(
        cluster, tmp_path, monkeypatch):
    args = [*MATCH, "--deals", "32"]
    local = _eval([*args, "--workers", "2"], tmp_path / "local")
    remote = [*args, "--backend", "ray", "--address", cluster.address, "--workers", "4",
              "--out", str(tmp_path / "ray")]
    with monkeypatch.context() as m:
        _interrupt_after(m, 3)  # the run is killed after three chunks reached the journal
        with pytest.raises(Interrupt):
            eval_main(remote)
    assert list((tmp_path / "ray" / "journal").iterdir())
    assert eval_main([*remote, "--resume"]) == 0
    assert _results(tmp_path / "ray") == local
    assert not (tmp_path / "ray" / "journal").exists()


@RAY_GROUP
def test_round_robin_on_two_nodes_gives_the_local_ratings(cluster, tmp_path):
    args = ["--round-robin", "random,greedy,expert", "--deals", "12", "--seed", "1",
            "--no-progress", "--no-plot"]
    assert eval_main([*args, "--workers", "1", "--out", str(tmp_path / "l")]) == 0
    # auto: the cluster this machine started last (the simulated one writes its address
    # where `ray start` does)
    assert eval_main([*args, "--backend", "ray", "--address", "auto",
                      "--out", str(tmp_path / "r")]) == 0
    local = json.loads((tmp_path / "l" / "round_robin.json").read_text())
    remote = json.loads((tmp_path / "r" / "round_robin.json").read_text())
    assert remote["ratings"] == local["ratings"]
    assert _results(tmp_path / "r", "round_robin") == _results(tmp_path / "l", "round_robin")


@RAY_GROUP
def test_tasks_reach_both_nodes_and_a_chunk_whose_worker_died_is_played_again(
        cluster, tmp_path):
    marker = tmp_path / "died"
    want = duplicate_match(FirstLegal(), "random", 12, seed=3)
    with ray_session(cluster.address) as ray:
        nodes = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
        assert len(nodes) == 2
        assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
        pool = RayExecutor(ray)
        futures = [pool.submit(_node_after, 0.5) for _ in range(6)]
        assert {f.result(timeout=600) for f in futures} == nodes  # both nodes take tasks
        got = duplicate_match(DiesOnce(str(marker)), "random", 12, seed=3, workers=2,
                              executor=pool)
        assert marker.exists()  # one worker did die
        assert np.array_equal(got.diffs, want.diffs)
        assert np.array_equal(got.scores, want.scores)
        # An agent's own error is not retried: it comes back as the error it is.
        with pytest.raises(IllegalAgentActionError):
            duplicate_match(Cheater(), "random", 4, seed=3, workers=2, executor=pool)
        # A task whose worker dies every time is given up after its retries, said clearly.
        doomed = RayExecutor(ray, max_retries=1).submit(os._exit, 1)
        with pytest.raises(WorkerLostError, match="retries are used up"):
            doomed.result(timeout=120)


@RAY_GROUP
def test_workers_of_a_local_instance_run_at_the_priority_of_the_command(cluster):
    """Ray lowers its workers to niceness 15, which on a busy machine leaves them almost no
    CPU beside any other busy process; a local instance's run as the command does."""
    with ray_session(cluster.address) as ray:
        pool = RayExecutor(ray)
        niceness = {pool.submit(os.nice, 0).result(timeout=600) for _ in range(4)}
    assert niceness == {os.nice(0)}


@RAY_GROUP
def test_dmc_on_ray_replaces_a_killed_actor_and_keeps_its_checkpoints(
        cluster, tmp_path, monkeypatch):
    import training.dmc as dmc_ray

    ray = require_ray()
    made: list = []
    real_init = dmc_ray.RayActors.__init__

    def spy(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(dmc_ray.RayActors, "__init__", spy)
    killed: list[int] = []
    at_kill: list[int] = []

    def kill_one_actor_mid_run():
        deadline = time.monotonic() + 600
        while not (made and made[0].batches >= 2) and time.monotonic() < deadline:
            time.sleep(0.05)  # until the run is under way (early: a loaded machine is slow)
        pid = ray.get(made[0].slots[0].pid.remote(), timeout=600)
        at_kill.append(made[0].batches)
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_one_actor_mid_run, daemon=True)
    killer.start()
    out = tmp_path / "run"
    where = ["--backend", "ray", "--address", cluster.address]
    assert train.main(["--preset", "tiny", "--out", str(out), "--quiet",
                       "--final-eval-deals", "0", "--actors", "2", *where,
                       "--time-budget", "8"]) == 0
    killer.join(timeout=600)  # a bound on a hang; the thread has its own deadline
    assert killed, "the actor was not killed during the run"
    assert made[0].replaced >= 1
    # The run went on after the kill (how far depends on the machine's load, not asserted).
    assert made[0].batches > at_kill[0]
    first = torch.load(out / "checkpoints/latest.pt", weights_only=True)["trainer"]
    assert first["counters"]["elapsed_s"] >= 8 and first["counters"]["train_steps"] > 0
    for path in (out / "checkpoints").glob("policy_*.pt"):
        load_policy_file(path)  # every periodic policy is whole
    load_policy_file(out / "policy.pt")
    with open(out / "metrics.csv") as f:
        decisions = [int(r["decisions"]) for r in csv.DictReader(f)]
    assert decisions == sorted(decisions) and decisions[-1] > decisions[len(decisions) // 2]
    assert json.loads((out / "config.json").read_text())["num_actors"] == 2
    # The same run resumes on the cluster from its checkpoint (the budget is the whole run's:
    # three seconds more than the first leg's).
    assert train.main(["--out", str(out), "--resume", "--quiet", *where,
                       "--time-budget", "11"]) == 0
    second = torch.load(out / "checkpoints/latest.pt", weights_only=True)["trainer"]
    assert second["counters"]["decisions"] > first["counters"]["decisions"]
    assert second["counters"]["train_steps"] > first["counters"]["train_steps"]
    assert not ray.is_initialized()


class _Done:
    """A finished call of a scripted actor: its result, or the error it raises."""

    def __init__(self, result):
        self.result = result


class _ScriptedActor:
    """An actor whose every batch arrives, or whose every call fails with ``fate``."""

    def __init__(self, fate):
        batch = (np.zeros((1, 4), np.uint8), np.zeros((1, 2), np.float32),
                 {"decisions": 1, "forced": 0, "games": 0, "ret_sum": 0.0, "ret_n": 0})
        self.play = self
        self._result = batch if fate is None else fate

    def remote(self, *args):
        return _Done(self._result)


class _Script:
    """The actor class and the Ray of ``RayActors`` without a cluster: actor k (in order of
    creation, replacements included) delivers if ``fates[k]`` is None, else fails with it."""

    def __init__(self, fates):
        self.exceptions = require_ray().exceptions
        self.fates = iter(fates)

    def remote(self, cfg_dict, actor_id):  # the actor class
        return _ScriptedActor(next(self.fates))

    def wait(self, refs, num_returns, timeout):
        return list(refs), []

    def get(self, done):
        if isinstance(done.result, BaseException):
            raise done.result
        return done.result

    def kill(self, handle, no_restart=True):
        pass


def _scripted_actors(n, fates):
    """``RayActors`` for ``n`` actors whose fates ``_Script`` decides; and what it logs."""
    from training.config import make_config
    from training.dmc import RayActors

    said: list[str] = []
    actors = RayActors.__new__(RayActors)
    actors.cfg = make_config("tiny", trainer="dmc")
    actors.cfg.num_actors = n
    script = _Script(fates)
    actors.ray, actors.log, actors._started = script, said.append, False
    actors._start(script)
    return actors, said


def _serve(actors, rounds):
    """Collect ``rounds`` times, each slot waiting to respawn being due at once."""
    got = 0
    for _ in range(rounds):
        for slot in actors._respawn_at:
            actors._respawn_at[slot] = -1.0
        got += len(actors.get(timeout=0.0))
    return got


def test_a_slot_that_keeps_losing_its_actors_waits_longer_while_another_feeds_the_run():
    """Ray's memory monitor kills the newest worker first, so on a short-of-memory machine
    every replacement of a slot can die at once: that slot waits longer each time (the first
    replacement at once), and the run goes on while another actor delivers."""
    from training.dmc import MAX_FRUITLESS

    oom = require_ray().exceptions.OutOfMemoryError("a worker was killed: node low on memory")
    deaths = 2 * MAX_FRUITLESS + 1
    actors, said = _scripted_actors(2, [oom, None, *[oom] * deaths])
    got = _serve(actors, deaths + 1)
    assert actors.replaced == deaths + 1  # the first actor of slot 0 and each replacement
    assert got > 0 and actors.batches == got  # slot 1 fed the run all along
    assert actors._fruitless == [deaths + 1, 0]
    waits = [line.split("died (")[1].split("); ")[1] for line in said]
    assert waits[:4] == ["starting a new one, the run goes on",
                         "a new one starts in 1 s, the run goes on",
                         "a new one starts in 2 s, the run goes on",
                         "a new one starts in 4 s, the run goes on"]
    assert "OutOfMemoryError: a worker was killed" in said[0]


def test_the_run_stops_when_no_actor_is_left_to_deliver():
    """Every slot losing ``MAX_FRUITLESS`` actors in a row without a batch stops the run with
    ``WorkerLostError`` (the trainer then checkpoints and exits 1); a batch resets a slot."""
    from training.dmc import MAX_FRUITLESS

    died = require_ray().exceptions.ActorDiedError()
    # slot 0 loses two actors and its third delivers, slot 1's first delivers; then every
    # actor dies
    actors, _ = _scripted_actors(2, [died, None, died, None, *[died] * 20])
    _serve(actors, 4)
    assert actors.replaced == 2 and actors._fruitless == [0, 0]
    for slot in (0, 1):  # from now on every actor dies
        actors.slots[slot].play._result = died
    with pytest.raises(WorkerLostError, match=f"every Ray actor slot lost {MAX_FRUITLESS}"):
        _serve(actors, 4 * MAX_FRUITLESS)
    assert min(actors._fruitless) == MAX_FRUITLESS
    # One slot alone is given up on after MAX_FRUITLESS deaths, as before.
    alone, _ = _scripted_actors(1, [died] * MAX_FRUITLESS)
    with pytest.raises(WorkerLostError, match="ActorDiedError"):
        _serve(alone, MAX_FRUITLESS)


# ---------------------------------------------------------------------------- RLlib
def _rllib_example():
    """Load ``examples/rllib_ppo.py`` as the module ``rllib_ppo`` (it imports RLlib)."""
    require_ray()
    if "rllib_ppo" not in sys.modules:
        import importlib.util

        spec = importlib.util.spec_from_file_location("rllib_ppo",
                                                      ROOT / "examples" / "rllib_ppo.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["rllib_ppo"] = module
        spec.loader.exec_module(module)
    return sys.modules["rllib_ppo"]


def _module(hidden=(16,)):
    require_ray()
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    MaskedPPOModule = _rllib_example().MaskedPPOModule  # noqa: N806 - a class

    e = env()
    e.reset(seed=0)
    spec = RLModuleSpec(module_class=MaskedPPOModule,
                        observation_space=e.observation_space("player_0"),
                        action_space=e.action_space("player_0"),
                        model_config={"fcnet_hiddens": list(hidden), "fcnet_activation": "relu",
                                      "head_fcnet_hiddens": [], "vf_share_layers": False})
    return spec.build(), e


@RAY_GROUP
def test_the_rllib_mask_leaves_only_legal_actions_and_the_export_gives_its_logits():
    from ray.rllib.core.columns import Columns

    module, e = _module()
    obs, *_ = e.last()
    batch = {Columns.OBS: {"observation": torch.from_numpy(obs["observation"][None]),
                           "action_mask": torch.from_numpy(obs["action_mask"][None])}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    probs = torch.softmax(logits, dim=0).detach().numpy()
    legal = np.flatnonzero(obs["action_mask"])
    assert probs[legal].sum() == pytest.approx(1.0) and len(legal) < 53
    values = module.compute_values(batch)
    assert values.shape == (1,)
    # The exported network scores the observation exactly as RLlib's actor does.
    net = _rllib_example().actor_network(module, Rules())
    ours = net(torch.from_numpy(obs["observation"][None]))[0]
    assert torch.allclose(ours[legal], logits[legal], atol=1e-5)


@RAY_GROUP
def test_a_short_rllib_run_trains_exports_and_plays_in_the_arena(cluster, tmp_path, capsys):
    ray = require_ray()
    out = tmp_path / "rllib"
    rllib_example = _rllib_example()
    assert rllib_example.main(["--address", cluster.address,
                               "--out", str(out), "--iterations", "1", "--batch-size", "256",
                               "--env-runners", "0", "--envs-per-runner", "2",
                               "--hidden", "16", "--eval-deals", "4",
                               "--eval-opponents", "random"]) == 0
    assert not ray.is_initialized()  # it left the cluster it joined
    printed = capsys.readouterr().out
    assert "| random |" in printed and (out / "arena.md").is_file()
    net, data = load_policy_file(out / "policy.pt")
    assert data["kind"] == "logits" and data["trainer"] == "rllib-ppo"
    assert data["architecture"]["hidden"] == [16]
    agent = make_agent(f"policy:{out / 'policy.pt'}", seed=0)
    for view in random_views(20, 1):
        assert agent.act(view) in view.legal_actions
    # The saved RLlib checkpoint exports to the same policy.
    again = tmp_path / "again.pt"
    rllib_example.export_checkpoint(out / "rllib_checkpoint", again)
    net2, _ = load_policy_file(again)
    for (k, a), (_, b) in zip(net.state_dict().items(), net2.state_dict().items(), strict=True):
        assert torch.equal(a, b), k
    with pytest.raises(FileNotFoundError, match="not an RLlib checkpoint"):
        rllib_example.export_checkpoint(tmp_path, tmp_path / "x.pt")
