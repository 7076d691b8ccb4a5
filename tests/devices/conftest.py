"""Fixtures the device tests share."""

from datetime import datetime

import pytest
from django.test import override_settings

from devices import auth, views
from devices.store import store
from tests.casino.floor_fixtures import T0


class Clock:
    """devices.views.clock, set by the test (Unix seconds); it starts at T0."""

    def __init__(self) -> None:
        self.now = T0.timestamp()

    def __call__(self) -> float:
        return self.now

    def at(self, moment: datetime) -> None:
        self.now = moment.timestamp()


@pytest.fixture
def endpoint_clock(monkeypatch: pytest.MonkeyPatch):
    """The endpoints' clock at T0, the database store, and an empty credential cache."""
    at = Clock()
    monkeypatch.setattr(views, "clock", at)
    auth._cache.clear()
    with override_settings(CASINO_DEVICE_STORE_URL="database"):
        store.cache_clear()
        yield at
    store.cache_clear()
    auth._cache.clear()
