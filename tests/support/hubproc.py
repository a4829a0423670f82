"""The process hub's old module: its names are tests/support/hubs.py's, kept for the files that import them here."""

from tests.support.hubs import HubProcess as HubProcess
from tests.support.hubs import ephemeral_ports as ephemeral_ports
from tests.support.hubs import free_port as free_port
from tests.support.hubs import pair_agent as pair_agent
from tests.support.hubs import recorded_port as recorded_port
from tests.support.hubs import run_cli as run_cli
