"""A broken data file is rejected with a message naming the file, the card and the field."""
import re
import shutil

import pytest

from advisor.cards.database import DATA_DIR, load_database
from advisor.errors import CardDataError


@pytest.fixture
def data(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


def edit(path, old, new, count=1):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, count))


@pytest.mark.parametrize("file,old,new,message", [
    ("dragons.toml", 'size = "medium"', 'size = "huge"', "dragon 38 (Swift Lung Dragon): field 'size' is 'huge'"),
    ("dragons.toml", "vp = 4\n", "vp = -1\n", "dragon 1 (White-Bellied Grazer): field 'vp' is -1"),
    ("dragons.toml", 'caves = ["golden"]', 'caves = ["volcano"]', "dragon 1 (White-Bellied Grazer): field 'caves'"),
    ("dragons.toml", 'if_activated = "pay(dragon_card) { gain(any) }"',
     'if_activated = "pay(dragon_card) { gain(anything) }"',
     "dragon 36 (Sentinel Flyer): field 'if_activated': gain: 'anything' cannot be used here"),
    ("dragons.toml", 'name = "Genial Mothdragon"', 'name = "White-Bellied Grazer"',
     "dragon 2 (White-Bellied Grazer): name also used by dragon 1"),
    ("dragons.toml", "cost = { milk = 1, egg = 1 }", "cost = { milk = 1, egg = 1, rubies = 2 }",
     "dragon 1 (White-Bellied Grazer) cost: unknown field(s) rubies"),
    ("dragons.toml", 'feeds = "milk"', 'feeds = "wine"', "dragon 1 (White-Bellied Grazer): hatchlings need field 'feeds'"),
    ("dragons.toml", "number = 40\n", "number = 41\n", "dragon 41 (Aged Sea Serpent): dragons must be listed in number order"),
    ("caves.toml", 'when_played = "gain(coin)"', 'when_played = "gain(coin"', "caves.toml: cave 12: field 'when_played': expected ')'"),
    ("mat.toml", "coins = [1, 1, 1]", "coins = [1, 1]", "mat.toml: explore: 'coins' needs 3 values"),
    ("guild.toml", '"gain(meat)",  # 2', '"gain(beef)",  # 2', "guild.toml: track space 2: field 'spaces'"),
    ("objectives.toml", 'count = "count(cached)"', 'count = "count(cache)"', "objectives.toml: objective 4a: field 'count'"),
    ("automa.toml", "objective = 0", "objective = 5", "automa.toml: automa card 1: field 'objective' is 5"),
])
def test_broken_file_names_card_and_field(data, file, old, new, message):
    edit(data / file, old, new)
    with pytest.raises(CardDataError, match=re.escape(message)):
        load_database("base", str(data))


def test_missing_file(data):
    (data / "caves.toml").unlink()
    with pytest.raises(CardDataError, match="caves.toml: file not found"):
        load_database("base", str(data))


def test_not_toml(data):
    (data / "dragons.toml").write_text("[[dragon]\nnumber = ")
    with pytest.raises(CardDataError, match="dragons.toml: not valid TOML"):
        load_database("base", str(data))


def test_unknown_printing():
    with pytest.raises(CardDataError, match="unknown printing"):
        load_database("1999")


# ---------------------------------------------------------------------------- fuzz
import json  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FIELDS = ["number", "name", "vp", "size", "capacity", "personality", "caves", "cost",
          "if_activated", "feeds", "when_played", "bogus"]
SCALARS = st.one_of(st.integers(-5, 300), st.booleans(),
                    st.text(max_size=30).map(json.dumps),
                    st.lists(st.sampled_from(["crimson", "golden", "lava", "1"]), max_size=4).map(json.dumps),
                    st.sampled_from(['{ meat = 1 }', '{ egg = "x" }', '{ milk = 9 }', '[]',
                                     '"gain(coin"', '"vp(3)"', '"pay(egg) { guild(2) }"']))


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(FIELDS), value=SCALARS)
def test_any_single_field_edit_is_accepted_or_named(data, field, value):
    path = data / "dragons.toml"
    original = path.read_text()
    lines = original.split("\n")
    start = lines.index("number = 36")
    end = lines.index("[[dragon]]", start)
    block = [line for line in lines[start:end] if not line.startswith(field + " =")]
    block.insert(1, f"{field} = {value}")
    path.write_text("\n".join(lines[:start] + block + lines[end:]))
    try:
        load_database.__wrapped__("base", str(data))
    except CardDataError as e:
        assert str(e).startswith("dragons.toml: ")
    finally:
        path.write_text(original)
