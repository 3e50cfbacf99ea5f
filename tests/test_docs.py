"""The documents have a door: docs/README.md names every one of them, README.md leads to the
first-hour pages (English and Japanese) before anything else, every link between the documents
leads somewhere, and the first-hour pages' own AI runs as written."""
import re
import textwrap

import pytest

from engine import Position, strategies
from peertools import ROOT

DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_index_names_every_document():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    named = set(LINK.findall(index))
    missing = [p.name for p in DOCS.glob("*.md") if p.name != "README.md" and p.name not in named]
    assert not missing, missing


def test_readme_leads_to_the_first_hour_before_anything_else():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_section_after_try = readme.index("## Play")
    for page in ("docs/first-hour.md", "docs/first-hour.ja.md", "docs/README.md"):
        assert 0 < readme.find(f"]({page})") < first_section_after_try, page


@pytest.mark.parametrize("path", [ROOT / "README.md", *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_every_link_between_the_documents_leads_somewhere(path):
    text = path.read_text(encoding="utf-8")
    broken = [target for target in LINK.findall(text)
              if "://" not in target and not target.startswith("mailto:") and not (path.parent / target).exists()]
    assert not broken, broken


@pytest.mark.parametrize("page", ["first-hour.md", "first-hour.ja.md"])
def test_the_first_hours_own_ai_plays_as_written(tmp_path, page):
    text = (DOCS / page).read_text(encoding="utf-8")
    start = text.index("```python\n") + len("```python\n")
    (tmp_path / "my_ai.py").write_text(textwrap.dedent(text[start:text.index("```", start)]), encoding="utf-8")
    ai = strategies.get(f"{tmp_path / 'my_ai.py'}:MyAI")
    try:
        assert ai.next_move(Position.start(), 2) in Position.start().legal_moves() and ai.problem == ""
    finally:
        ai.close()
