"""The minimal profile in one place: PROTOCOL.md's table of its MUSTs is the kit's list, FIRST-PEER.md
(in both languages) sends a reader to no clause outside it, and the kit's report tells the minimal
clauses it did not check from the full ones a minimal peer may leave out (an outsider's try, 2026-11-26)."""
import io
import re
from pathlib import Path

import conformance
from conformance.runner import clauses_of

ROOT = Path(__file__).resolve().parents[1]
CLAUSE = r"[A-Z]+\d+[a-z]?"


def _spelt_out(words: str) -> set[str]:
    """Clause names in ``words``, ranges ("G1 to G4", "H1-H5b") spelt out."""
    out: set[str] = set()
    for m in re.finditer(rf"\b({CLAUSE})(?:(?: to | から |-)({CLAUSE}))?\b", words):
        first, last = m[1], m[2]
        if last is None:
            out.add(first)
            continue
        a, b = re.fullmatch(r"([A-Z]+)(\d+)[a-z]?", first), re.fullmatch(r"([A-Z]+)(\d+)[a-z]?", last)
        assert a and b and a[1] == b[1], m[0]
        out.update(f"{a[1]}{i}" for i in range(int(a[2]), int(b[2]) + 1))
        out.update({first, last})
    return out


def _protocol_minimal_musts() -> set[str]:
    text = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    table = text.split("| area | clauses | in short |", 1)[1].split("\n\n", 1)[0]
    clauses: set[str] = set()
    for row in table.splitlines()[2:]:
        clauses |= _spelt_out(row.split("|")[2])
    return clauses


def test_the_kit_keeps_protocol_mds_list_of_minimal_musts():
    assert _protocol_minimal_musts() == set(conformance.MINIMAL_CLAUSES)


def test_every_minimal_scenario_checks_minimal_clauses_only():
    assert clauses_of(conformance.MINIMAL_SCENARIOS) <= conformance.MINIMAL_CLAUSES


def test_first_peer_sends_a_reader_to_minimal_clauses_only_and_both_languages_name_the_same():
    named = {}
    for page in ("FIRST-PEER.md", "FIRST-PEER.ja.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        steps = re.findall(r"^(?:Clauses|条項)[:：] *(.+)$", text, re.M)
        assert len(steps) == 5, page
        named[page] = [_spelt_out(step) for step in steps]
        for i, clauses in enumerate(named[page], 1):
            assert clauses and clauses <= conformance.MINIMAL_CLAUSES, (page, i, clauses - conformance.MINIMAL_CLAUSES)
    assert named["FIRST-PEER.md"] == named["FIRST-PEER.ja.md"]
    # and, read together, the steps name every clause a minimal peer must keep: the page is the whole list
    assert set().union(*named["FIRST-PEER.md"]) == conformance.MINIMAL_CLAUSES


def test_the_report_names_unchecked_minimal_clauses_apart_from_full_ones():
    out = io.StringIO()
    assert conformance.run("true", only=["no-such-scenario"], stream=out, profile="minimal") == []
    lines = out.getvalue().splitlines()
    full = next(line for line in lines if line.startswith("Not checked by the minimal profile (full profile only): "))
    minimal = next(line for line in lines if line.startswith("Minimal clauses no scenario here checks"))
    full_only, unchecked = set(full.split(": ", 1)[1].split()), set(minimal.split(": ", 1)[1].split())
    assert "B6" in full_only and "P5" not in full_only and "H8" in full_only
    assert "B1" in unchecked and unchecked <= conformance.MINIMAL_CLAUSES
    assert not full_only & conformance.MINIMAL_CLAUSES


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_into_the_protocol_and_its_notes_find_their_headings():
    """Background moved from PROTOCOL.md into PROTOCOL-NOTES.md: every link that names a heading still finds it."""
    docs = ROOT / "docs"
    anchors = {name: {_slug(h) for h in re.findall(r"^#+ (.+)$", (docs / name).read_text(encoding="utf-8"), re.M)}
               for name in ("PROTOCOL.md", "PROTOCOL-NOTES.md")}
    links = 0
    for page in [ROOT / "README.md", *docs.glob("*.md")]:
        for name, anchor in re.findall(r"\]\((?:docs/)?(PROTOCOL(?:-NOTES)?\.md)#([^)]+)\)", page.read_text(encoding="utf-8")):
            links += 1
            assert anchor in anchors[name], f"{page.name}: {name}#{anchor} names no heading"
    assert links >= 3
