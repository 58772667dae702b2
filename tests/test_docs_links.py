"""The README and the pages of docs/ link only to what exists (issue 52).

Every relative Markdown link of README.md and docs/**/*.md names a file of the
repository, and its ``#anchor``, when it has one and names a Markdown page, a heading of
that page (GitHub's rule: lower case, punctuation dropped, spaces to hyphens, a repeated
heading numbered).  The README is a front page: at most 320 lines, with no link that
leaves the repository, and docs/README.md lists every page of docs/.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import GAMES

ROOT = GAMES.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]

#: [text](target) and ![alt](target), with an optional "title"; text may hold one
#: level of brackets.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[ \t]*$", re.S | re.M)
_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def _prose(text: str) -> str:
    """``text`` without its code blocks and code spans, where brackets are not links."""
    return _CODE.sub("", _FENCE.sub("", text))


def links(page: Path, text: str | None = None) -> list[str]:
    """The link targets of ``page`` (or of ``text``, read as if it were that page)."""
    if text is None:
        text = page.read_text(encoding="utf-8")
    return _LINK.findall(_prose(text))


def slug(heading: str) -> str:
    heading = re.sub(r"<[^>]+>", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", heading).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", text, flags=re.M):
        name = slug(heading)
        count = seen.get(name, 0)
        seen[name] = count + 1
        found.add(name if count == 0 else f"{name}-{count}")
    return found


def _external(target: str) -> bool:
    """A URL (``https:``, ``mailto:``...), not a path."""
    return re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) is not None


def broken_links(page: Path, text: str | None = None) -> list[str]:
    """What is wrong with ``page``'s relative links (or ``text``'s, as if it were that
    page), one line each."""
    wrong = []
    for target in links(page, text):
        if _external(target):
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.is_relative_to(ROOT):
            wrong.append(f"{target}: outside the repository")
        elif not where.exists():
            wrong.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            wrong.append(f"{target}: {where.relative_to(ROOT)} has no heading #{anchor}")
    return wrong


def test_every_relative_link_resolves() -> None:
    wrong = {
        str(page.relative_to(ROOT)): problems for page in PAGES if (problems := broken_links(page))
    }
    assert not wrong, wrong


def test_the_readme_is_a_front_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 320, "the README is a front page: move details to docs/"
    leaving = [
        t for t in links(README) if not _external(t) and ".." in Path(t.partition("#")[0]).parts
    ]
    assert not leaving, f"the README links outside the repository: {leaving}"
    assert "../shared" not in text, "the README names the shared folder outside the repository"


def test_the_docs_index_lists_every_page() -> None:
    index = ROOT / "docs" / "README.md"
    listed = {
        (index.parent / t.partition("#")[0]).resolve() for t in links(index) if not _external(t)
    }
    pages = {p.resolve() for p in PAGES if p.parent != ROOT and p != index}
    missing = sorted(str(p.relative_to(ROOT)) for p in pages - listed)
    assert not missing, f"docs/README.md does not list {missing}"


def test_a_broken_link_is_found() -> None:
    """The check can fail: a missing file, a missing heading, a way out of the repository;
    links in code are not links."""
    page = ROOT / "docs" / "a-page.md"
    text = (
        "[a](nothing.md) [b](README.md#no-such-heading) [c](../../outside.md)"
        " [d](README.md#using-cardlang) [e](https://example.org/x.md) `[f](code.md)`\n"
        "```\n[g](fenced.md)\n```\n"
    )
    wrong = broken_links(page, text)
    assert [w.split(":")[0] for w in wrong] == [
        "nothing.md",
        "README.md#no-such-heading",
        "../../outside.md",
    ], wrong
