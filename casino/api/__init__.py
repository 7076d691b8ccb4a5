"""The integrators' REST API (/api/v1/): what every endpoint shares.

- auth: API tokens; sign_in: failed sign-ins throttled; permissions: roles and scope.
- errors: the one error body; pagination; writes: every write recorded, idempotency keys.
- floor: the floor's records; games/apis.py and devices/apis.py: rounds and devices.
"""
