"""Every number the README publishes has a record in docs/results/, and prints its figures.

A record (one JSON file per result) holds what rebuilds the number and what proves it: the
command, the commit it was measured at, the deal seed and count, whether that seed was used for
tuning, the result with its CI and the SHA-256 of the arena journal that produced it. The
journals themselves stay out of the tree; these tests read only tracked files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RESULTS = ROOT / "docs" / "results"
HEX64 = re.compile(r"^[0-9a-f]{64}$")
COMMIT = re.compile(r"^[0-9a-f]{7,40}(\.\.[0-9a-f]{7,40})?$")
PUBLICATION_SEED = 61061


def _records() -> dict[str, dict[str, Any]]:
    """Every record file, by file name."""
    return {p.name: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(RESULTS.glob("*.json"))}


def _signed(x: float, decimals: int = 1) -> str:
    """``x`` as the docs print it: a sign always, U+2212 for minus, thousands separated."""
    text = f"{abs(x):,.{decimals}f}"
    return ("+" if x >= 0 else "\u2212") + text


def _headline_rows() -> list[list[str]]:
    """The cells of each row of the README's headline table (its header and rule left out)."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Headline numbers", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in rows[2:]]


def _headline() -> list[tuple[list[str], dict[str, Any]]]:
    """Each headline row with the record its row links to."""
    records = _records()
    out = []
    for cells in _headline_rows():
        links = re.findall(r"\(docs/results/([\w.-]+\.json)\)", cells[-1])
        assert len(links) == 1, f"headline row {cells[:2]} links no single record: {cells[-1]}"
        assert links[0] in records, f"headline row {cells[:2]} links a missing record {links[0]}"
        out.append((cells, records[links[0]]))
    return out


def test_the_readme_has_the_five_headline_rows_each_with_a_record() -> None:
    rows = _headline()
    assert len(rows) == 5
    assert len({r["title"] for _, r in rows}) == 5


@pytest.mark.parametrize("index", range(5))
def test_a_headline_row_prints_its_records_figures(index: int) -> None:
    cells, rec = _headline()[index]
    player, against, points, ci, deals, seed = cells[:6]
    assert re.match(r"`([^`]+)`", player).group(1) == rec["player"]
    assert against == f"`{rec['against']}`"
    assert points == _signed(rec["mean"])
    assert ci == f"[{_signed(rec['ci'][0])}, {_signed(rec['ci'][1])}]"
    assert deals == f"{rec['deals']:,}"
    # The seed is printed, and so is whether choices were made on it.
    assert seed == (f"{rec['seed']} (tuning)" if rec["tuning_seed"] else str(rec["seed"]))


@pytest.mark.parametrize("index", range(5))
def test_a_headline_record_says_how_the_number_was_made(index: int) -> None:
    _, rec = _headline()[index]
    assert COMMIT.match(rec["commit"]), rec["commit"]
    command = rec["command"]
    assert command.startswith(("python -m training eval ", "gongzhu eval "))
    assert f"--seed {rec['seed']} " in command + " "
    assert f"--deals {rec['deals']} " in command + " "
    assert "--keep-journals" in command  # the command rebuilds the journal it names
    assert rec["seed_note"].strip()
    assert "README.md" in rec["shown_in"]
    journal = rec["journal"]
    assert HEX64.match(journal["sha256"]), journal
    assert 0 < journal["deals"] <= rec["deals"]
    assert journal["source"].strip() and journal["note"].strip()
    if journal["deals"] < rec["deals"]:
        # A journal kept only in part says so, and what the rest takes.
        assert f"{journal['deals']:,}" in journal["note"] and "not kept" in journal["note"]


def test_each_headline_row_is_on_the_publication_seed_or_says_tuning() -> None:
    text = README.read_text(encoding="utf-8")
    section = " ".join(text.split("## Headline numbers", 1)[1].split("\n## ", 1)[0].split())
    for cells, rec in _headline():
        # A row is either held out (the publication seed, no choice made on it) or marked.
        assert rec["tuning_seed"] or rec["seed"] == PUBLICATION_SEED, cells[:2]
        assert rec["seed"] != PUBLICATION_SEED or not rec["tuning_seed"], cells[:2]
    if any(rec["tuning_seed"] for _, rec in _headline()):
        assert "(tuning)" in section and "in progress" in section
    assert str(PUBLICATION_SEED) in section
    # The outside measurement is cited as such, with its own figures.
    assert "+13.7 [+2.8, +24.4]" in section and "560 deals" in section
    assert "no record of ours" in section


def test_every_other_readme_result_prints_its_records_figures() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())  # lines rewrapped as one
    headline = {rec["title"] for _, rec in _headline()}
    checked = 0
    for name, rec in _records().items():
        if "README.md" not in rec.get("shown_in", []) or rec["title"] in headline:
            continue
        checked += 1
        if rec.get("kind") == "round robin":
            order = sorted(rec["ratings"], key=rec["ratings"].get, reverse=True)
            if rec["rules"] == "standard":
                # The README prints the standard ladder's ratings.
                shown = ", ".join(f"`{a}` {_signed(rec['ratings'][a], 0)}" for a in order[:-1])
                assert shown.replace("\u2212", "-") in text, name
            else:
                # The other tables are cited for keeping the standard ladder's order.
                standard = _records()["ladder-standard.json"]["ratings"]
                assert order == sorted(standard, key=standard.get, reverse=True), name
            continue
        # A pair result is printed with its CI, to one decimal or to the unit.
        printed = [f"{_signed(rec['mean'], d)} [{_signed(rec['ci'][0], d)}, "
                   f"{_signed(rec['ci'][1], d)}]" for d in (1, 0)]
        assert any(p in text for p in printed), (name, printed)
        assert f"{rec['deals']:,} deals" in text or f"on {rec['deals']:,}" in text, name
    assert checked >= 7


def test_every_record_is_complete_and_listed_on_the_results_page() -> None:
    page = (RESULTS / "index.md").read_text(encoding="utf-8")
    records = _records()
    assert len(records) >= 14
    for name, rec in records.items():
        assert f"({name})" in page, f"docs/results/index.md does not link {name}"
        assert isinstance(rec["seed"], int) and isinstance(rec["tuning_seed"], bool), name
        assert rec["shown_in"] and all((ROOT / p).is_file() for p in rec["shown_in"]), name
        if rec.get("kind") == "screens":
            for screen in rec["screens"]:
                assert HEX64.match(screen["journal_sha256"]), (name, screen["network"])
                assert screen["journal_deals"] >= screen["deals"]
            continue
        assert COMMIT.match(rec["commit"]) and "--keep-journals" in rec["command"], name
        journal = rec["journal"]
        files = journal.get("files", [])
        # A digest for every journal, or a note that says why there is none.
        assert files or "sha256" in journal or "not kept" in journal["note"].lower(), name
        for f in files:
            assert HEX64.match(f["sha256"]) and f["deals"] == rec["deals"], (name, f["name"])


def test_the_docs_pages_print_the_figures_of_the_records_they_show() -> None:
    for name, rec in _records().items():
        for page in rec["shown_in"]:
            text = (ROOT / page).read_text(encoding="utf-8").replace("-", "\u2212")
            if rec.get("kind") == "screens":
                for s in rec["screens"]:
                    shown = f"{_signed(s['mean'])} [{_signed(s['ci'][0])}, {_signed(s['ci'][1])}]"
                    assert shown in text, (name, page, shown)
            elif rec.get("kind") == "round robin":
                if page == "README.md":
                    continue  # checked above: ratings or the order they keep
                for agent, rating in rec["ratings"].items():
                    if rating:
                        assert f"{_signed(rating, 0)}" in text, (name, page, agent)
            else:
                assert any(_signed(rec["mean"], d) in text for d in (1, 0)), (name, page)


def test_the_publication_seed_rule_is_written_down() -> None:
    page = (RESULTS / "index.md").read_text(encoding="utf-8")
    assert str(PUBLICATION_SEED) in page and "seed 1" in page
