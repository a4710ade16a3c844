# The state the core keeps for the whole process, in one place. Everything else in ext/ is
# constants, types and functions, which refer to these names (declared last, read everywhere).

# -- the engine
cdef TableSet TABLE_SETS[N_PRINTINGS]
cdef int IN_USE = -1        # the printing whose set the names below point at (tables.pxi)

# the set in use
cdef short (*PROGRAM)[NCOL]
cdef short (*DRAGONS)[NDCOL]
cdef short* CAVES
cdef short (*MAT_BENEFITS)[5]
cdef short* GUILD_TRACK
cdef short (*GUILD_TILES)[4][3]
cdef short (*OBJECTIVES)[2]
cdef short* RULES
cdef short (*AUTOMA_CARDS)[NACOL]
cdef short (*AUTOMA_LEVELS)[8]
cdef short (*AUTOMA_OBJECTIVES)[2][5]
cdef int N_INSTR = 0
cdef object TABLES_INSTALLER = None     # the package's function that installs a printing's set (set_installers)

_point_at(0)        # never a dangling name, even before any set is loaded

cdef Run RUN                # the segment being played or replayed (rules.pxi)
cdef long DET_COUNTS[3]     # determinizations; of them, the ones that kept the others' hands; that kept all

# -- the search
cdef double HW_BASE[N_HFEAT]            # the heuristic's weights (evaluate.pxi; advisor/data/heuristic.toml)
cdef double HW_ROUND[N_HFEAT]
cdef double CARD_WORTHS[4][N_CKEYS]     # per round, by card_key (advisor/data/card-worths.toml)
cdef double CAVE_WORTHS[4][N_MFEAT]     # per round, per CAVE_MOVE_FEATURES count
cdef bint SEARCH_DATA = False           # whether the two files above are installed
cdef object SEARCH_DATA_INSTALLER = None    # the package's function that installs them (set_installers)
cdef bint AUTOPLAY = True               # playouts autoplay (playout.pxi); off only to test that it changes nothing
cdef float* JUDGE_W1 = NULL             # the learnt judge (judge.pxi; advisor/data/judge.npz): inputs x stride
cdef float JUDGE_B1[JMAX_HIDDEN]
cdef float* JUDGE_W2 = NULL             # outputs x stride
cdef float JUDGE_B2[MAXP]
cdef int JUDGE_HIDDEN = 0               # hidden units; 0 = no judge installed
cdef long JUDGE_INSTALLS = 0              # networks installed so far
cdef int JUDGE_STRIDE = 0               # a row's floats: the hidden units padded with zeros (judge.pxi)
cdef object JUDGE_INSTALLER = None      # the package's function that installs the shipped one (set_installers)
ctypedef struct DistilledSlot:          # a key and its factor side by side: one cache line a probe
    uint64_t key                        # 0: an empty slot
    float factor
cdef DistilledSlot* DISTILLED = NULL    # the distilled playouts' factors (distilled.pxi; advisor/data/distilled.npz)
cdef uint64_t DISTILLED_MASK = 0
cdef int DISTILLED_SHIFT = 64
cdef long DISTILLED_INSTALLS = 0        # factor sets installed so far
cdef object DISTILLED_INSTALLER = None  # the package's function that installs the shipped ones (set_installers)
