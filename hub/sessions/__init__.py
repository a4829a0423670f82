"""Sessions started from the phone: a preset's agent, its own process in a project folder or a git worktree, its
changes, a review and a commit through an approval card (docs/sessions.md). Core, not a plugin: it drives the acp
runtime's package (hub/acp) directly, one runtime per session."""
