"""The layers: data -> compiled tables -> engine -> search -> Python API -> apps -> CLI. A lower
layer never refers to a higher one, in the core (ext/engine/ never names what ext/search/ defines;
the core imports nothing of the package above advisor.errors and advisor.variants) and in the
package (the engine's Python side never imports the search, tournaments, play or CLI; no app
drives the CLI; one function ranks a position's moves). docs/architecture.md says the same."""
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
            "distilled_pick",
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


LOWER = ("advisor.cards", "advisor.positions", "advisor.notation", "advisor.errors", "advisor.table",
         "advisor.wording")
HIGHER = ("advisor.search", "advisor.tournaments", "advisor.play", "advisor.serve", "advisor.cli")


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


# ---------------------------------------------------------------------------- issue 63: the layers as claimed
GROUND_FLOOR = ("advisor.errors", "advisor.variants")


def _core_imports() -> list[str]:
    """The modules ext/ imports at run time (cimports are C, not the package)."""
    found = []
    for path in sorted([EXT / "_core.pyx", *EXT.rglob("*.pxi")]):
        for line in _code(path).splitlines():
            m = re.match(r"\s*(?:from\s+([\w.]+)\s+import\s+(\w+)|import\s+([\w.]+))", line)
            if not m or "cimport" in line:
                continue
            module = m.group(3) or m.group(1)
            if module == "advisor":                 # from advisor import variants: the module advisor.variants
                module = f"advisor.{m.group(2)}"
            found.append(f"{path.relative_to(ROOT)}: {module}")
    return found


def test_the_core_imports_nothing_above_the_ground_floor():
    imports = _core_imports()
    assert any(i.endswith("advisor.errors") for i in imports)     # the scan sees the imports there are
    above = [i for i in imports if i.split(": ")[1].startswith("advisor") and i.split(": ")[1] not in GROUND_FLOOR]
    assert not above


def test_the_package_gives_the_core_its_installers():
    """`import advisor` gives the core the functions that install the card tables and the search's
    numbers; the core calls them on first use (a game of either printing, a search's weights)."""
    assert "set_installers" in _calls(PACKAGE / "__init__.py")
    from advisor import _core
    for printing in ("base", "2025"):
        assert _core.Game.new(2, seed=1, printing=printing).printing == printing
        assert _core.installed(printing)
    assert len(_core.heuristic_weights()) == len(_core.HEURISTIC_FEATURES)


APPS = ("play", "track", "review", "serve", "tournaments", "search", "positions", "cards")


def test_no_app_drives_the_cli():
    found = []
    for app in APPS:
        for path in sorted((PACKAGE / app).rglob("*.py")):
            found += [f"{path.relative_to(ROOT)}: {m}" for m in sorted(_imports(path)) if m.startswith("advisor.cli")]
    assert not found


def _calls(path: Path) -> set[str]:
    return {n.func.id if isinstance(n.func, ast.Name) else n.func.attr
            for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Call)
            and isinstance(n.func, (ast.Name, ast.Attribute))}


def test_one_function_ranks_a_positions_moves():
    """`suggest`, the tracker's suggest, play's hint and the web's "what now?" call
    advisor.search.suggest.suggest, none runs the search its own way."""
    for path in (PACKAGE / "cli" / "game.py", PACKAGE / "track" / "dialogue.py", PACKAGE / "play" / "commands.py",
                 PACKAGE / "serve" / "searches.py"):
        assert "advisor.search.suggest" in _imports(path), path
        calls = _calls(path)
        assert "suggest" in calls and "analyse" not in calls and "main" not in calls, path


def test_play_version_lives_with_the_search():
    from advisor.search import params
    assert isinstance(params.PLAY_VERSION, int)
    assert "PLAY_VERSION =" not in (PACKAGE / "tournaments" / "plan.py").read_text()


def test_an_analysis_carries_the_settings_it_ran_with():
    """Resolved once, in analyse: the advice reads them from the Analysis."""
    import dataclasses

    from advisor.search.analysis import Analysis
    assert "settings" in {f.name for f in dataclasses.fields(Analysis)}
    for name in ("advice.py", "suggest.py"):
        assert "parse_settings" not in _calls(PACKAGE / "search" / name), name


def test_the_stub_types_the_cores_dicts():
    """search(), Game.to_dict() and Game.observation() return typed dicts in advisor/_core.pyi."""
    tree = ast.parse((PACKAGE / "_core.pyi").read_text())
    returns = {}
    typed: set[str] = set()
    for n in [n for n in tree.body if isinstance(n, ast.ClassDef)]:      # typed dicts and those built on them
        if any(isinstance(b, ast.Name) and b.id in typed | {"TypedDict"} for b in n.bases):
            typed.add(n.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in ("search", "to_dict", "observation") and node.returns:
            returns[node.name] = ast.unparse(node.returns)
    assert set(returns) == {"search", "to_dict", "observation"}
    assert all(r in typed for r in returns.values()), returns


def test_the_web_app_is_an_app_the_cli_starts():
    """advisor/serve/ is an app: it imports no CLI and no other app but `advisor play`'s game model
    (its session and setup, not its terminal) and `advisor review`'s judge (not its files); only
    advisor/cli/serve.py starts it, and the web framework stays out of every other layer."""
    found = []
    for path in sorted((PACKAGE / "serve").rglob("*.py")):
        found += [f"{path.relative_to(ROOT)}: {m}" for m in sorted(_imports(path))
                  if m.startswith(("advisor.cli", "advisor.play", "advisor.track", "advisor.review", "advisor.tournaments"))
                  and m not in ("advisor.play.session", "advisor.play.setup", "advisor.review.judge",
                                "advisor.review.report", "advisor.review.source")]
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name != "serve" and path.name != "serve.py":
            found += [f"{path.relative_to(ROOT)}: {m}" for m in sorted(_imports(path))
                      if m.startswith(("starlette", "uvicorn"))]
    assert not found
