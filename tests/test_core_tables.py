"""The compiled tables held by the Cython core are exactly the database's programs."""
from pathlib import Path

import pytest

from advisor import _core
from advisor.cards import install_core_tables
from advisor.cards.compiler import (COL_ALT, COL_CHILD, COL_NEXT, COL_OP, COL_POS, DRAGON_COLS,
                                    NCOL, OPCODES, compile_database, disassemble, normalise,
                                    pxi_text)
from advisor.cards.language import CAVES


@pytest.fixture(scope="module")
def tables():
    return install_core_tables("base")


class CoreRows:
    """Reads instructions back out of the core's C arrays."""
    def __getitem__(self, i):
        return _core.instruction(i)


def test_pxi_is_current():
    pxi = Path(__file__).resolve().parent.parent / "ext" / "engine" / "opcodes.pxi"
    assert pxi.read_text() == pxi_text(), "run: python -m advisor.cards.compiler > ext/engine/opcodes.pxi"


def test_core_holds_every_instruction(tables):
    assert _core.installed()
    assert _core.n_instructions() == len(tables.program)
    for i in range(len(tables.program)):
        assert _core.instruction(i) == tuple(tables.program[i])
    assert len(_core.instruction(0)) == NCOL


def test_every_ability_disassembles_from_the_core(db, tables):
    rows = CoreRows()
    for d in db.dragons:
        row = _core.dragon_row(d.number)
        assert row[:5] == (d.number, d.vp, tables.dragons[d.number][2], d.capacity,
                           tables.dragons[d.number][4])
        for a in d.abilities:
            entry = row[DRAGON_COLS.index(f"entry_{a.timing}")]
            assert disassemble(rows, entry) == normalise(a.text), (d.number, a.timing)
    for c in db.caves:
        assert disassemble(rows, _core.cave_entry(c.number)) == normalise(c.abilities[0].text)
    for k, cave in enumerate(CAVES):
        for icon, a in enumerate(db.mat_benefits[cave]):
            assert disassemble(rows, _core.mat_benefit_entry(k, icon)) == normalise(a.text)
    for space, a in enumerate(db.guild_track):
        entry = _core.guild_track_entry(space)
        assert (entry == -1) if a is None else disassemble(rows, entry) == normalise(a.text)
    for t, tile in enumerate(db.guild_tiles):
        for k, ab in enumerate(tile.abilities):
            entry, uses, end_game = _core.guild_tile_entry(t, k)
            assert uses == ab.uses and end_game == (ab.effect.timing == "end_game")
            assert disassemble(rows, entry) == normalise(ab.effect.text)
    for t, tile in enumerate(db.objectives):
        assert disassemble(rows, _core.objective_entry(t, 0)) == normalise(tile.a.count_text)


def test_c_walk_spans_each_program(db, tables):
    # the C walker and the Python table agree on how many instructions each program spans
    def py_reach(entry):
        seen, todo = set(), [entry]
        while todo:
            i = todo.pop()
            if i < 0 or i in seen:
                continue
            seen.add(i)
            r = tables.program[i]
            todo += [int(r[COL_NEXT]), int(r[COL_CHILD]), int(r[COL_ALT])]
            name = OPCODES[int(r[COL_OP])]
            if name in ("if", "repeat", "at_least", "at_most"):
                todo.append(int(r[COL_POS]))          # nested condition or count
            if name == "vp":
                todo.append(int(r[COL_POS + 1]))      # the amount's count (-1 when constant)
        return len(seen)
    for d in db.dragons:
        for a in d.abilities:
            entry = int(tables.dragons[d.number][DRAGON_COLS.index(f"entry_{a.timing}")])
            assert _core.reachable(entry) == py_reach(entry), d.number


def test_install_rejects_a_broken_program(tables):
    bad = tables.program.copy()
    bad[5, COL_NEXT] = 30000
    with pytest.raises(ValueError, match="instruction 5"):
        _core.install_tables(bad, tables.dragons, tables.caves, tables.mat_benefits,
                             tables.guild_track, tables.guild_tiles, tables.objectives, tables.rules,
                             tables.automa_cards, tables.automa_levels, tables.automa_objectives, tables.printing)
    assert not _core.installed()
    _core.install_tables(tables.program, tables.dragons, tables.caves, tables.mat_benefits,
                         tables.guild_track, tables.guild_tiles, tables.objectives, tables.rules,
                             tables.automa_cards, tables.automa_levels, tables.automa_objectives, tables.printing)
    assert _core.installed()


def test_2025_tables_differ_only_in_updated_cards(db, db2025):
    a, b = compile_database(db), compile_database(db2025)
    # caves 50 and 51 lose the guild option twice each (own choice and the opponents' choice)
    assert len(a.program) - len(b.program) == 4
    facts = DRAGON_COLS.index("feeds") + 1
    assert (a.dragons[:, :facts] == b.dragons[:, :facts]).all()
