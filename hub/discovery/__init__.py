"""LAN discovery over mDNS / DNS-SD (zeroconf): the hub advertises `_lineup._tcp.local.`, clients browse."""

SERVICE_TYPE = "_lineup._tcp.local."
