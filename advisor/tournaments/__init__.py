"""AI-vs-AI tournaments, by job: `plan` (agents, duplicate deals, seeds, seatings), `runners` (games on
local processes or a Dask cluster, a whole run), `records` (results files: read, written, resumed,
reused), `statistics` (intervals, paired margins, ratings), `report` (text, chart, `advisor report`)
and `tune` (parameter search and SPRT by play). docs/tournaments.md describes the method."""
