"""Devices: the registry of shakers, sensors and random number generators (issue 8)."""
