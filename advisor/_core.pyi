"""Typed stub of the compiled core (ext/_core.pyx). Checked against the module by
tests/test_core_stub.py (mypy's stubtest)."""
from typing import Any, Callable, Iterable, NotRequired, Sequence, TypedDict

import numpy as np
from typing_extensions import disjoint_base

from advisor.errors import GameStateError

# --- the state as plain data (Game.to_dict, Game.from_dict, Game.observation)
Grid = list[list[int]]                  # cave (3) by column (4)

class PlayerState(TypedDict):
    dragons: Grid                       # dragon card ids, 0 = empty
    caves: Grid                         # cave card ids in columns 1-3
    eggs: Grid
    cached: list[list[list[int]]]       # cave, column, resource (meat gold crystal milk)
    tucked: Grid
    grown: Grid
    nest_eggs: int
    coins: int
    resources: list[int]
    explores: list[int]
    guild_steps: int
    markers_left: int
    passed: int
    objective_vp: list[int]
    objective_count: list[int]
    fixed_vp: int
    tile_markers: list[int]
    hand_dragons: list[int]
    hand_caves: list[int]
    n_hand_dragons: int
    n_hand_caves: int
    known_dragons: list[int]            # cards in the hand every player has seen arrive
    known_caves: list[int]
    seen_dragons: NotRequired[list[int]]    # face-down cards this player saw go out (not in observations)
    end_vp: int
    tile_vp: int

class AutomaState(TypedDict):
    level: str
    deck: list[int]                     # observation: the cards revealed this round only
    next: int
    playable: int
    dragons: int
    caves: int
    markers: int
    fixed_vp: int
    last_brown: int
    objective_coins: list[int]

class TableState(TypedDict):
    """What every player sees of a state (the base of CoreState and Observation)."""
    players: list[PlayerState]
    round: int                          # 0-3
    phase: str                          # one of PHASES
    phase_player: int
    phase_count: int
    active: int
    start_player: int
    printing: int
    guild_tile: int
    objective_tiles: list[int]
    objective_sides: list[int]
    guild_spots: list[list[int]]        # per tile ability: seat + 1 per spot, 0 = free
    fixed_count: int
    display_dragons: list[int]
    display_caves: list[int]
    discard_dragons: list[int]
    discard_caves: list[int]
    reshuffles: int
    n_scored: int
    turns: int
    public_caves: list[int]
    automa: AutomaState | None

class CoreState(TableState):
    """One state (to_dict's "core" and "segment_start"): everything, hidden cards included."""
    deck_dragons: list[int]             # drawn from the end
    deck_caves: list[int]
    public_dragons: list[int]
    rng: int

class GameState(TypedDict):
    """Game.to_dict: the state where play stopped, the segment's start and the decisions since."""
    core: CoreState
    printing: str
    segment_start: CoreState
    log: list[int]

class Observation(TableState):
    """Game.observation: what one player sees (other hands: their sizes and the cards known there)."""
    n_deck_dragons: int
    n_deck_caves: int
    decider: int
    decision: str | None
    legal_actions: list[int]

# --- the search's root statistics (search())
class ChildStats(TypedDict):
    action: int
    visits: int
    avail: int
    reward: float
    win_sum: float
    score_sum: float
    score_sq: float
    margin_sum: float
    margin_sq: float
    continuation: list[int]             # the searcher's most visited decisions after the move, to her turn's end
    expected: list[tuple[int, int]]     # (player, tree key) on that path after it
    outcomes: int                       # this call's iterations through the move
    seat_score_sums: list[float]
    part_sums: dict[str, float]

class SearchResult(TypedDict):
    player: int
    iterations: int
    nodes: int
    seconds: float
    errors: int
    reused: int
    children: list[ChildStats]
    node_bytes: int
    interrupted: bool

PRINTINGS: tuple[str, ...]              # the printings' names, by Core.printing (0 base, 1 2025)

def install_tables(program: np.ndarray, dragons: np.ndarray, caves: np.ndarray,
                   mat_benefits: np.ndarray, guild_track: np.ndarray, guild_tiles: np.ndarray,
                   objectives: np.ndarray, rules: np.ndarray, automa_cards: np.ndarray,
                   automa_levels: np.ndarray, automa_objectives: np.ndarray, printing: str) -> None: ...
def set_installers(tables: Callable[[str], object], search_data: Callable[[], object],
                   judge: Callable[[], object] | None = None,
                   distilled: Callable[[], object] | None = None) -> None: ...
def installed(printing: str | None = None) -> bool: ...
def use_tables(printing: str) -> None: ...   # the table queries below read this printing's set
def n_instructions() -> int: ...
def instruction(i: int) -> tuple[int, ...]: ...
def dragon_row(number: int) -> tuple[int, ...]: ...
def cave_entry(number: int) -> int: ...
def mat_benefit_entry(cave: int, icon: int) -> int: ...
def guild_track_entry(space: int) -> int: ...
def guild_tile_entry(tile: int, ability: int) -> tuple[int, int, int]: ...
def objective_entry(tile: int, side: int) -> int: ...
def reachable(entry: int) -> int: ...

PROMPTS: tuple[str, ...]
PHASES: tuple[str, ...]
SCORE_CATEGORIES: tuple[str, ...]
# Game.asked_by: ("dragon", card, timing), ("cave", card), ("mat", cave, benefit), ("guild track",
# space), ("guild tile", ability), ("exchange",), ("cost", dragon)
AskedBy = tuple[str, int, str] | tuple[str, int, int] | tuple[str, int] | tuple[str]
ASK_KINDS: tuple[str | None, ...]
ASK_TIMINGS: tuple[str, ...]
LEFT_NEIGHBOUR_DRAGONS: tuple[int, ...]
AUTOMA_LEVEL_NAMES: tuple[str, ...]
# chance (ext/engine/chance.pxi)
CHANCE_MODES: tuple[str, ...]           # "sampled", "told"
CHANCE: int                             # Game.decider at a chance point
CHANCE_EVENTS: tuple[str, ...]
STAND_IN: int
class ChanceEvent(tuple[str, int, tuple[int, ...], list[int]]):
    """A chance point: what it is, whom or which slot or round it is for, who sees it, its outcomes."""
    def __new__(cls, event: str, who: int, observers: tuple[int, ...], outcomes: list[int]) -> ChanceEvent: ...
    @property
    def event(self) -> str: ...
    @property
    def who(self) -> int: ...
    @property
    def observers(self) -> tuple[int, ...]: ...
    @property
    def outcomes(self) -> list[int]: ...
def chance_observers(event: int, who: int, players: int) -> tuple[int, ...]: ...
def named_card(a: int) -> tuple[str, int] | None: ...   # the card an action names (hidden.pxi)

def clone_ns(game: Game, n: int = 100000) -> float: ...
def random_games(players: int, n: int, seed: int = 0, printing: str = "base", automa_level: int = 2) -> int: ...
def state_bytes() -> tuple[int, int]: ...
# --- the search (ext/search/)
PLAYOUTS: dict[str, int]                # the search's "playout" choices
LOOKAHEADS: dict[str, int]              # its "lookahead" choices (greedy playouts)
EXPANSIONS: dict[str, int]              # its "expand" choices
SEARCH_PARAMS: tuple[str, ...]          # what search() needs in params, every one
class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a search; `result` is what it found so far ("interrupted" True)."""
    result: SearchResult
    def __init__(self, result: SearchResult) -> None: ...

def search(game: Game, params: dict[str, Any], progress: Callable[[int, float], object] | None = None,
           tree: SearchTree | None = None, since: list[int] | None = None,
           clairvoyant: bool = False,
           partial: Callable[[SearchResult], object] | None = None) -> SearchResult: ...  # partial: the statistics so far, every ~0.5 s

@disjoint_base
class SearchTree:
    """A search tree kept between one player's decisions (see search(tree=, since=))."""
    @property
    def nodes(self) -> int: ...
    def clear(self) -> None: ...

def install_search_data(heuristic: dict[str, tuple[float, float]], cards: Any, caves: Any) -> None: ...
HEURISTIC_FEATURES: tuple[str, ...]
def heuristic_weights() -> dict[str, tuple[float, float]]: ...
def set_heuristic_weights(weights: dict[str, tuple[float, float]]) -> None: ...
def heuristic_values(game: Game) -> list[float]: ...
def end_game_vp_now(game: Game, player: int) -> int: ...  # end-game abilities' VP if the game ended now
# lookahead=cards: a learnt worth of each move's card and of what its cave holds
CAVE_MOVE_FEATURES: tuple[str, ...]      # the counts of a move's cave the worths weigh, per kind of move
def card_worth_key(action: int) -> int: ...                                 # 0: not a move
def card_worths() -> tuple[list[list[float]], list[list[float]]]: ...       # (cards, caves) per round
def set_card_worths(cards: Any = None, caves: Any = None) -> None: ...
def cave_move_features(game: Game, action: int) -> list[float]: ...
def tree_key(game: Game, action: int) -> int: ...  # the search tree's name for an action (display takes: the card)
def greedy_action(game: Game, seed: int = 0) -> int: ...
# the learnt judge (issue 65): a network's value of every seat's final score, from one seat's view
JUDGE_FEATURES: int
JUDGE_OUTPUTS: int
JUDGES: dict[str, int]
def install_judge(w1: Any, b1: Any, w2: Any, b2: Any) -> None: ...
def judge_installed() -> bool: ...
def judge_installs() -> int: ...   # networks installed in this process so far
def position_features(game: Game, player: int) -> tuple[list[int], list[float]]: ...
def judge_values(game: Game, player: int) -> list[float]: ...  # VP, turn order from `player`
def judged_action(game: Game, seed: int = 0, samples: int = 4) -> int: ...
def judged_game(players: int, seed: int, judges: Any, automa: str = "3", samples: int = 1, epsilon: float = 0.0,
                record: bool = False, printing: str = "base", choices: bool = False) -> dict[str, Any]: ...
# the distilled playouts (issue 65): the weighted policy times factors fitted to the net agent's choices
def install_distilled(keys: Any, factors: Any) -> None: ...
DISTILLED_ANY_ROUND: int  # the round of a key for every round
def distilled_keys(prompts: Any, rounds: Any, actions: Any) -> Any: ...  # uint64 keys
def distilled_installs() -> int: ...   # factor sets installed in this process so far
def distilled_choice(prompt: int, round: int, opts: Sequence[int], seed: int = 0) -> int: ...
def policy_weights(actions: Sequence[int]) -> Any: ...  # the weighted policy's weight of each action
def move_values(game: Game, seed: int = 0) -> list[tuple[int, float]]: ...  # heuristic turn value per legal action
def playout_scores(game: Game, policy: str = "greedy", seed: int = 0,
                   lookahead: str = "heuristic") -> list[int]: ...  # every seat's final score
def set_autoplay(on: bool) -> None: ...  # playouts take policy decisions without pausing (default); same play
def determinize_counts(reset: bool = False) -> dict[str, int]: ...  # determinizations, and fallbacks on real cards

class EngineError(RuntimeError): ...
class StateReplayError(GameStateError, EngineError): ...   # from_dict: the log does not replay

@disjoint_base
class Game:
    """One game of Wyrmspan in the core. Every decision is an action id (advisor.notation)."""
    @property
    def printing(self) -> str: ...
    @staticmethod
    def new(players: int = 2, seed: int = 0, printing: str = "base", automa: str = "2",
            chance: str = "sampled") -> Game: ...
    @property
    def automa_level(self) -> str | None: ...
    @staticmethod
    def from_dict(d: GameState | CoreState | dict[str, Any]) -> Game: ...
    def clone(self) -> Game: ...
    def legal_actions(self) -> list[int]: ...
    def apply(self, action: int, stand_in: bool = False) -> None: ...   # IllegalActionError if not legal now
    def sample(self, seed: int) -> int: ...     # a chance outcome the table hides, kept as a stand-in
    @property
    def chance_event(self) -> ChanceEvent | None: ...
    @property
    def chance(self) -> str: ...
    @property
    def history(self) -> list[int]: ...
    @property
    def stand_ins(self) -> list[int]: ...
    def undo(self) -> int: ...
    def rewind(self, n: int) -> None: ...
    def rebind(self, seed: int, tries: int = 64, then: Iterable[int] = (), seat: int = -1) -> Game: ...
    def swapped(self, a: tuple[str, int], b: tuple[str, int]) -> Game: ...   # two unseen cards trade places
    def as_legal(self, action: int) -> int: ...   # a card picked entered under the kind this point offers
    def holding(self, action: int, instead: tuple[str, int]) -> Game: ...     # a look, not for play
    @property
    def decider(self) -> int: ...
    @property
    def decision(self) -> str | None: ...
    @property
    def option_of(self) -> tuple[str, int] | None: ...
    @property
    def asked_by(self) -> AskedBy | None: ...   # the card or rule whose ability asks now
    @property
    def asking_seat(self) -> int | None: ...    # whose card or rule it is
    @property
    def phase(self) -> str: ...
    @property
    def round(self) -> int: ...            # 1-4; to_dict / observation keep the core's 0-3
    @property
    def active(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def decisions_in_segment(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def scores(self) -> list[int]: ...
    def score_breakdown(self) -> list[dict[str, int]]: ...
    def winners(self) -> list[int]: ...
    def play_random(self, seed: int = 0) -> int: ...
    def to_dict(self) -> GameState: ...
    def determinize(self, player: int, seed: int, fresh: bool = True) -> Game: ...
    def unplaced(self, player: int) -> tuple[set[int], set[int]]: ...   # in a deck or hand, unseen by `player`
    def placed(self, player: int) -> tuple[set[int], set[int]]: ...     # cards `player` can see where they are
    def observation(self, player: int) -> Observation: ...   # "round" is 0-3
