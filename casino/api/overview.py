"""Views over more than one record: the live floor, and a game's PAR sheet."""

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.errors import ApiError
from casino.api.permissions import scoped
from casino.floor_page import floor_snapshot
from casino.models import Table
from casino.services.par import game_par
from games.rules.catalog import GAMES_BY_KEY


class FloorView(APIView):
    """Every table the caller sees, with its round in progress, equipment due times,
    device health and last results (what the floor page shows)."""

    read_permission = "casino.view_table"

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request) -> Response:
        """The floor now."""
        tables = scoped(Table.objects.all(), request, "holder")
        return Response(floor_snapshot(now=timezone.now(), tables=tables))


class ParSheetView(APIView):
    """A game's PAR sheet under the engine's default options: every wager's house edge."""

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
