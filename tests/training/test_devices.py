"""Devices: the one resolver of device settings, the trainers' ``device`` field, the agents'
``device`` option, and what stays on the CPU (actors, snapshots, checkpoints, policy files).

On a machine without CUDA (this project's CI) the CUDA requests must fail at once, naming the
setting, the value and what torch found; the CUDA path itself runs in the tests marked
``needs_cuda`` and in ``benchmarks/bench_gpu.py --check`` where a GPU is present.
"""

from __future__ import annotations

import pytest
import torch

from agents import make_agent
from agents.base import AgentError
from agents.devices import DeviceError, cpu_state_dict, cuda_found, resolve_device
from agents.policy import PolicyLoadError, load_policy_agent, save_policy
from gongzhu_env.rules import Rules
from training.config import ConfigError, make_config
from training.dmc import DMCTrainer, precision, resolve_precision
from training.train import main

NO_CUDA = not torch.cuda.is_available()
needs_no_cuda = pytest.mark.skipif(not NO_CUDA, reason="torch sees a CUDA device here")
needs_cuda = pytest.mark.skipif(NO_CUDA, reason="no CUDA device")


# ---------------------------------------------------------------- the resolver
@needs_no_cuda
def test_auto_resolves_to_the_cpu_where_torch_sees_no_cuda() -> None:
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")
    assert make_config("tiny", "dmc").torch_device() == torch.device("cpu")
    assert make_config("tiny", "sb3").torch_device() == torch.device("cpu")


@needs_no_cuda
@pytest.mark.parametrize("value", ["cuda", "cuda:0", "cuda:1"])
def test_a_cuda_request_without_cuda_names_the_setting_the_value_and_what_was_found(
        value: str) -> None:
    with pytest.raises(DeviceError) as e:
        resolve_device(value, "device")
    text = str(e.value)
    assert text.startswith(f"device: {value!r} asked for, but torch {torch.__version__}")
    assert "sees no CUDA device" in text and cuda_found() in text
    assert text.endswith("use device='cpu' or 'auto'")
    if torch.version.cuda is None:
        assert "(a CPU-only build)" in text


@pytest.mark.parametrize("value", ["gpu", "cuda:", "cuda:x", "CUDA", "", 3, None, "mps"])
def test_a_setting_that_names_no_device_kind_is_refused_with_the_forms(value: object) -> None:
    with pytest.raises(DeviceError, match=r"thing: must be one of 'auto', 'cpu', 'cuda', "
                                          r"'cuda:N'"):
        resolve_device(value, "thing")


def test_with_cuda_present_auto_picks_it_and_an_index_beyond_the_devices_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i: f"GPU{i}")
    monkeypatch.setattr(torch.version, "cuda", "12.4")
    assert resolve_device("auto") == torch.device("cuda")
    assert resolve_device("cuda:1") == torch.device("cuda", 1)
    with pytest.raises(DeviceError, match=r"device: 'cuda:2' asked for, but torch .* sees 2 "
                                          r"CUDA device\(s\): cuda:0 GPU0, cuda:1 GPU1; use one "
                                          r"of cuda:0 to cuda:1"):
        resolve_device("cuda:2")


def test_cpu_state_dict_copies_rather_than_shares() -> None:
    net = torch.nn.Linear(2, 2)
    sd = cpu_state_dict(net)
    assert all(t.device.type == "cpu" for t in sd.values())
    with torch.no_grad():
        net.weight.add_(1.0)
    assert not torch.equal(sd["weight"], net.weight)


# ---------------------------------------------------------------- the trainers' field
@needs_no_cuda
@pytest.mark.parametrize("trainer", ["dmc", "sb3"])
def test_the_config_refuses_cuda_naming_the_field(trainer: str) -> None:
    with pytest.raises(ConfigError, match=r"^device: 'cuda' asked for, but torch .* sees no "
                                          r"CUDA device.*; use device='cpu' or 'auto'$"):
        make_config("tiny", trainer, device="cuda")


@pytest.mark.parametrize("trainer", ["dmc", "sb3"])
def test_the_config_refuses_a_device_of_no_known_form(trainer: str) -> None:
    with pytest.raises(ConfigError, match=r"^device: must be one of"):
        make_config("tiny", trainer, device="tpu")


def test_a_config_written_before_the_field_existed_reads_as_auto() -> None:
    from training.config import config_from_dict

    data = make_config("tiny", "dmc").to_dict()
    del data["device"]
    assert config_from_dict(data).device == "auto"


@needs_no_cuda
def test_train_device_cuda_exits_2_with_the_message_before_a_run_directory_is_made(
        tmp_path, capsys) -> None:
    out = tmp_path / "run"
    assert main(["--preset", "tiny", "--out", str(out), "--device", "cuda"]) == 2
    err = capsys.readouterr().err
    assert "error: device: 'cuda' asked for, but torch" in err
    assert "use device='cpu' or 'auto'" in err
    assert not out.exists()


@needs_no_cuda
def test_a_run_saved_with_cuda_resumes_here_only_with_a_device_given(tmp_path) -> None:
    import json

    from training.config import load_config

    path = tmp_path / "config.json"
    path.write_text(json.dumps({**make_config("tiny", "dmc").to_dict(), "device": "cuda"}))
    with pytest.raises(ConfigError, match=r"device: 'cuda' asked for, but torch"):
        load_config(str(path))
    assert load_config(str(path), device="cpu").device == "cpu"


# ---------------------------------------------------------------- the DMC learner on the CPU
def test_a_cpu_learner_shares_its_network_with_the_simulator_as_before() -> None:
    trainer = DMCTrainer(make_config("tiny", "dmc", device="cpu"))
    assert trainer.device == torch.device("cpu")
    assert trainer.acting_net is None
    assert trainer.cpu_network() is trainer.net
    assert getattr(trainer.sim, "net", trainer.net) is trainer.net


def test_precision_on_cuda_asks_the_gpu_not_the_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def native(device_type: str = "cpu") -> bool:
        seen.append(device_type)
        return device_type == "cuda"

    monkeypatch.setattr(precision, "native_bfloat16", native)
    assert resolve_precision("auto", "cuda") == torch.bfloat16
    assert resolve_precision("auto") == torch.float32
    assert seen == ["cuda", "cpu"]
    assert resolve_precision("float32", "cuda") == torch.float32


def test_a_policy_and_a_checkpoint_from_the_trainer_hold_cpu_tensors_and_load_on_cpu(
        tmp_path) -> None:
    cfg = make_config("tiny", "dmc", device="auto", final_eval_deals=0)
    trainer = DMCTrainer(cfg)
    trainer.run_for(0.3)
    path = save_policy(tmp_path / "policy.pt", trainer.net, cfg.game_rules)
    data = torch.load(path, map_location="cpu", weights_only=True)
    assert all(t.device.type == "cpu" for t in data["state_dict"].values())
    agent = load_policy_agent(path, rules=cfg.game_rules, device="cpu")
    assert agent.device == torch.device("cpu")
    assert next(agent.net.parameters()).device.type == "cpu"
    state = trainer.state_dict()
    assert all(t.device.type == "cpu" for t in state["net"].values())
    assert all(t.device.type == "cpu" for sd in state["snapshots"] for t in sd.values())


# ---------------------------------------------------------------- the agents' option
def test_policy_spec_takes_a_trailing_device_option() -> None:
    agent = make_agent("policy:pretrained,device=cpu", seed=0, rules=Rules())
    assert agent.device == torch.device("cpu") and agent.name == "policy:pretrained"
    assert make_agent("policy:pretrained", seed=0, rules=Rules()).device == torch.device("cpu")
    with pytest.raises(AgentError, match="option 'device' is given twice"):
        make_agent("policy:pretrained,device=cpu,device=cpu")


def test_the_arena_journal_fingerprints_the_file_of_a_spec_with_a_device() -> None:
    from training.arena.journal import spec_fingerprint

    plain = spec_fingerprint("policy:pretrained")
    assert plain is not None
    assert spec_fingerprint("policy:pretrained,device=cpu") == plain


@needs_no_cuda
def test_policy_and_search_specs_refuse_cuda_naming_what_was_found() -> None:
    with pytest.raises(PolicyLoadError, match=r"^policy:pretrained: device: 'cuda' asked for, "
                                              r"but torch .* sees no CUDA device"):
        make_agent("policy:pretrained,device=cuda", seed=0, rules=Rules())
    with pytest.raises(AgentError, match=r"search option device: 'cuda:0' asked for, but "
                                         r"torch .* sees no CUDA device"):
        make_agent("search:worlds=2,device=cuda:0", seed=0, rules=Rules())


def test_search_spec_takes_a_device_option() -> None:
    agent = make_agent("search:worlds=2,device=cpu", seed=0, rules=Rules())
    assert agent.device == torch.device("cpu")
    assert make_agent("search:worlds=2", seed=0, rules=Rules()).device == torch.device("cpu")


# ---------------------------------------------------------------- the CUDA path, where present
@needs_cuda
def test_a_cuda_learner_trains_there_and_hands_out_cpu_copies(tmp_path) -> None:
    cfg = make_config("tiny", "dmc", device="cuda", final_eval_deals=0)
    trainer = DMCTrainer(cfg)
    assert next(trainer.net.parameters()).device.type == "cuda"
    assert trainer.acting_net is not None
    assert next(trainer.acting_net.parameters()).device.type == "cpu"
    trainer.run_for(1.0)
    assert trainer.train_steps > 0
    trainer.add_snapshot()
    assert next(trainer.snapshots[-1].parameters()).device.type == "cpu"
    state = trainer.state_dict()
    assert all(t.device.type == "cpu" for t in state["net"].values())
    cpu = trainer.cpu_network()
    assert next(cpu.parameters()).device.type == "cpu"
    path = save_policy(tmp_path / "policy.pt", trainer.net, cfg.game_rules)
    agent = load_policy_agent(path, rules=cfg.game_rules, device="cuda")
    assert next(agent.net.parameters()).device.type == "cuda"
    fresh = DMCTrainer(cfg)
    fresh.load_state_dict(state)
    assert torch.equal(cpu_state_dict(fresh.net)["net.0.weight"], state["net"]["net.0.weight"])
