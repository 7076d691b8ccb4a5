"""Devices: the registry of shakers, sensors and random number generators (issue 8).

Its place in the layers (docs/architecture.md): rules is pure (the engines' layer);
models, signing, auth, store, services, watch, selectors and gates are the `devices`
layer, beside games (neither imports the other), above casino. views, apis, admin and the
simulator are entry points. What follows a device failing is gaming/devices.py.
"""
