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
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
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
from games.rules.catalog import GAMES_BY_KEY

log = logging.getLogger(__name__)

# The response's shape in words: it is casino.floor_page.floor_snapshot, which grows.
FLOOR_RESPONSE = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description=(
        '{"at": time, "tables": [...]}: each table with its round in progress, equipment '
        "due times, device health, last results and `settlement_alert`: null, or the "
        "table's stuck settlement (its round's settlement failed, or was sent "
        "CASINO_SETTLEMENT_MAX_SENDS times, or was not sent again long after the sweep "
        "should have): `round` {id, number}, `request_id`, `status` (failed, "
        "too_many_sends, not_sent_again), `status_display`, `kind` (refused, integrity, "
        "services, other, too_many_sends, not_sent_again), `error`, `since`, "
        "`last_failed_at`, `failures`, `sends`, "
        "`guidance` (what the operator does) and `admin_url`."
    ),
)


class FloorView(APIView):
    """Every table the caller sees, with its round in progress, equipment due times,
    device health, last results and any stuck settlement (what the floor page shows)."""

    read_permission = "casino.view_table"

    @extend_schema(responses={200: FLOOR_RESPONSE})
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
    taken = throttles.take("token", key_id, keys)
    found = taken.found
    passed = auth.TOKENS.serve(found, pass_scope, lambda: auth.token_pass_load(key_id, permission))
    if not auth.token_pass_admits(passed, secret, timezone.now()):
        # Not (yet) known to be the token's own request: DRF authenticates it, then counts.
        throttles.give_back(taken)
        return None
    if taken.wait:
        # Over budget: FloorView answers the 429 (the one body), counted once.
        setattr(request, throttles.COUNTED, ("token", key_id, taken.wait))
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
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, game: str) -> Response:
        """The sheet; per Rules Submission: /rules-submissions/{id}/par/."""
        if game not in GAMES_BY_KEY:
            known = ", ".join(sorted(GAMES_BY_KEY))
            raise ApiError(404, "not_found", f"no game {game!r}; the games are {known}")
        return Response(game_par(game))
