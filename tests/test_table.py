"""A real game followed from one seat (advisor/table.py): the table is asked only what the viewer
sees, and the viewer's view of the followed game equals their view of the real one throughout."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from advisor._core import CHANCE, Game, named_card
from advisor.table import HIDDEN_CHOICES, Question, Table, TableError, a_card, asks
from advisor.wording import chance_words

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from table_scan import point as _point, real_game  # noqa: E402  (the scan's real games and points)


def follow(players: int, seed: int, viewer: int) -> tuple[Table, int]:
    """The real game entered at a table from `viewer`'s seat; returns the table and the entries."""
    real = real_game(players, seed, "random")
    table = Table(players, viewer, seed=seed)
    replay = Game.new(players, seed, chance="told")
    entries = 0
    for a in real.history:
        if asks(replay, viewer):
            if _point(replay) == _point(table.game):
                assert replay.observation(viewer) == table.game.observation(viewer)
            table.answer(a, replay.decider if replay.decider >= 0 else None)
            entries += 1
        replay.apply(a)
    assert table.game.is_terminal()
    assert table.game.scores() == real.scores()
    return table, entries


@pytest.mark.parametrize("players,seed", [(2, 1), (2, 2), (3, 3), (4, 4), (5, 5), (1, 6)])
def test_a_real_game_is_followed_from_every_seat(players: int, seed: int) -> None:
    for viewer in range(max(players, 1) if players > 1 else 1):
        table, entries = follow(players, seed, viewer)
        assert 0 < entries < len(table.game.history)       # the hidden steps were not asked


def test_the_table_is_asked_the_viewers_cards_and_not_the_others() -> None:
    t = Table(2, viewer=1, seed=3, names=("Ann", "Ben"))
    asked = []
    while (q := t.question()) is not None and t.game.phase in ("deal", "setup"):
        asked.append((q.about, q.count))
        t.answer(q.options[0][0])       # one outcome at a time is an answer too
    assert asked[:2] == [("the guild tile", 1), ("the objective tiles of rounds 1-4, with their sides", 4)]
    assert ("round 1 display, left to right: 3 dragon cards and 3 cave cards", 6) in asked
    assert ("your starting hand: 3 dragon cards and 3 cave cards", 6) in asked
    assert not any("Ann's starting hand" in a for a, _ in asked)


def test_a_question_of_several_outcomes_takes_them_in_the_order_it_lists_them() -> None:
    t = Table(2, viewer=0, seed=4)
    t.answer(t.question().options[2][0])                     # the guild tile
    q = t.question()
    assert q.parts == ("round 1", "round 2", "round 3", "round 4")
    by_tile = {text.split(":")[0].split()[1]: a for a, text in q.options}
    t.answer([by_tile[x] for x in ("6a", "5b", "10a", "3a")])
    obs = t.game.observation(0)
    assert [f"{n + 1}{'ab'[s]}" for n, s in zip(obs["objective_tiles"], obs["objective_sides"], strict=True)] == \
        ["6a", "5b", "10a", "3a"]
    q = t.question()
    assert q.count == 6 and q.parts[0] == "dragon slot 1" and q.parts[3] == "cave slot 1"
    dragons = [a for a, text in q.options if not text.startswith("cave")][:3]
    caves = [a for a, text in q.options if text.startswith("cave")][:3]
    with pytest.raises(TableError):
        t.answer(dragons + caves[:2])               # one answer short: nothing is entered
    assert t.question() == q
    t.answer(dragons + caves)
    obs = t.game.observation(0)
    assert [obs["display_dragons"], obs["display_caves"]] == [[named_card(a)[1] for a in dragons],
                                                              [named_card(a)[1] for a in caves]]
    t.undo()
    assert t.question() == q


def test_undo_takes_back_the_last_entry_and_what_followed_it() -> None:
    t = Table(3, viewer=0, seed=9)
    rng = random.Random(9)
    views = []
    for _ in range(60):
        views.append((len(t.game.history), t.game.observation(0)))
        t.answer(rng.choice(t.game.legal_actions()))
    for n, view in reversed(views):
        t.undo()
        assert len(t.game.history) == n and t.game.observation(0) == view
    with pytest.raises(TableError, match="nothing to undo"):
        t.undo()


def test_a_table_saves_and_loads_to_the_same_game() -> None:
    t = Table(2, viewer=0, seed=4)
    rng = random.Random(4)
    for _ in range(80):
        t.answer(rng.choice(t.game.legal_actions()))
    u = Table.from_dict(t.to_dict())
    assert u.game.to_dict() == t.game.to_dict() and u.entered == t.entered
    assert u.question() == t.question()


def test_an_entry_no_binding_allows_is_refused_in_one_line() -> None:
    t = Table(2, viewer=0, seed=2)
    while t.game.decider != 1:
        t.answer(t.question().options[0][0])
    mine = t.game.observation(0)["players"][0]["hand_dragons"][0]
    with pytest.raises(TableError, match="no deal of the cards you have not seen"):
        t.answer((11 << 20) | mine)                   # a card in the viewer's own hand


def test_questions_say_what_they_are_for() -> None:
    t = Table(2, viewer=0, seed=1)
    q = t.question()
    assert q == Question(None, "the guild tile", q.options, parts=("the guild tile",),
                         points=(("guild tile", 0),)) and len(q.options) == 4
    assert [text for _, text in q.options] == ["Plains Guild", "Guild of Seafarers", "Guild of Highlands",
                                               "Rainforest Guild"]
    g = Game.new(2, 1, chance="told")
    while g.chance_event.event != "display dragon":
        g.sample(0)
    assert chance_words(g, 0) == "round 1 display: dragon card in slot 1"
    while g.chance_event.event != "first player":
        g.sample(0)
    assert [Table(2, 0, names=("Ann", "Ben")).text(a, g) for a in g.legal_actions()] == ["Ann starts", "Ben starts"]


def test_another_seats_pick_of_a_card_is_asked_even_when_forced() -> None:
    """How many cards another seat could pick follows their hand, which the viewer cannot see: a
    pick of one card from it is asked as any other (the table shows the card)."""
    rng = random.Random(2)
    for seed in range(20):
        g = Game.new(3, seed, chance="told")
        while not g.is_terminal():
            legal = g.legal_actions()
            if g.decider not in (CHANCE, 0) and len(legal) == 1 and named_card(legal[0]) and \
                    g.decision not in HIDDEN_CHOICES:
                assert asks(g, 0)
                return
            g.apply(rng.choice(legal))
    pytest.fail("no forced pick of a card by another seat in 20 games")


def test_a_card_chosen_face_down_is_asked_by_what_follows_it() -> None:
    """The table cannot show which card went face down, but it shows what followed (a resource its
    kind gave, a choice it brought): the question's options are those outcomes, each once."""
    from advisor.table import _settle, shown_after
    asked = 0
    for seed in range(3, 9):
        real = real_game(2, seed, "greedy")
        table = Table(2, 0, seed=seed)
        replay = Game.new(2, seed, chance="told")
        for a in real.history:
            if asks(replay, 0):
                q = table.question()
                if q.hidden:
                    outcomes = []
                    for option, words in q.options:
                        trial = table.chosen(option, look=True) if a_card(option) else table.game.clone()
                        assert trial is not None
                        if not a_card(option):
                            trial.apply(option)
                        _settle(trial, 0, seed)
                        outcomes.append(shown_after(trial, 0, q.seat))
                        assert words == "no" or words.startswith("a card, then ")
                    assert len(set(outcomes)) == len(outcomes)
                    asked += len(outcomes) > 1
                    break
                table.answer(a)
            replay.apply(a)
        if asked:
            break
    assert asked


def test_a_question_names_the_card_or_rule_that_asks_it() -> None:
    """A sub-decision says which card asks it (issue "advisor serve": "the card Keen Cricketcatcher
    asks for"): a dragon by name with its ability's timing, a cave card, a mat benefit, the guild
    track; the rules' own decisions (a move) name none."""
    from advisor.wording import decision_words
    abouts = []
    for seed in (1, 2):
        real = real_game(2, seed, "greedy")
        table = Table(2, 0, seed=seed, names=("Ann", "Ben"))
        replay = Game.new(2, seed, chance="told")
        for a in real.history:
            if asks(replay, 0):
                q = table.question()
                assert q is not None
                if q.seat is not None and not q.hidden:
                    g = table.game
                    who = "you" if q.seat == 0 else "Ben"
                    assert q.about == f"{who}: {decision_words(g, 0, table.names)}"
                    assert (" for " in q.about) == (g.asked_by is not None), q.about
                    abouts.append(q.about)
                elif q.seat is None and "from the deck" in q.about and "draw" not in q.about:
                    abouts.append(q.about)      # a card's ability turns up or plays a card from the deck
                table.answer(a, replay.decider if replay.decider >= 0 else None)
            replay.apply(a)
    import re
    assert all(" for " not in a for a in abouts if a.endswith(": move"))
    assert any(re.fullmatch(r"(you|Ben): [a-z ]+ for [A-Z][\w' -]+, (when played|if activated|once per round)", a)
               for a in abouts), abouts
    assert any(re.fullmatch(r"(you|Ben): [a-z ]+ for cave \d+", a) for a in abouts), abouts
    assert any(re.fullmatch(r"(you|Ben): [a-z ]+ for (Crimson Cavern|Golden Grotto|Amethyst Abyss)'s "
                            r"(first|column \d) benefit", a) for a in abouts), abouts
    assert any(a.endswith(" for the guild track") for a in abouts), abouts
    assert any(re.fullmatch(r"the dragon card turned up from the deck for (your|Ben's) [A-Z][\w' -]+, [a-z ]+", a)
               for a in abouts), abouts
