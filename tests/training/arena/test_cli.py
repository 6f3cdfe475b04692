"""The arena's command line (training.arena.cli, python -m training eval)."""

from __future__ import annotations

import json

import pytest

from gongzhu_env.rules import Rules
from training.arena.cli import main, resolve_mode, split_specs


def test_split_specs_keeps_options_together():
    assert split_specs(["random,pimc:worlds=8,rollout=greedy,expert"]) == [
        "random", "pimc:worlds=8,rollout=greedy", "expert"]
    assert split_specs(["random", "greedy, expert"]) == ["random", "greedy", "expert"]


def test_cli_writes_json_and_plot(tmp_path):
    out = tmp_path / "eval"
    deals = tmp_path / "deals.json"
    code = main(["--candidate", "random", "--opponents", "random", "--deals", "12", "--seed", "3",
                 "--workers", "1", "--out", str(out), "--no-progress", "--save-deals",
                 str(deals)])
    assert code == 0
    doc = json.loads((out / "eval.json").read_text())
    (res,) = doc["results"]
    assert res["candidate"] == "random" and res["deals"] == 12 and len(res["diffs"]) == 12
    assert res["seed"] == 3 and res["deal_seed"] == 3 and res["rules"] == Rules().to_dict()
    assert res["stats"]["n"] == 12
    assert (out / "eval.png").stat().st_size > 0
    # The same deals loaded back from the file give the same numbers.
    again = tmp_path / "again"
    assert main(["--candidate", "random", "--opponents", "random", "--deal-file", str(deals),
                 "--seed", "3", "--workers", "1", "--out", str(again), "--no-progress",
                 "--no-plot"]) == 0
    assert json.loads((again / "eval.json").read_text())["results"][0]["diffs"] == res["diffs"]


def test_cli_round_robin(tmp_path):
    code = main(["--round-robin", "random,greedy", "--deals", "6", "--workers", "1",
                 "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    doc = json.loads((tmp_path / "round_robin.json").read_text())
    assert doc["agents"] == ["random", "greedy"]
    assert set(doc["ratings"]["ratings"]) == {"random", "greedy"}
    assert (tmp_path / "round_robin.png").stat().st_size > 0


def test_cli_round_robin_ratings_are_anchored_where_asked(tmp_path):
    """The anchor shifts every rating by one constant: the same matches, the same gaps."""
    main(["--round-robin", "greedy,random", "--deals", "4", "--workers", "1",
          "--out", str(tmp_path / "first"), "--no-progress"])
    main(["--round-robin", "greedy,random", "--anchor", "random", "--deals", "4",
          "--workers", "1", "--out", str(tmp_path / "random"), "--no-progress"])
    first, anchored = (json.loads((tmp_path / d / "round_robin.json").read_text())["ratings"]
                       for d in ("first", "random"))
    assert first["anchor"] == "greedy" and first["ratings"]["greedy"] == 0.0
    assert anchored["anchor"] == "random" and anchored["ratings"]["random"] == 0.0
    assert anchored["ratings"]["greedy"] == pytest.approx(-first["ratings"]["random"])


def test_cli_bad_input_is_reported(tmp_path, capsys):
    assert main(["--candidate", "random", "--opponents", "nonsense", "--deals", "3",
                 "--no-progress"]) == 2
    assert "nonsense" in capsys.readouterr().err
    assert main(["--candidate", "random", "--opponents", "random", "--deal-file",
                 str(tmp_path / "nope.npz"), "--no-progress"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["--candidate", "random", "--deals", "3"]) == 2
    assert "--opponents" in capsys.readouterr().err


def test_cli_records_every_hand(tmp_path):
    from gongzhu_env.records import load_records, replay_record

    path = tmp_path / "hands.jsonl"
    assert main(["--candidate", "greedy", "--opponents", "random", "--deals", "3", "--workers",
                 "1", "--no-progress", "--record", str(path)]) == 0
    records = load_records(path)
    assert [(r["meta"]["deal_index"], r["meta"]["play"]) for r in records] == [
        (d, p) for d in range(3) for p in range(4)]
    for r in records:
        assert r["meta"]["players"][r["meta"]["play"]] == "greedy"
        assert r["meta"]["players"].count("random") == 3
        assert replay_record(r).scores() == r["scores"]


def test_cli_team_match_end_to_end(tmp_path):
    out = tmp_path / "teams"
    assert main(["--rules", "scrofazero", "--teams", "--candidate", "greedy", "--opponents",
                 "random", "--deals", "8", "--seed", "1", "--workers", "1", "--out", str(out),
                 "--no-progress"]) == 0
    (res,) = json.loads((out / "eval.json").read_text())["results"]
    assert res["mode"] == "2v2" and res["unit"] == "team points/deal"
    assert res["rules"] == Rules.preset("scrofazero").to_dict()
    assert res["hands_played"] == 16 and len(res["diffs"]) == 8
    # --mode 2v2 under the same rules is the same team match.
    same = tmp_path / "same"
    assert main(["--rules", "scrofazero", "--mode", "2v2", "--candidate", "greedy",
                 "--opponents", "random", "--deals", "8", "--seed", "1", "--workers", "1",
                 "--out", str(same), "--no-progress", "--no-plot"]) == 0
    assert json.loads((same / "eval.json").read_text())["results"][0]["diffs"] == res["diffs"]
    assert (out / "eval.png").stat().st_size > 0


def test_cli_team_round_robin(tmp_path):
    assert main(["--rules", "scrofazero", "--teams", "--round-robin", "random,greedy",
                 "--deals", "4", "--workers", "1", "--out", str(tmp_path), "--no-progress",
                 "--no-plot"]) == 0
    doc = json.loads((tmp_path / "round_robin.json").read_text())
    assert doc["unit"] == "team points/deal"
    assert [m["mode"] for m in doc["matches"]] == ["2v2"]


def test_cli_team_bad_input(capsys):
    base = ["--candidate", "random", "--opponents", "random", "--deals", "2", "--no-progress"]
    assert main([*base, "--teams"]) == 2
    err = capsys.readouterr().err
    assert "'standard'" in err and "team presets: scrofazero" in err
    assert main([*base, "--teams", "--rules", "scrofazero", "--mode", "1v3"]) == 2
    assert "--mode 1v3" in capsys.readouterr().err
    assert main([*base, "--rules", "scrofazero", "--scoring", "zero_sum"]) == 2
    assert "opponent copy" in capsys.readouterr().err
    pig_sheep = Rules(pig_sheep_team=True, declaration="none")
    with pytest.raises(ValueError, match="SQ and DJ holders.*scrofazero"):
        resolve_mode(None, True, "pig-sheep", pig_sheep)
    assert resolve_mode(None, False, "standard", Rules()) == "1v3"


def test_rules_are_a_preset_name_or_a_json_object_of_options(tmp_path, capsys):
    out = tmp_path / "json"
    assert main(["--candidate", "greedy", "--opponents", "random", "--deals", "2",
                 "--rules", '{"decks": 2}', "--workers", "1", "--out", str(out)]) == 0
    result = json.loads((out / "eval.json").read_text())
    assert Rules.from_dict(result["results"][0]["rules"]) == Rules(decks=2)
    # The recorded command can be pasted back into a shell.
    assert "--rules '{\"decks\": 2}'" in result["command"]
    for bad, said in (('{"dekcs": 2}', "dekcs"), ('{"decks": 3}', "decks"),
                      ('{"decks": ', "nor a JSON object"), ("nosuch", "unknown rules preset")):
        assert main(["--candidate", "greedy", "--opponents", "random", "--deals", "2",
                     "--rules", bad, "--workers", "1"]) == 2
        assert said in capsys.readouterr().err


def test_round_robin_records_every_hand_of_every_pair(tmp_path):
    record = tmp_path / "rr.jsonl"
    assert main(["--round-robin", "random,greedy,expert", "--deals", "2", "--workers", "1",
                 "--record", str(record), "--no-progress"]) == 0
    lines = record.read_text().splitlines()
    # Three pairs, two deals, each deal played with the candidate in all four seats.
    assert len(lines) == 3 * 2 * 4
    assert all(json.loads(line)["complete"] for line in lines)


@pytest.mark.parametrize("extra, said", [
    (["--candidate", "random", "--opponents", "greedy", "--resamples", "0"],
     "--resamples must be an integer 1..1,000,000; got 0"),
    (["--round-robin", "expert"], "--round-robin needs two or more different agents"),
    (["--round-robin", "expert,expert"], "--round-robin needs two or more different agents"),
    (["--round-robin", "expert,greedy", "--anchor", "pimc"],
     "--anchor must be one of the --round-robin agents"),
    (["--candidate", "expert", "--opponents", "greedy", "--anchor", "greedy"],
     "--anchor goes with --round-robin"),
])
def test_bad_arena_values_are_refused_before_any_hand(extra, said, capsys):
    assert main([*extra, "--deals", "2", "--workers", "1"]) == 2
    assert said in capsys.readouterr().err


def test_out_that_is_a_file_is_refused_and_left_alone(tmp_path, capsys):
    target = tmp_path / "results.txt"
    target.write_text("keep me")
    assert main(["--candidate", "random", "--opponents", "greedy", "--deals", "2",
                 "--workers", "1", "--out", str(target)]) == 2
    assert "is a file; give a directory" in capsys.readouterr().err
    assert target.read_text() == "keep me"


def test_mode_2v2_without_team_rules_is_refused_like_teams(capsys):
    """Before, --mode 2v2 under standard rules played an individual pairing while --teams was
    refused: the same request gave a number where the other gave a reason."""
    base = ["--candidate", "greedy", "--opponents", "random", "--deals", "2", "--workers", "1",
            "--no-progress"]
    assert main([*base, "--mode", "2v2"]) == 2
    err = capsys.readouterr().err
    assert "--mode 2v2 is the team match and needs team rules" in err
    assert "'standard'" in err and "scrofazero" in err and "--mode 1v3" in err
    assert main([*base, "--mode", "2v2", "--rules", '{"players": 6}']) == 2
    assert "needs team rules" in capsys.readouterr().err
    assert resolve_mode("2v2", False, "scrofazero", Rules.preset("scrofazero")) == "2v2"
    assert resolve_mode("1v3", False, "standard", Rules()) == "1v3"


def test_deals_with_a_deal_file_play_its_first_deals_and_never_more(tmp_path, capsys):
    deals = tmp_path / "d4.json"
    first = tmp_path / "first"
    assert main(["--candidate", "greedy", "--opponents", "random", "--deals", "4", "--seed", "5",
                 "--workers", "1", "--no-progress", "--save-deals", str(deals), "--out",
                 str(first), "--no-plot"]) == 0
    whole = json.loads((first / "eval.json").read_text())["results"][0]["diffs"]
    base = ["--candidate", "greedy", "--opponents", "random", "--deal-file", str(deals),
            "--seed", "5", "--workers", "1", "--no-progress", "--no-plot"]
    # Before, --deals 10 was ignored and the file's 4 deals were played, exit 0.
    assert main([*base, "--deals", "10"]) == 2
    err = capsys.readouterr().err
    assert "--deals 10" in err and "holds only 4 deals" in err
    assert main([*base, "--deals", "2", "--out", str(tmp_path / "two")]) == 0
    two = json.loads((tmp_path / "two" / "eval.json").read_text())["results"][0]
    assert two["deals"] == 2 and two["diffs"] == whole[:2]


@pytest.mark.parametrize("flag", ["--record", "--save-deals"])
def test_output_files_need_an_existing_directory(tmp_path, flag, capsys):
    """Before, --record created the missing directories (at the filesystem root for
    /nonexistent/x.jsonl) and --save-deals did the same after the match."""
    missing = tmp_path / "no" / "such" / "out.json"
    argv = ["--candidate", "greedy", "--opponents", "random", "--deals", "2", "--workers", "1",
            "--no-progress"]
    assert main([*argv, flag, str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"{flag} " in err and "does not exist" in err
    assert not (tmp_path / "no").exists()
    assert main([*argv, flag, str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main([*argv, flag, str(afile / "out.json")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert afile.read_text() == "x"


def test_record_refuses_a_file_that_holds_data_and_keeps_it(tmp_path, capsys):
    kept = tmp_path / "my_games.jsonl"
    kept.write_text('{"a hand": "a person played"}\n')
    assert main(["--candidate", "greedy", "--opponents", "random", "--deals", "2",
                 "--workers", "1", "--no-progress", "--record", str(kept)]) == 2
    assert "already holds data" in capsys.readouterr().err
    assert kept.read_text() == '{"a hand": "a person played"}\n'


@pytest.mark.parametrize("extra, said", [
    (["--deals", "1000000000000"], "--deals must be an integer 1..1,000,000"),
    (["--workers", "100000"], "--workers must be an integer 1..256"),
    (["--resamples", "1000000000"], "--resamples must be an integer 1..1,000,000"),
])
def test_counts_are_bounded_before_any_work(extra, said, capsys):
    # Before: a 47 TiB allocation's traceback, a pool that never started, an endless bootstrap.
    assert main(["--candidate", "greedy", "--opponents", "random", "--workers", "1",
                 "--no-progress", *extra]) == 2
    assert said in capsys.readouterr().err
