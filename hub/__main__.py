"""`python -m hub` is the `lineup` command."""

from hub.cli import main

main()
