"""The docs link only to files in the repository (and to anchors that exist): what a fresh clone shows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of the headings of a Markdown file."""
    out = set()
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def broken_links(path: Path) -> list[str]:
    bad = []
    for target in LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists() or ROOT not in (dest, *dest.parents):
            bad.append(f"{path.relative_to(ROOT)}: {target} (no such file in the repository)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    return bad


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_links_point_into_the_repository(path: Path) -> None:
    assert broken_links(path) == []


def test_a_broken_link_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: a link to a missing file and to a missing heading are both reported."""
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path, raising=False)
    doc = tmp_path / "x.md"
    doc.write_text("# Title here\n[ok](#title-here) [gone](missing.md) [nohead](x.md#nope) [web](https://a.b)\n")
    assert broken_links(doc) == ["x.md: missing.md (no such file in the repository)",
                                 "x.md: x.md#nope (no such heading)"]
