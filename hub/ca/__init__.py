"""The hub's own certificate authority: https on the LAN for devices that trust the hub once."""
