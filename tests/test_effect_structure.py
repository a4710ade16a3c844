"""Card encodings have the structure their printed rules demand (the reference encodings' known
faults, re-checked on our own encoding)."""
import pytest

from advisor.cards.language import Node, ops_used


def ops(card):
    out = set()
    for a in card.abilities:
        out |= ops_used(a.program)
    return out


def stmts(block):
    for s in block.stmts:
        yield s
        for v in list(s.args) + list(s.kwargs.values()):
            if isinstance(v, Node):
                yield v
        if s.block:
            yield from stmts(s.block)


@pytest.mark.parametrize("number,cave", [(47, "golden"), (103, "golden"), (114, "amethyst"),
                                         (168, "crimson"), (170, "crimson")])
def test_left_neighbour_dragons(db, number, cave):
    cond = [n for n in stmts(db.dragon(number).abilities[0].program) if n.op == "not_fewer_than_left"]
    assert cond and cond[0].args == [cave]


OPPONENT_DRAGONS = (37, 57, 70, 85, 156, 165, 174, 178, 181)
OPPONENT_CAVES = (27, 28, 50, 51, 69, 70, 71, 72, 73, 74, 75)


@pytest.mark.parametrize("number", OPPONENT_DRAGONS)
def test_opponent_part_dragons(db, number):
    assert "each_opponent" in ops(db.dragon(number))


@pytest.mark.parametrize("number", OPPONENT_CAVES)
def test_opponent_part_caves(db, number):
    assert "each_opponent" in ops(db.cave(number))


def test_exactly_twenty_cards_benefit_opponents(db):
    dragons = {d.number for d in db.dragons if "each_opponent" in ops(d)}
    caves = {c.number for c in db.caves if "each_opponent" in ops(c)}
    assert dragons == set(OPPONENT_DRAGONS) and caves == set(OPPONENT_CAVES)


def test_dragon_73_activates_a_mat_benefit(db):
    assert "activate_mat" in ops(db.dragon(73)) and "activate" not in ops(db.dragon(73))


@pytest.mark.parametrize("kind,number,n", [("dragon", 70, 2), ("dragon", 105, 3), ("cave", 69, 3),
                                           ("cave", 75, 3), ("dragon", 104, 2)])
def test_up_to_n_times_is_a_repeat_of_optional_uses(db, kind, number, n):
    card = db.dragon(number) if kind == "dragon" else db.cave(number)
    first = card.abilities[0].program.stmts[0]
    assert first.op == "upto" and first.args == [n]


@pytest.mark.parametrize("number,first,then", [(63, "tuck", "lay"), (104, "tuck", "gain"),
                                               (120, "cache", "gain"), (153, "cache", "lay")])
def test_if_you_do_is_a_block_of_its_condition(db, number, first, then):
    top = [s for s in stmts(db.dragon(number).abilities[0].program) if s.op == first][0]
    assert top.block is not None and top.block.stmts[0].op == then


def test_dragon_22_tucks_from_hand(db):
    act = db.dragon(22).ability("if_activated").program.stmts[0]
    assert act.op == "tuck" and act.kwargs["from"] == "hand"


def test_every_dragon_has_an_ability_and_timing(db):
    for d in db.dragons:
        assert d.timing in ("when_played", "if_activated", "once_per_round", "end_game")
        assert d.abilities
