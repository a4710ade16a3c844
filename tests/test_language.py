"""The effect language: syntax errors, schema checks, canonical form and descriptions."""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.cards import describe
from advisor.cards.describe import describe_card
from advisor.cards.language import as_names, format_block, parse, validate
from advisor.errors import EffectSyntaxError


@pytest.mark.parametrize("text,message", [
    ("", "empty effect"),
    ("gain(", "expected"),
    ("fly(2)", "unknown operation 'fly'"),
    ("gain(gold, from=deck)", "from= applies to cards only"),
    ("gain(rubies)", "cannot be used here"),
    ("pay(coin)", "needs a { block }"),
    ("lay(1) { gain(gold) }", "takes no { block }"),
    ("lay(1, where=here)", "unknown keyword 'where'"),
    ("lay(1, on=roof)", "is not one of"),
    ("upto(0) { lay(1) }", "at least 1"),
    ("choice { lay(1) }", "at least two options"),
    ("vp(3)", "only allowed in end-game"),
    ("if(count(eggs)) { lay(1) }", "expected a cond expression"),
    ("gain(gold) $", "unexpected character"),
    ("lay(1, on=here, on=any)", "given twice"),
])
def test_rejects(text, message):
    with pytest.raises(EffectSyntaxError, match=re.escape(message)):
        validate(text, "if_activated")


@pytest.mark.parametrize("text,column", [
    ("gain(gold)  $", 13), ("lay(1, on=here) }", 17), ("\tlay(1 2)", 8), ("lay(1)\n\n$", 9)])
def test_syntax_errors_name_the_column(text, column):
    with pytest.raises(EffectSyntaxError, match=rf"at column {column}\b"):
        validate(text, "if_activated")


def test_set_arguments_read_as_names():
    # `size=small` and `size=[small, large]` both name a set; a left-out set is empty
    assert as_names("small") == ("small",)
    assert as_names(("small", "large")) == ("small", "large")
    assert as_names(()) == () and as_names(None) == ()


@pytest.mark.parametrize("text,message", [
    ("lay(two)", "expected a number"),
    ("if(column_full) { lay(1) }", "expected a count or condition"),   # validate() makes it a call
])
def test_unvalidated_program_is_a_bug_not_a_user_error(text, message):
    # descriptions read arguments by the schema's types, which only validate() guarantees
    with pytest.raises(TypeError, match=message):
        describe.effect(parse(text))


def test_vp_allowed_at_game_end():
    validate("if(column_full) { vp(3) }", "end_game")


def all_abilities(db):
    for card in db.dragons + db.caves:
        for a in card.abilities:
            yield card, a


def test_canonical_text_round_trips(db):
    for card, a in all_abilities(db):
        assert format_block(parse(a.text)) == a.text, card


def test_every_card_has_a_generated_description(db):
    for card in db.dragons + db.caves:
        text = describe_card(card)
        assert len(text) > 20
        assert not re.search(r"[{}_=\[\]]", text), (card, text)   # no raw effect syntax leaks out


def test_descriptions_are_not_the_printed_sentences(db):
    # spot checks of our own wording
    assert describe_card(db.dragon(45)) == "If activated: Pay 1 coin to lay 3 eggs."
    assert describe_card(db.cave(12)) == "When played: Gain 1 coin."
    assert "left neighbour" in describe_card(db.dragon(47))
    assert "each opponent may" in describe_card(db.dragon(37))


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet="abcdegilnoprstuy_(){}[];,=0123456789 -", max_size=60))
def test_parser_never_crashes(text):
    try:
        validate(text, "end_game")
    except EffectSyntaxError:
        pass


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_parser_never_crashes_on_any_text(text):
    try:
        validate(text, "when_played")
    except EffectSyntaxError:
        pass
