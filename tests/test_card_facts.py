"""The database reproduces the printed facts of every card (fixture written by the project)."""
import csv
from collections import Counter
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "dragon_facts.csv"
ROWS = list(csv.DictReader(open(FIXTURE)))
SIZE = {"H": "hatchling", "S": "small", "M": "medium", "L": "large"}
PERS = {"S": "shy", "H": "helpful", "A": "aggressive", "P": "playful"}
CAVE = {"C": "crimson", "G": "golden", "A": "amethyst"}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["number"])
def test_dragon_facts(db, row):
    d = db.dragon(int(row["number"]))
    assert d.name == row["name"]
    assert d.vp == int(row["vp"])
    assert d.size == SIZE[row["size"]]
    assert d.capacity == int(row["capacity"])
    assert d.personality == PERS[row["personality"]]
    assert d.cost == {k: int(row[k]) for k in ("meat", "gold", "crystal", "milk", "coin", "egg")}
    assert d.caves == tuple(CAVE[c] for c in row["caves"])


def test_sums_from_provenance(db):
    assert len(db.dragons) == 183 and len(db.caves) == 75
    assert Counter(d.size for d in db.dragons) == {"hatchling": 35, "small": 49, "medium": 49, "large": 50}
    assert Counter(d.personality for d in db.dragons) == {"shy": 46, "helpful": 46, "aggressive": 46,
                                                          "playful": 45}
    assert {c: sum(c in d.caves for d in db.dragons) for c in ("crimson", "golden", "amethyst")} == \
        {"crimson": 88, "golden": 90, "amethyst": 88}
    assert sum(d.vp for d in db.dragons) == 680
    assert all(d.capacity == 0 for d in db.dragons if d.is_hatchling)


def test_dragon_52_is_shy(db):
    assert db.dragon(52).personality == "shy"


def test_hatchlings_have_all_three_parts(db):
    for d in db.dragons:
        if d.is_hatchling:
            timings = {a.timing for a in d.abilities}
            assert {"if_activated", "grow_up"} <= timings
            assert ("on_feed" in timings) != ("end_game" in timings)
            assert d.feeds in ("meat", "milk", "dragon_card")
            assert d.cost["egg"] == 1 and d.cost["milk"] >= 1


UPDATED = {
    119: ("each=2, max=8", "each=3, max=12"), 124: ("each=2, max=8", "each=3, max=12"),
    131: ("each=4", "each=6"), 132: ("each=2, max=8", "each=3, max=12"),
    134: ("each=3, max=9", "each=4, max=12"),
}


def test_2025_printing_changes_exactly_the_listed_cards(db, db2025):
    changed = {d.number for d, e in zip(db.dragons, db2025.dragons, strict=True) if d != e}
    assert changed == set(UPDATED)
    for n, (old, new) in UPDATED.items():
        assert old in db.dragon(n).abilities[0].text
        assert new in db2025.dragon(n).abilities[0].text
    caves = {c.number for c, e in zip(db.caves, db2025.caves, strict=True) if c != e}
    assert caves == {50, 51}
    for n in (50, 51):
        assert "guild" in db.cave(n).abilities[0].text
        assert "guild" not in db2025.cave(n).abilities[0].text


def test_cave_9_ruling(db):
    assert db.cave(9).abilities[0].text == "gain(cave_card); guild(1)"


def test_components(db):
    assert [t.name for t in db.guild_tiles] == ["Plains Guild", "Guild of Seafarers",
                                                "Guild of Highlands", "Rainforest Guild"]
    assert all(len(t.abilities) == 4 for t in db.guild_tiles)
    assert len(db.guild_track) == 12 and db.guild_track[0] is None and db.guild_track[6] is None
    assert db.guild["fixed_vp_spot"]["vp"] == [6, 3, 1]
    assert len(db.objectives) == 10
    assert db.objective_vp == ((4, 1, 0), (5, 2, 1), (6, 3, 2), (7, 4, 3))
    assert len(db.automa_cards) == 16 and set(db.automa_levels) == {"L1", "L2", "L3", "R1", "R2", "R3"}
    assert {c: len(b) for c, b in db.mat_benefits.items()} == {"crimson": 5, "golden": 5, "amethyst": 5}
    assert db.mat["explore"]["coins"] == [1, 1, 1] and db.mat["explore"]["eggs"] == [0, 1, 2]
    assert db.mat["excavate"]["column_eggs"] == [0, 0, 1, 2]
