"""Each event's body, built in one place when a worker fans the event out (an entry point:
it shows rows as the API shows them, with the API's own serializers).

A round's settlement carries the round as GET /api/v1/rounds/{id}/ lists it and its
resolutions as GET /api/v1/resolutions/?round={id} shows them: the same serializers, the
same order, the same values (a settled round's rows never change, so building the body
after the settlement committed shows what it wrote). Every other event's data is what the
code that recorded it knew at that moment (webhooks/events.py builds it).
"""

import json
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

from casino.api.represent import represented, represented_all
from games.apis import ResolutionSerializer, RoundSerializer
from games.models import Resolution, Round
from webhooks.events import ROUND_SETTLED, envelope
from webhooks.models import Event


def round_settled_data(round_id: int) -> dict[str, Any]:
    """round.settled's data: {"round": ..., "resolutions": [...]}, as the API shows them."""
    round_ = Round.objects.get(pk=round_id)
    resolutions = Resolution.objects.filter(round_id=round_id).order_by("id")
    return {
        "round": represented(RoundSerializer, round_),
        "resolutions": represented_all(ResolutionSerializer, resolutions),
    }


def event_data(event: Event) -> dict[str, Any]:
    """The event's data: a settlement's read from its rows, any other's as recorded."""
    if event.event_type == ROUND_SETTLED:
        return round_settled_data(event.data["round"])
    return event.data


def event_body(event: Event) -> str:
    """The event's body as sent: the Standard Webhooks payload as compact JSON (decimals as
    strings, as the API writes them)."""
    payload = envelope(event.event_type, event.occurred_at, event_data(event))
    return json.dumps(payload, cls=JSONEncoder, separators=(",", ":"), ensure_ascii=False)
