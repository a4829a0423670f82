"""The collaboration rules: task states, interactions, and the commands that turn envelopes into events."""
