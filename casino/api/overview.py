"""Views over more than one record: the live floor, and a game's PAR sheet."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.errors import ApiError
from casino.api.permissions import token_holder_id
from casino.floor_page import floor_json, floor_read
from casino.services.par import game_par
from games.rules.catalog import GAMES_BY_KEY

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
