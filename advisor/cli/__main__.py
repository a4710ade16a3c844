"""`python -m advisor.cli`: the `advisor` command."""
from advisor.cli import main

main()
