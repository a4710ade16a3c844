"""`advisor track`: a game at the table followed entry by entry (advisor/track/, docs/track.md), on
the table driver (advisor/table.py).

The followed games are real games played with chance told (bench/table_scan.py); every question the
tracker asks is answered by the line a player would type (bench/track_scan.py), and the viewer's view
must equal the real one at every question, the final scores the real ones."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from advisor.cli import main
from advisor.table import UNSEEN, Table, TableError
from advisor.track import Console, Dialogue, EntryError, SaveError, TrackSession, read_entry

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from track_scan import follow  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "early-2p.toml"


@pytest.mark.parametrize("players,seed,viewer", [(1, 0, 0), (2, 1, 1), (3, 3, 0), (5, 3, 3)])
def test_a_real_game_is_followed_as_typed(players: int, seed: int, viewer: int) -> None:
    lines: list[str] = []
    assert follow(players, seed, viewer, "random", lines) is None
    assert any("," in line for line in lines)        # the display's cards, one line
    assert len(lines) < 400


# greedy games where the table once refused what another seat did: a card named later came from a
# blind draw the seat then had to tuck (2p seed 42) or discard (2p seed 120), so the binding moves
# it to an earlier draw; a cave's "play a dragon" that the stand-ins did not give the seat, entered
# where the table asks the next seat's move (5p seed 43) or the viewer's own (2p seed 76)
@pytest.mark.parametrize("players,seed,viewer", [(2, 42, 0), (2, 120, 0), (5, 43, 3), (2, 76, 0)])
def test_a_card_the_stand_ins_did_not_give_is_followed(players: int, seed: int, viewer: int) -> None:
    assert follow(players, seed, viewer, "greedy") is None


# a card chosen face down whose outcome no card of this binding's hand gives (2p seed 93; 3p seed
# 29, where the hand's unseen card came from a known one), and entries that name a card a stand-in
# put elsewhere, followed by swapping it in (3p seed 34) or by binding a face-down choice anew so
# that what followed it still replays (4p seed 46)
@pytest.mark.parametrize("players,seed,viewer", [(2, 93, 1), (3, 29, 2), (3, 34, 1), (4, 46, 2)])
def test_a_card_another_binding_gives_is_followed(players: int, seed: int, viewer: int) -> None:
    assert follow(players, seed, viewer, "greedy") is None


# the same, longer: a face-down card's choice of resource (3p seed 102), a refill of a card tucked
# face down in this binding (5p seed 86), a card played at a decision the stand-ins skipped, entered
# at another seat's question (5p seed 2), a hand made unknown by a known card tucked (5p seed 107)
@pytest.mark.slow
@pytest.mark.parametrize("players,seed,viewer", [(3, 102, 0), (5, 86, 1), (5, 2, 2), (5, 107, 2)])
def test_a_card_another_binding_gives_is_followed_in_long_games(players: int, seed: int, viewer: int) -> None:
    assert follow(players, seed, viewer, "greedy") is None


# a step of another seat's turn that the stand-ins did not give them, entered where the table asks
# next: the card a guild ability has them play, at the display's refill (greedy 3p seed 49 viewer
# P1), and their "no" to a cave's "play a dragon" at the viewer's move (random 3p seed 39 viewer P0);
# the viewer's own move where another seat has an optional decision only the stand-ins gave them,
# which is declined (random 5p seed 79 viewer P4)
@pytest.mark.parametrize("players,seed,viewer,policy,until", [
    (3, 49, 1, "greedy", 196), (3, 39, 0, "random", 178), (5, 79, 4, "random", 102)])
def test_a_step_the_stand_ins_did_not_give_is_entered_where_the_table_asks_next(
        players: int, seed: int, viewer: int, policy: str, until: int) -> None:
    assert follow(players, seed, viewer, policy, until=until) is None


# 'gold' typed for another seat's resource where the binding asks which dragon they gain: read
# tolerantly it was the display's Splitting Golden Hydra; read exactly it is the resource, which
# another binding of the cards they tucked face down gives them (greedy 4p seed 127 viewer P3)
def test_an_exact_answer_of_another_binding_wins_over_a_tolerant_reading() -> None:
    lines: list[str] = []
    assert follow(4, 127, 3, "greedy", lines, until=252, unseen={245}) is None
    assert lines[-5:-3] == ["?", "gold"]


# a card tucked face down answered '?' (what followed it unpicked), then the resource it
# gave, which the binding made a step with one answer (meat) and the real game a choice (gold): the
# step the table took itself is taken back and the stand-ins bound anew (greedy 2p seed 80 viewer P0)
def test_a_step_the_table_took_itself_gives_way_to_the_entry() -> None:
    lines: list[str] = []
    assert follow(2, 80, 0, "greedy", lines, until=132, unseen={127}) is None
    i = lines.index("excavate cave 16 into golden")
    assert lines[i - 2:i] == ["?", "gold"]


# the items of a fourth slot's exchange are picked in the cards' order, so whether a card the viewer
# knows another seat holds is offered first follows their unseen cards: it is an answer, and the
# stand-ins are bound anew to offer it (random 3p seed 53 viewer P2)
def test_an_exchange_of_a_card_known_in_their_hand_is_followed() -> None:
    assert follow(3, 53, 2, "random", until=230) is None


# a decision the real game gave another seat with one answer, which the binding gives them as a
# choice (the resource of the card they tucked unseen): asked, it is answered with what they got
def test_a_decision_forced_at_the_table_but_a_choice_in_the_binding_is_answered() -> None:
    lines: list[str] = []
    assert follow(4, 80, 0, "greedy", lines, until=92, unseen={86}) is None
    i = lines.index("entice Blue Forest Spirit into amethyst")
    assert lines[i - 2:i] == ["?", "crystal"]     # the card tucked face down, then what it gave


# greedy games the tracker follows (bench/track_scan.py --policy greedy --seeds 0-139: all 695):
# seeds 0-4, the viewer rotating
FOLLOWED = [(p, s) for p in range(1, 6) for s in range(5)]


@pytest.mark.slow
@pytest.mark.parametrize("players,seed", FOLLOWED)
def test_real_greedy_games_are_followed_as_typed(players: int, seed: int) -> None:
    viewer = seed % players if players > 1 else 0
    assert follow(players, seed, viewer, "greedy") is None


def _script(players: int, seed: int, viewer: int) -> list[str]:
    lines: list[str] = []
    assert follow(players, seed, viewer, "random", lines) is None
    return lines


def _track(args: list[str], lines: list[str]) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["track", *args], input="".join(x + "\n" for x in lines))
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def test_a_whole_solo_game_typed_into_the_command(tmp_path: Path) -> None:
    lines = _script(1, 0, 0)
    save = tmp_path / "solo.json"
    code, out = _track(["--solo-level", "2", "--seed", "0", "--save", str(save)], lines)
    assert code == 0 and "The game is over: P0 " in out
    assert "the objective tiles of rounds 1-4, with their sides> " in out      # what each prompt is for
    assert "round 1 display, left to right: 3 dragon cards and 3 cave cards> " in out
    assert TrackSession.load(str(save)).table.game.is_terminal()


def test_a_script_stops_at_its_first_bad_line_and_keeps_what_came_before(tmp_path: Path) -> None:
    lines = _script(2, 1, 1)
    save = tmp_path / "g.json"
    args = ["--players", "2", "--viewer", "P1", "--seed", "1", "--save", str(save)]
    code, out = _track(args, lines[:5] + ["entice Nobody into crimson"] + lines[5:])
    assert code == 2
    assert "error: line 6: " in out
    assert out.replace("\n    ", " ").rstrip().endswith(f"Resume with: advisor track --load {save}")
    kept = TrackSession.load(str(save))
    assert len(kept.table.entered) == 5
    # resumed, the rest of the script ends the game
    code, out = _track(["--load", str(save)], lines[5:])
    assert code == 0 and "(loaded" in out and "The game is over" in out


def test_a_new_game_never_overwrites_another_games_save(tmp_path: Path) -> None:
    save = tmp_path / "track.json"
    args = ["--players", "2", "--save", str(save)]
    assert _track(args, ["Plains"])[0] == 0
    before = save.read_text()
    code, out = _track(args, [])
    assert code == 2 and "holds another tracked game" in out and save.read_text() == before
    other = tmp_path / "notes.txt"
    other.write_text("my notes")
    code, out = _track(["--players", "2", "--save", str(other)], [])
    assert code == 2 and "not a save of `advisor track`" in out and other.read_text() == "my notes"
    # --load a --save b: b is another game's: refused too
    code, out = _track(["--load", str(save), "--save", str(save)], ["quit"])
    assert code == 0


def _dialogue(table: Table, interactive: bool = True) -> tuple[Dialogue, io.StringIO]:
    out = io.StringIO()
    return Dialogue(TrackSession(table), Console(io.StringIO(), out, interactive=interactive)), out


def _to_display(table: Table) -> None:
    """Answer the deal up to the round's display."""
    while "display" not in table.question().about:
        table.answer(table.game.legal_actions()[0])


def test_a_card_question_reads_cards_of_its_kind_and_numbers_as_their_card() -> None:
    t = Table(2, 0, seed=5)
    _to_display(t)
    q = t.question()
    with pytest.raises(EntryError, match="dragon slot 1: 'cave 9' is not one of the answers"):
        read_entry(t, q, "cave 9, cave 10, cave 11, cave 12, cave 13, cave 14")
    with pytest.raises(EntryError, match="give 6 answers"):
        read_entry(t, q, "cave 9")
    got = read_entry(t, q, "1, 2, 3, 72, 33, 48")
    from advisor.cards import load_database
    db = load_database("base")
    assert [t.text(a) for a in got] == [db.dragon(1).name, db.dragon(2).name, db.dragon(3).name,
                                        "cave 72", "cave 33", "cave 48"]
    assert read_entry(t, q, "?, ?, ?, ?, ?, ?") == [UNSEEN] * 6
    t.answer(read_entry(t, q, "?, Patient Redwyrm, ?, 72, ?, ?"))
    obs = t.game.observation(0)
    assert obs["display_dragons"][1] == db.lookup("Patient Redwyrm", "dragon").number
    assert obs["display_caves"][0] == 72 and all(obs["display_dragons"]) and all(obs["display_caves"])
    assert len(t.entered) == 6          # the guild tile, 4 objectives one by one, then the display: one entry


@pytest.mark.parametrize("text, error", [("x" * 10_000, "an entry of 10,000 characters"),
                                         ("²", "is not one of the answers"),
                                         ("9" * 5000, "an entry of 5,000 characters"),
                                         ("99999", r"is not a number from 1 to 4 \(the answers' numbers in `moves`\)")])
def test_bad_lines_are_one_line_and_fast(text: str, error: str) -> None:
    t = Table(2, 0, seed=5)
    q = t.question()
    with pytest.raises(EntryError, match=error):
        read_entry(t, q, text)


def test_a_bad_answer_at_a_terminal_is_asked_again() -> None:
    t = Table(2, 0, seed=5)
    out = io.StringIO()
    d = Dialogue(TrackSession(t), Console(io.StringIO("Nowhere Guild\nPlains\nquit\n"), out, interactive=True))
    assert d.run() == 0
    assert "error: 'Nowhere Guild' is not one of the answers" in out.getvalue()
    assert t.game.observation(0)["guild_tile"] == 0 and len(t.entered) == 1


def test_another_seats_unseen_card_is_entered_by_name() -> None:
    """Ben entices a dragon the stand-ins did not give him: named, it is his."""
    lines = _script(2, 1, 1)
    t = Table(2, 1, seed=1)
    for line in lines:
        q = t.question()
        if q.seat == 0 and q.unseen and line.startswith("entice"):
            a = read_entry(t, q, line)
            t.answer(a)
            return
        t.answer(read_entry(t, q, line))
    pytest.fail("no entice of an unseen card in the game")


def test_suggest_ranks_any_decision_of_the_viewers_and_only_theirs() -> None:
    t = Table.from_position(EXAMPLE.read_text())
    d, out = _dialogue(t)
    d.cmd_suggest("--iterations 200 --top 2 --json")
    ranking = json.loads(out.getvalue())
    assert ranking["moves"][0]["move"] and ranking["file"] is None
    t.answer(next(a for a in t.game.legal_actions() if t.text(a).startswith("explore")))
    if t.question().seat == t.viewer:                   # a decision inside the move
        d.cmd_suggest("--iterations 100 --top 1")
    while t.question().seat == t.viewer:
        t.answer(t.game.legal_actions()[0])
    if t.question().seat is not None:
        with pytest.raises(TableError, match="suggest ranks your decisions"):
            d.cmd_suggest("")


def test_the_prompt_names_the_card_or_rule_that_asks() -> None:
    t = Table.from_position(EXAMPLE.read_text())
    d, out = _dialogue(t)
    name = t.names[t.viewer]
    assert d.prompt(t.question()) == f"{name} (move)> "
    t.answer(next(a for a in t.game.legal_actions() if t.text(a).startswith("explore golden")))
    q = t.question()
    assert q is not None and q.seat == t.viewer
    assert t.game.asked_by == ("mat", 1, 0)
    assert d.prompt(q) == f"{name} ({t.game.decision} for Golden Grotto's first benefit)> "
    assert q.about == f"you: {t.game.decision} for Golden Grotto's first benefit"
    d.cmd_moves("")
    assert out.getvalue().startswith(f"{name} ({t.game.decision} for Golden Grotto's first benefit):")


def test_export_only_at_the_start_of_the_viewers_turn(tmp_path: Path) -> None:
    t = Table(2, 0, seed=5)
    d, _ = _dialogue(t)
    with pytest.raises(TableError, match="start of your turn"):
        d.cmd_export(str(tmp_path / "x.toml"))
    t = Table.from_position(EXAMPLE.read_text())
    d, _ = _dialogue(t)
    d.cmd_export(str(tmp_path / "x.toml"))
    assert "viewer" in (tmp_path / "x.toml").read_text()


def test_a_position_starts_a_tracked_game_that_saves_and_loads(tmp_path: Path) -> None:
    save = tmp_path / "p.json"
    code, out = _track(["--position", str(EXAMPLE), "--save", str(save)], ["moves", "explore golden", "quit"])
    assert code == 0 and "Bob (move)> explore golden" in out
    s = TrackSession.load(str(save))
    assert s.table.position is not None and len(s.table.entered) == 1
    with pytest.raises(SaveError, match="early-2p.toml: line 1, column 1: not valid JSON"):
        TrackSession.load(str(EXAMPLE))


def test_a_game_the_web_page_followed_goes_on_in_the_terminal(tmp_path: Path) -> None:
    """`advisor serve` saves the same table: `track --load` reads it and saves its own file (the
    web page's save stays the page's)."""
    lines = _script(2, 1, 1)
    t = Table(2, 1, seed=1)
    for line in lines[:8]:
        t.answer(read_entry(t, t.question(), line))
    page = tmp_path / "g1.json"
    page.write_text(json.dumps({"saved_by": "advisor serve", "format": 1, "names": ["P0", "P1"], "table": t.to_dict()}))
    before = page.read_text()
    code, out = _track(["--load", str(page), "--save", str(tmp_path / "t.json")], lines[8:])
    assert code == 0 and "The game is over" in out and page.read_text() == before
    assert TrackSession.load(str(tmp_path / "t.json")).table.game.is_terminal()
