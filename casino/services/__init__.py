"""The floor's domain layer: every action on a compliance record goes through here.

Admin actions, the API and workers call these functions; each one checks the actor's
permission, refuses with every reason it finds (FloorRefused) and changes nothing then,
and takes `now` so tests control the clock.
"""

from casino.services.errors import FloorRefused

__all__ = ["FloorRefused"]
