# Card and rules tables: one set per printing, loaded from advisor.cards.compiler, kept for the
# whole process (the sets and the names are declared in ext/process.pxi). Each game state names its printing (Core.printing); every entry point from Python
# points the table names below at that printing's set (use_printing) before the rules run, so two
# printings can be in play in one process. Inside the core the names read like plain arrays.

cdef enum:
    MAX_INSTR = 4096
    N_DRAGON_ROWS = 184
    N_CAVE_ROWS = 76
    N_PRINTINGS = 2         # Core.printing: 0 base, 1 the 2025 printing (advisor.variants.PRINTINGS)

ctypedef struct TableSet:
    short program[MAX_INSTR][NCOL]
    short dragons[N_DRAGON_ROWS][NDCOL]
    short caves[N_CAVE_ROWS]
    short mat_benefits[3][5]
    short guild_track[12]
    short guild_tiles[4][4][3]
    short objectives[10][2]
    short rules[NRULES]
    short automa_cards[16][NACOL]
    short automa_levels[6][8]
    short automa_objectives[10][2][5]
    int n_instr
    bint loaded



cdef inline void use_printing(int printing) noexcept nogil:
    """Point the table names at `printing`'s set (a few pointer stores, only when it changes)."""
    if printing == IN_USE or not 0 <= printing < N_PRINTINGS:
        return
    _point_at(printing)


cdef void _point_at(int printing) noexcept nogil:
    global IN_USE, N_INSTR, PROGRAM, DRAGONS, CAVES, MAT_BENEFITS, GUILD_TRACK, GUILD_TILES
    global OBJECTIVES, RULES, AUTOMA_CARDS, AUTOMA_LEVELS, AUTOMA_OBJECTIVES
    cdef TableSet* t = &TABLE_SETS[printing]
    IN_USE = printing
    N_INSTR = t.n_instr
    PROGRAM = &t.program[0]
    DRAGONS = &t.dragons[0]
    CAVES = &t.caves[0]
    MAT_BENEFITS = &t.mat_benefits[0]
    GUILD_TRACK = &t.guild_track[0]
    GUILD_TILES = &t.guild_tiles[0]
    OBJECTIVES = &t.objectives[0]
    RULES = &t.rules[0]
    AUTOMA_CARDS = &t.automa_cards[0]
    AUTOMA_LEVELS = &t.automa_levels[0]
    AUTOMA_OBJECTIVES = &t.automa_objectives[0]




from advisor.variants import PRINTINGS     # names of Core.printing 0, 1
from advisor.errors import CardDataError
assert len(PRINTINGS) == N_PRINTINGS


cdef int printing_index(printing) except -1:
    """Core.printing of a printing's name."""
    if printing not in PRINTINGS:
        raise CardDataError(f"unknown printing {printing!r} (expected {', '.join(PRINTINGS)})")
    return PRINTINGS.index(printing)


def _shape(arr, shape, name):
    a = np.ascontiguousarray(arr, dtype=np.int16)
    if a.shape != shape:
        raise ValueError(f"{name}: expected shape {shape}, got {a.shape}")
    return a


cdef int _check_links(int n) noexcept:
    """Index of the first instruction whose links leave the program, or -1."""
    cdef int i, c, v
    for i in range(n):
        if PROGRAM[i][COL_OP] < 0 or PROGRAM[i][COL_OP] > OP_NOT_FEWER_THAN_LEFT:
            return i
        for c in range(COL_CHILD, COL_NEXT + 1):
            v = PROGRAM[i][c]
            if v < -1 or v >= n or v == i:
                return i
    return -1


def install_tables(program, dragons, caves, mat_benefits, guild_track, guild_tiles, objectives, rules,
                   automa_cards, automa_levels, automa_objectives, str printing):
    """Copy compiled tables (advisor.cards.compiler.Tables fields) into the core as `printing`'s
    set, and use that set for the table queries below."""
    global N_INSTR
    p = np.ascontiguousarray(program, dtype=np.int16)
    if p.ndim != 2 or p.shape[1] != NCOL or not 0 < p.shape[0] <= MAX_INSTR:
        raise ValueError(f"program: expected (1..{MAX_INSTR}, {NCOL}), got {p.shape}")
    d = _shape(dragons, (N_DRAGON_ROWS, NDCOL), "dragons")
    cv = _shape(caves, (N_CAVE_ROWS,), "caves")
    mb = _shape(mat_benefits, (3, 5), "mat_benefits")
    gt = _shape(guild_track, (12,), "guild_track")
    tl = _shape(guild_tiles, (4, 4, 3), "guild_tiles")
    ob = _shape(objectives, (10, 2), "objectives")
    ru = _shape(rules, (NRULES,), "rules")
    ac = _shape(automa_cards, (16, NACOL), "automa_cards")
    al = _shape(automa_levels, (6, 8), "automa_levels")
    ao = _shape(automa_objectives, (10, 2, 5), "automa_objectives")
    cdef short[:, ::1] pv = p
    cdef short[:, ::1] dv = d
    cdef int i, j, k
    cdef int index = printing_index(printing)
    TABLE_SETS[index].loaded = False
    _point_at(index)
    for i in range(p.shape[0]):
        for j in range(NCOL):
            PROGRAM[i][j] = pv[i, j]
    N_INSTR = TABLE_SETS[index].n_instr = p.shape[0]
    for i in range(N_DRAGON_ROWS):
        for j in range(NDCOL):
            DRAGONS[i][j] = dv[i, j]
    for i in range(N_CAVE_ROWS):
        CAVES[i] = cv[i]
    for i in range(3):
        for j in range(5):
            MAT_BENEFITS[i][j] = mb[i, j]
    for i in range(12):
        GUILD_TRACK[i] = gt[i]
    for i in range(4):
        for j in range(4):
            for k in range(3):
                GUILD_TILES[i][j][k] = tl[i, j, k]
    for i in range(10):
        for j in range(2):
            OBJECTIVES[i][j] = ob[i, j]
    for i in range(NRULES):
        RULES[i] = ru[i]
    for i in range(16):
        for j in range(NACOL):
            AUTOMA_CARDS[i][j] = ac[i, j]
    for i in range(6):
        for j in range(8):
            AUTOMA_LEVELS[i][j] = al[i, j]
    for i in range(10):
        for j in range(2):
            for k in range(5):
                AUTOMA_OBJECTIVES[i][j][k] = ao[i, j, k]
    bad = _check_links(N_INSTR)
    if bad >= 0:
        raise ValueError(f"program: instruction {bad} has a bad opcode or link")
    TABLE_SETS[index].loaded = True


def set_installers(tables, search_data, judge=None, distilled=None):
    """Take the package's functions that install what the core reads on first use: `tables(printing)`
    a printing's card tables (advisor.cards), `search_data()` the search's learnt numbers and
    `judge()` the shipped learnt judge (advisor.search.data). advisor/__init__.py gives them, so the
    core never imports the package above advisor.errors and advisor.variants."""
    global TABLES_INSTALLER, SEARCH_DATA_INSTALLER, JUDGE_INSTALLER, DISTILLED_INSTALLER
    TABLES_INSTALLER = tables
    SEARCH_DATA_INSTALLER = search_data
    JUDGE_INSTALLER = judge
    DISTILLED_INSTALLER = distilled


cdef int need_tables(int index) except -1:
    """Install a printing's table set on first use (by the package's installer)."""
    if TABLE_SETS[index].loaded:
        return 0
    if TABLES_INSTALLER is not None:
        TABLES_INSTALLER(PRINTINGS[index])
    if not TABLE_SETS[index].loaded:
        raise CardDataError(f"the {PRINTINGS[index]} card tables are not installed (import advisor installs them)")
    return 0


def installed(printing=None):
    """Whether `printing`'s set is loaded and sound; without a printing, the set in use."""
    return bool(TABLE_SETS[IN_USE if printing is None else printing_index(printing)].loaded)


def use_tables(printing):
    """Point the table queries below (n_instructions, instruction, dragon_row, ...) at a loaded
    printing's set. Games need no call: each uses its own printing's set."""
    cdef int index = printing_index(printing)
    if not TABLE_SETS[index].loaded:
        raise ValueError(f"the {printing} tables are not installed")
    use_printing(index)


def n_instructions():
    return N_INSTR


def instruction(int i):
    if not 0 <= i < N_INSTR:
        raise IndexError(i)
    return tuple(PROGRAM[i][j] for j in range(NCOL))


def dragon_row(int number):
    if not 1 <= number < N_DRAGON_ROWS:
        raise IndexError(number)
    return tuple(DRAGONS[number][j] for j in range(NDCOL))


def cave_entry(int number):
    if not 1 <= number < N_CAVE_ROWS:
        raise IndexError(number)
    return CAVES[number]


def mat_benefit_entry(int cave, int icon):
    return MAT_BENEFITS[cave][icon]


def guild_track_entry(int space):
    return GUILD_TRACK[space]


def guild_tile_entry(int tile, int ability):
    return tuple(GUILD_TILES[tile][ability][k] for k in range(3))


def objective_entry(int tile, int side):
    return OBJECTIVES[tile][side]


cdef int _reach(int i, int depth) noexcept:
    """Instructions reachable from i (statement chain, blocks and nested operands)."""
    cdef int total = 0, j, v
    if depth > 64:
        return -1000000
    while i >= 0:
        total += 1
        for j in range(COL_CHILD, COL_ALT + 1):
            v = PROGRAM[i][j]
            if v >= 0:
                total += _reach(v, depth + 1)
        # nested counts/conditions live in positional slots of if/repeat/vp/at_least/at_most
        v = PROGRAM[i][COL_OP]
        if v == OP_IF or v == OP_REPEAT or v == OP_AT_LEAST or v == OP_AT_MOST:
            total += _reach_single(PROGRAM[i][COL_POS], depth + 1)
        elif PROGRAM[i][COL_OP] == OP_VP and PROGRAM[i][COL_POS + 1] >= 0:
            total += _reach_single(PROGRAM[i][COL_POS + 1], depth + 1)
        i = PROGRAM[i][COL_NEXT]
    return total


cdef int _reach_single(int i, int depth) noexcept:
    cdef int total = 1
    if PROGRAM[i][COL_OP] == OP_AT_LEAST or PROGRAM[i][COL_OP] == OP_AT_MOST:
        total += _reach_single(PROGRAM[i][COL_POS], depth + 1)
    return total


def reachable(int entry):
    """How many instructions the program starting at `entry` spans (walked in C)."""
    if not 0 < entry < N_INSTR:
        raise IndexError(entry)
    return _reach(entry, 0)
