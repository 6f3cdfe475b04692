"""The release is described the same way everywhere: one version, a changelog, a citation.

The version is written once, as ``gongzhu_env.__version__``; pyproject.toml reads it from
there, and CHANGELOG.md and CITATION.cff must name the same release.
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import yaml

import gongzhu_env

ROOT = Path(__file__).resolve().parents[1]
SEMVER = re.compile(r"^\d+\.\d+\.\d+$")


def test_the_version_is_written_once_and_the_package_reads_it():
    assert SEMVER.match(gongzhu_env.__version__), gongzhu_env.__version__
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^dynamic = \["version"\]$', project, flags=re.M)
    table = project.split("[project]\n", 1)[1].split("\n[", 1)[0]
    assert not re.search(r"^version = ", table, flags=re.M), "a second version in [project]"
    reader = '[tool.setuptools.dynamic]\nversion = { attr = "gongzhu_env.__version__" }\n'
    assert reader in project
    # The installed distribution's metadata came from the same attribute.
    assert importlib.metadata.version("gongzhu-rl") == gongzhu_env.__version__


def test_the_changelog_starts_with_this_release():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, flags=re.M)
    assert releases[0] == ("Unreleased", ""), "Keep a Changelog: [Unreleased] comes first"
    version, date = releases[1]
    assert version == gongzhu_env.__version__
    assert date, "a release heading carries its date"
    first = text.split(f"## [{version}]", 1)[1].split("\n## [", 1)[0]
    assert "### Added" in first and "### Measured highlights" in first


def test_the_citation_names_this_release():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "date-released", "license"):
        assert cff.get(key), f"CITATION.cff lacks {key}"
    assert str(cff["version"]) == gongzhu_env.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{cff['version']}] - {cff['date-released']}" in changelog
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'license = {{ text = "{cff["license"]}" }}' in project
