"""`advisor review`: every decision of a seat in a finished game searched again, the move played
against the best, and the points it gave up (docs/review.md)."""
from advisor.review.judge import ReviewInterrupted, Verdict, review, review_decision
from advisor.review.source import PlayedGame, ReviewError, load_played

__all__ = ["PlayedGame", "ReviewError", "ReviewInterrupted", "Verdict", "load_played", "review", "review_decision"]
