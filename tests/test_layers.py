"""The layers: data -> compiled tables -> engine -> search -> Python API -> CLI. A lower layer
never refers to a higher one, in the core (ext/engine/ never names what ext/search/ defines) and
in the package (the engine's Python side never imports the search, tournaments, play or CLI)."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXT = ROOT / "ext"
PACKAGE = ROOT / "advisor"

# what a .pxi file defines at its top level: functions, classes, types, enums, globals, constants
_DEFINES = [re.compile(p, re.M) for p in (
    r"^(?:cdef|cpdef|def)\s+(?:inline\s+)?(?:[\w\*]+\s+)*?(\w+)\(",    # functions
    r"^(?:cdef\s+class|ctypedef\s+struct|cdef\s+enum|cdef\s+struct)\s+(\w+)",
    r"^ctypedef\s+[^(\n]*\(\*(\w+)\)",                                 # function pointer types
    r"^cdef\s+(?:const\s+)?[\w\*]+\s+\**(\w+)\s*(?:=|\[|$)",           # globals
    r"^    ([A-Z][A-Z0-9_]+)(?:\s*=|\s*$|\s*#)",                           # enum members
    r"^([A-Z][A-Z0-9_]+)\s*=",                                              # module constants
)]


def _defined(path: Path) -> set[str]:
    text = path.read_text()
    return {n for pattern in _DEFINES for n in pattern.findall(text) if len(n) > 2}


def _code(path: Path) -> str:
    """The file without comments and strings (which may name the search freely)."""
    text = re.sub(r'"""(.*?)"""', "", path.read_text(), flags=re.S)
    text = re.sub(r"#[^\n]*", "", text)
    return re.sub(r'"[^"\n]*"', "", text)


def test_the_engine_never_refers_to_the_search():
    search = set().union(*(_defined(p) for p in (EXT / "search").glob("*.pxi")))
    engine = set().union(*(_defined(p) for p in (EXT / "engine").glob("*.pxi")))
    search -= engine            # a name both define (a local helper's) is not the search's
    assert {"run_search", "playout", "SearchParams", "PLAYOUT_GREEDY_MAST", "heuristic_value", "judge_features",
            "lookahead_pick"} <= search
    found = []
    for path in sorted((EXT / "engine").glob("*.pxi")):
        words = set(re.findall(r"\b\w+\b", _code(path)))
        found += [f"{path.name}: {name}" for name in sorted(words & search)]
    assert not found


def test_the_core_includes_the_engine_before_the_search():
    includes = re.findall(r'^include "([\w/]+)\.pxi"', (EXT / "_core.pyx").read_text(), re.M)
    layers = [name.split("/")[0] if "/" in name else name for name in includes]
    assert layers == sorted(layers, key=["engine", "search", "process"].index)
    on_disk = {f"{p.parent.name}/{p.stem}" for d in ("engine", "search") for p in (EXT / d).glob("*.pxi")}
    assert on_disk == {i for i in includes if "/" in i}       # no file left out of the build


LOWER = ("advisor.cards", "advisor.positions", "advisor.notation", "advisor.errors")
HIGHER = ("advisor.search", "advisor.tournaments", "advisor.play", "advisor.cli")


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_engines_python_side_never_imports_higher_layers():
    found = []
    for low in LOWER:
        base = PACKAGE.joinpath(*low.split(".")[1:])
        for path in sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]:
            found += [f"{path.relative_to(ROOT)}: {m}" for m in sorted(_imports(path))
                      if m.startswith(HIGHER)]
    assert not found


def test_the_search_never_imports_tournaments_play_or_the_cli():
    found = []
    for path in sorted((PACKAGE / "search").rglob("*.py")):
        found += [f"{path.relative_to(ROOT)}: {m}" for m in sorted(_imports(path))
                  if m.startswith(("advisor.tournaments", "advisor.play", "advisor.cli"))]
    assert not found


def test_no_module_is_over_800_lines():
    long = [f"{p.relative_to(ROOT)}: {n}" for p in sorted(PACKAGE.rglob("*.py"))
            if (n := len(p.read_text().splitlines())) > 800]
    assert not long
