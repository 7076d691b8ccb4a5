"""The device registry's admin (issue 8): operations register devices and act on them,
compliance reads everything.

Devices, credentials and device events are written only by devices.services; the admin
shows them read-only and its actions call those services.
"""

from devices.admin import devices, events

__all__ = ["devices", "events"]
