"""Views over more than one record: the live floor, and a game's PAR sheet.

The floor is what integrators' screens poll, so a read with an API token takes a shorter
way (issue 21): `floor_view` answers it from the shared cache before DRF's dispatch, the
token's pass (casino/api/auth.py) and the floor's entry read in one Redis trip, which also
counts the token's budget (casino/api/throttles.py; over it, FloorView answers the 429). It answers
only what FloorView would answer 200 with the same bytes and headers: a GET without a
query string, asking for JSON (or anything), with a Bearer key whose pass admits it
(the token valid, not revoked, its user active and holding casino.view_table, its last use
written within the minute). Anything else, and any error on the way, goes to FloorView,
which decides as it always has (401, 403, another renderer, the error bodies).
"""

import functools
import logging
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino import floor_cache
from casino.api import auth, throttles
from casino.api.errors import ApiError
from casino.api.permissions import token_holder_id
from casino.floor_page import floor_build, floor_json, floor_read
from casino.services.par import game_par
from casino.versioned import read
from devices import rules as device_rules
from devices.models import Device
from games.rules.catalog import GAMES_BY_KEY
from games.state_schema import SummaryField

log = logging.getLogger(__name__)

# The floor's shape for the schema: casino.floor_page.floor_snapshot builds it (a test holds
# the two together). Names are the snapshot's; times are ISO 8601 strings.
_S = serializers


class FloorRoundSerializer(_S.Serializer):
    id = _S.IntegerField()
    number = _S.IntegerField()
    status = _S.CharField(help_text="The round's status: open, closed, result_entered, ...")
    status_display = _S.CharField()
    opened_at = _S.DateTimeField(allow_null=True)
    wagers = _S.IntegerField(help_text="How many wagers the round has.")
    wagered = _S.DecimalField(max_digits=14, decimal_places=2, help_text="Their total.")
    admin_url = _S.CharField()


class FloorSetSerializer(_S.Serializer):
    composition = _S.CharField(help_text="In words, e.g. five dice.")
    set = _S.CharField(help_text="The equipment set's identifier.")
    put_in_play_at = _S.DateTimeField(allow_null=True)
    due_at = _S.DateTimeField(allow_null=True)
    warn_from = _S.DateTimeField(allow_null=True)
    limit = _S.CharField(help_text="The changeout limit that applies, in words.")
    due = _S.ChoiceField(choices=["ok", "soon", "overdue"])


class FloorDeviceSerializer(_S.Serializer):
    id = _S.IntegerField()
    kind = _S.CharField(help_text="In words.")
    serial = _S.CharField()
    status = _S.CharField()
    status_display = _S.CharField()
    position = _S.IntegerField(allow_null=True, help_text="An Extra Roll device's position.")
    last_seen_at = _S.DateTimeField(allow_null=True)
    seconds_since_seen = _S.IntegerField(allow_null=True)
    health = _S.ChoiceField(choices=["ok", "stale", "down"])
    admin_url = _S.CharField()


class FloorResultSerializer(_S.Serializer):
    id = _S.IntegerField()
    number = _S.IntegerField()
    result = _S.CharField(help_text="The result, readably (dice, tiles, a void).")
    status = _S.CharField(help_text="The round's status, or voided.")
    status_display = _S.CharField()
    at = _S.DateTimeField(allow_null=True)
    admin_url = _S.CharField()


class AlertRoundSerializer(_S.Serializer):
    id = _S.IntegerField()
    number = _S.IntegerField()


class SettlementAlertSerializer(_S.Serializer):
    """A stuck settlement (docs/api.md, The floor)."""

    round = AlertRoundSerializer()
    request_id = _S.IntegerField()
    status = _S.ChoiceField(choices=["failed", "too_many_sends", "not_sent_again"])
    status_display = _S.CharField()
    kind = _S.ChoiceField(
        choices=["refused", "integrity", "services", "other", "too_many_sends", "not_sent_again"]
    )
    error = _S.CharField()
    since = _S.DateTimeField()
    last_failed_at = _S.DateTimeField(allow_null=True)
    failures = _S.IntegerField()
    sends = _S.IntegerField()
    guidance = _S.CharField(help_text="What the operator does.")
    admin_url = _S.CharField()


class DeviceWaitWaySerializer(_S.Serializer):
    way = _S.ChoiceField(
        choices=list(device_rules.WAYS),
        help_text='"void": POST /rounds/{id}/void/ with {"section": section}; "out_of_order": '
        "POST /devices/{device.id}/out-of-order/ with a reason, then as the text says.",
    )
    section = _S.CharField(help_text='The section it goes under, e.g. "621a.6(a)(1)".')
    text = _S.CharField(help_text="What the operator does, in words.")


class DeviceWaitDeviceSerializer(_S.Serializer):
    id = _S.IntegerField()
    serial = _S.CharField()
    status = _S.ChoiceField(choices=Device.Status.choices)
    status_display = _S.CharField()


class DeviceWaitSerializer(_S.Serializer):
    """A round waiting on a device for its next step since "no more bets" (docs/api.md, A
    round waiting on a device); `alert` once it has waited CASINO_DEVICE_WAIT_SECONDS."""

    round = AlertRoundSerializer()
    kind = _S.ChoiceField(
        choices=[(kind, device_rules.KINDS[kind].label) for kind in device_rules.WAIT_KINDS],
        help_text="The kind of device waited on.",
    )
    kind_display = _S.CharField()
    device = DeviceWaitDeviceSerializer(
        allow_null=True, help_text="The device (null: the table has none of that kind)."
    )
    report = _S.ChoiceField(
        choices=list(device_rules.WAIT_REPORTS),
        help_text="What the device reports (its report's field at /devices/v1/report).",
    )
    step = _S.CharField(help_text="The step waited for, in words.")
    cite = _S.CharField(help_text="The section that gives the step to the device.")
    since = _S.DateTimeField(help_text='"No more bets": the wait began.')
    alert_at = _S.DateTimeField(help_text="When the wait becomes an alert.")
    alert = _S.BooleanField(help_text="Waited past CASINO_DEVICE_WAIT_SECONDS.")
    ways_out = DeviceWaitWaySerializer(many=True, help_text="What the rules allow, in order.")
    guidance = _S.CharField(help_text="The alert in words: the device, the step, what to do.")


class FloorKeySerializer(_S.Serializer):
    key = _S.CharField()
    name = _S.CharField()


class FloorTableSerializer(_S.Serializer):
    id = _S.IntegerField()
    number = _S.CharField()
    holder = _S.CharField(help_text="The certificate holder's name.")
    game = FloorKeySerializer()
    variant = FloorKeySerializer()
    status = _S.CharField()
    status_display = _S.CharField()
    status_changed_at = _S.DateTimeField(allow_null=True)
    admin_url = _S.CharField()
    round = FloorRoundSerializer(allow_null=True, help_text="The round in progress, if any.")
    equipment = FloorSetSerializer(many=True)
    missing_sets = _S.ListField(child=_S.CharField(), help_text="Sets the table needs.")
    devices = FloorDeviceSerializer(many=True)
    last_results = FloorResultSerializer(many=True)
    settlement_alert = SettlementAlertSerializer(allow_null=True)
    device_wait = DeviceWaitSerializer(
        allow_null=True, help_text="The round in progress waiting on a device, if it is."
    )
    state = SummaryField(
        allow_null=True,
        help_text="The table's state in a few keys, by game (the point and the shooter, the "
        "drive, the bank...): after the round in progress's last event, else the last "
        "round's; null for a table that never played. The round's own `state` has it all.",
    )


class FloorSerializer(_S.Serializer):
    """The floor page's snapshot of the tables the caller sees."""

    at = _S.DateTimeField()
    tables = FloorTableSerializer(many=True)


class ParOutcomeSerializer(_S.Serializer):
    name = _S.CharField()
    probability = _S.CharField(help_text='An exact fraction, e.g. "1/216".')
    net = _S.CharField(help_text='What the wager nets per unit, a fraction, e.g. "-1".')


class ParWagerSerializer(_S.Serializer):
    kind = _S.CharField()
    house_edge = _S.DecimalField(max_digits=14, decimal_places=10)
    house_edge_exact = _S.CharField(help_text='e.g. "65/216".')
    outcomes = ParOutcomeSerializer(many=True)


class ParSheetSerializer(_S.Serializer):
    """A game's PAR sheet (games/par.py)."""

    format = _S.IntegerField()
    game = _S.CharField(help_text="The game's key, as in the path.")
    options = _S.DictField(help_text="The engine's options the sheet is computed under.")
    wagers = ParWagerSerializer(many=True)


class FloorView(APIView):
    """Every table the caller sees, with its round in progress, equipment due times,
    device health, last results and any stuck settlement (what the floor page shows)."""

    read_permission = "casino.view_table"

    @extend_schema(responses=FloorSerializer)
    def get(self, request: Request) -> Response:
        """The floor now; a table whose settlement is stuck has a `settlement_alert`."""
        # A token sees its certificate holder's tables (casino.api.permissions.scoped).
        holder_id = token_holder_id(request)
        if isinstance(request.accepted_renderer, JSONRenderer):
            # The cached bytes are JSONRenderer's own: sent as they are, not parsed again.
            return HttpResponse(floor_json(holder_id=holder_id), content_type="application/json")
        return Response(floor_read(holder_id=holder_id))


# What DRF's content negotiation answers with JSONRenderer for: no Accept, or these.
_JSON_ACCEPTS = frozenset({"", "*/*", "application/json"})
# The scope each key id's last read was served (this process's guess, so that the token's
# pass and the floor's entry come in one trip); bounded: cleared when it fills.
_SCOPES: dict[str, str] = {}
_SCOPES_MAX = 10_000


def floor_cached(request: HttpRequest) -> HttpResponse | None:
    """FloorView's 200 for a token's JSON read, from the cache, or None: FloorView decides."""
    meta = request.META
    if (
        request.method != "GET"
        or meta.get("QUERY_STRING")
        or meta.get("HTTP_ACCEPT", "") not in _JSON_ACCEPTS
    ):
        return None
    # As TokenAuthentication reads the header.
    scheme, _, key = meta.get("HTTP_AUTHORIZATION", "").partition(" ")
    parts = auth.key_parts(key.strip()) if scheme.lower() == "bearer" else None
    if parts is None:
        return None
    key_id, secret = parts
    permission = FloorView.read_permission
    pass_scope = auth.token_pass_scope(key_id, permission)
    keys = list(auth.TOKENS.keys(pass_scope))
    guess = _SCOPES.get(key_id)
    if guess is not None:
        keys += floor_cache.FLOOR.keys(guess)
    # The token's budget counted in the same trip (casino/api/throttles.py).
    caller = throttles.token_caller(key_id, auth.key_hash(secret))
    taken = throttles.take("token", caller, keys)
    found = taken.found
    passed = auth.TOKENS.serve(found, pass_scope, lambda: auth.token_pass_load(key_id, permission))
    if not auth.token_pass_admits(passed, secret, timezone.now()):
        # Not (yet) known to be the token's own request: DRF authenticates it, then counts.
        throttles.give_back(taken)
        return None
    if taken.wait:
        # Over budget: FloorView answers the 429 (the one body), counted once.
        setattr(request, throttles.COUNTED, ("token", caller, taken.wait))
        return None
    holder_id = passed.holder_id
    scope = floor_cache.holder_scope(holder_id)
    if scope != guess:
        if len(_SCOPES) >= _SCOPES_MAX:
            _SCOPES.clear()
        _SCOPES[key_id] = scope
        found = read(floor_cache.FLOOR.keys(scope), floor_cache.FLOOR.name)
    body = floor_cache.FLOOR.serve(found, scope, lambda: floor_build(holder_id=holder_id))
    response = HttpResponse(body, content_type="application/json")
    for name, value in _FLOOR_HEADERS.items():  # as APIView.finalize_response sets them
        response[name] = value
    return response


_drf_floor = FloorView.as_view()


def _floor_headers() -> dict[str, str]:
    """FloorView's own headers: Allow (HEAD too: View.setup answers it with GET), and
    Vary: Accept."""
    view = FloorView()
    view.setup(HttpRequest())
    return view.default_response_headers


_FLOOR_HEADERS = _floor_headers()


@functools.wraps(_drf_floor)  # its view_class, cls and csrf_exempt: the schema reads them
def floor_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """GET /api/v1/floor/: `floor_cached`'s answer, or FloorView's."""
    try:
        answer = floor_cached(request)
    except Exception:  # FloorView meets it again, and answers it as it always has
        log.debug("the floor's shorter way failed: FloorView answers", exc_info=True)
        answer = None
    return answer if answer is not None else _drf_floor(request, *args, **kwargs)


class ParSheetView(APIView):
    """A game's PAR sheet under the engine's default options: every wager's house edge,
    read as stored with the code (games/par_sheets/), never computed in the request."""

    read_permission = "casino.view_rulessubmission"

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "game", OpenApiTypes.STR, OpenApiParameter.PATH, enum=sorted(GAMES_BY_KEY)
            )
        ],
        responses=ParSheetSerializer,
    )
    def get(self, request: Request, game: str) -> Response:
        """The sheet; per Rules Submission: /rules-submissions/{id}/par/."""
        if game not in GAMES_BY_KEY:
            known = ", ".join(sorted(GAMES_BY_KEY))
            raise ApiError(404, "not_found", f"no game {game!r}; the games are {known}")
        return Response(game_par(game))
