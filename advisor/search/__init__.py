"""The search: ISMCTS in the core (ext/search/), set up from the parameter registry (params),
analyses of a position (analysis), agents that play with it (agents), solo forecasts (forecast),
worker processes (workers), the learnt numbers it reads (data) and its benchmarks (benchmark)."""
from advisor.search.analysis import Analysis, AnalysisInterrupted, Limit, MoveInfo, analyse

__all__ = ["Analysis", "AnalysisInterrupted", "Limit", "MoveInfo", "analyse"]
