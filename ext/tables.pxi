# Card and rules tables in static C arrays, installed once per process from advisor.cards.compiler.

cdef enum:
    MAX_INSTR = 4096
    N_DRAGON_ROWS = 184
    N_CAVE_ROWS = 76

cdef short PROGRAM[MAX_INSTR][NCOL]
cdef int N_INSTR = 0
cdef short DRAGONS[N_DRAGON_ROWS][NDCOL]
cdef short CAVES[N_CAVE_ROWS]
cdef short MAT_BENEFITS[3][5]
cdef short GUILD_TRACK[12]
cdef short GUILD_TILES[4][4][3]
cdef short OBJECTIVES[10][2]
cdef short RULES[NRULES]
cdef short AUTOMA_CARDS[16][NACOL]
cdef short AUTOMA_LEVELS[6][8]
cdef short AUTOMA_OBJECTIVES[10][2][5]
cdef bint INSTALLED = False


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
                   automa_cards, automa_levels, automa_objectives):
    """Copy compiled tables (advisor.cards.compiler.Tables fields) into the core."""
    global N_INSTR, INSTALLED
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
    for i in range(p.shape[0]):
        for j in range(NCOL):
            PROGRAM[i][j] = pv[i, j]
    N_INSTR = p.shape[0]
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
        INSTALLED = False
        raise ValueError(f"program: instruction {bad} has a bad opcode or link")
    INSTALLED = True


def installed():
    return INSTALLED


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
