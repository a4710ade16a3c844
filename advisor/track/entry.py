"""An entry typed at the tracker's prompt, read into the answer the table takes (advisor/table.py):
a decision by its notation or its number in `moves`, another seat's card by name (any card the
viewer cannot place), the cards chance brings by name or number, several in one line where the
question asks for several (`Mosaic Guardian, Patient Redwyrm, Redwood Lung Dragon, 33, 48, 7`), and
`?` for what the table did not show."""
from __future__ import annotations

import re

from advisor._core import named_card
from advisor.errors import AdvisorError, clip
from advisor.notation import ActionParseError, _norm, parse_action
from advisor.table import SIMPLE_ANSWERS, UNSEEN, Question, Table

LONGEST = 400       # characters in one entry: the longest answer (six card names) is far shorter


class EntryError(AdvisorError):
    """A line that is no answer to the question asked."""


def read_entry(table: Table, q: Question, text: str) -> int | list[int]:
    """The answer `text` gives to `q` (a list for a question of several outcomes)."""
    t = text.strip()
    if len(t) > LONGEST:
        raise EntryError(f"an entry of {len(t):,} characters: an answer is at most {LONGEST}")
    if q.count > 1:
        items = [x.strip() for x in re.split(r"[,;]", t)]
        if len(items) == 1 and len(t.split()) == q.count:      # `6a 5b 10a 3a`, `33 48 7`
            items = t.split()
        if len(items) != q.count or not all(items):
            raise EntryError(f"give {q.count} answers, separated by commas: {', '.join(q.parts)}")
        out: list[int] = []
        for part, (event, _), item in zip(q.parts, q.points, items, strict=True):
            try:
                out.append(_one(table, q, item, event, out))
            except EntryError as e:
                raise EntryError(f"{part}: {e}") from None
        return out
    try:
        a = _one(table, q, t, q.points[0][0] if q.points else None, [])
    except EntryError as e:
        if q.seat is None or q.seat == table.viewer:
            return _step_of_last_turn(table, q, t, e)
        # what another seat, or the viewer, did after another seat declined an optional decision
        # the table did not have (one the stand-ins gave them): the table declines it for them
        # (Table.answer)
        for later in table.declined():
            q2 = later.question()
            if q2 is None or q2.seat is None:
                break
            try:
                a = _one(later, q2, t, None, [])
                if a != UNSEEN:
                    return a
            except EntryError:
                pass
            if q2.seat == table.viewer:
                break
        # an answer only another binding of the stand-ins gives them (Table.answer binds anew)
        other = _exactly(table, t, table.could_follow())
        if other is None:
            raise
        return other
    if q.seat not in (None, table.viewer) and not q.hidden and _exactly(table, t, [a]) is None:
        # read tolerantly among this binding's answers ('gold' in a dragon's name), but exactly an
        # answer naming no card that another binding gives them (the resource 'gold'): that one
        other = _exactly(table, t, SIMPLE_ANSWERS)
        if other is not None:
            return other
    return a


def _exactly(table: Table, text: str, answers: list[int]) -> int | None:
    """The answer among `answers` that `text` reads as exactly (its words, or its name before a
    description), not tolerantly; None if none."""
    words = {a: table.text(a) for a in answers}
    try:
        a = parse_action(table.game, text, answers, words)
    except ActionParseError:
        return None
    return a if _norm(text) in (_norm(words[a]), _norm(words[a].split(":")[0])) else None


def _one(table: Table, q: Question, text: str, event: str | None, taken: list[int]) -> int:
    if text == "?":
        if q.seat is None or q.hidden:
            return UNSEEN
        raise EntryError("'?' answers only what the table does not show (a card drawn unseen, tucked face down)")
    g = table.game
    options = [a for a, _ in q.options]
    words = dict(q.options)
    if event is not None:       # a card of the part's kind; a bare number is the card's number
        want = event.split()[-1]
        if want in ("dragon", "cave"):
            options = [a for a in options if (named_card(a) or ('', 0))[0] == want and a not in taken]
            if re.fullmatch(r"\d{1,4}", text):
                text = f"cave {int(text)}" if want == "cave" else _dragon_name(g.printing, int(text))
    elif q.unseen and not q.hidden and not re.fullmatch(r"\d+", text):
        # any card of theirs the viewer cannot place: an exact reading among them all wins, a
        # tolerant one that is more than one of them is tried among the legal answers alone
        widened = table.could_be()
        words = {a: words.get(a) or table.text(a) for a in widened}
        try:
            return parse_action(g, text, widened, words)
        except ActionParseError as e:
            if not e.ambiguous:
                raise EntryError(_said(e)) from None
            try:
                return parse_action(g, text, options, words)
            except ActionParseError:
                raise EntryError(_said(e)) from None
    try:
        return parse_action(g, text, options, words)
    except ActionParseError as e:
        raise EntryError(_said(e)) from None


def _step_of_last_turn(table: Table, q: Question, text: str, e: EntryError) -> int:
    """At the viewer's move or a chance point, a step another seat took as their turn went on (a
    decision their stand-ins did not give them: the card it picked, their "no" to it), read exactly
    among `Table.could_have_followed`; else `e`."""
    if q.seat is not None and table.game.decision != "move":
        raise e
    a = _exactly(table, text, table.could_have_followed())
    if a is None:
        raise e
    return a


def _said(e: ActionParseError) -> str:
    """The parser's message in the tracker's words (answers, not legal actions)."""
    return (str(e).replace("is not a legal action now", "is not one of the answers").replace("legal actions", "answers")
            .replace(" or a legal action id", " (the answers' numbers in `moves`)"))


def _dragon_name(printing: str, number: int) -> str:
    from advisor.cards import load_database
    dragons = load_database(printing).dragons
    if not 1 <= number <= len(dragons):
        raise EntryError(f"dragon {clip(str(number), 8)}: the dragons are numbered 1 to {len(dragons)}")
    return dragons[number - 1].name
