"""/api/v1/: the router's resources, the floor, PAR sheets, the schema and its docs
(Swagger UI only: drf-spectacular's Redoc page loads fonts from a third party)."""

from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.routers import APIRootView, DefaultRouter

from casino.api import floor, hold, overview, schedule
from casino.api.errors import no_such_endpoint
from devices.apis import DeviceEventViewSet, DeviceViewSet
from games.apis import (
    LedgerEntryViewSet,
    LedgerLineViewSet,
    ResolutionViewSet,
    RoundViewSet,
    WagerViewSet,
)
from webhooks.apis import DeliveryViewSet, EndpointViewSet


class ApiRoot(APIRootView):
    """/api/v1/: every resource's list, the floor, the schema and its docs. Public, as the
    schema is: it shows the API's shape, no data (the 404 body sends people here)."""

    permission_classes = [AllowAny]

    def get(self, request: Request, *args, **kwargs) -> Response:
        """The router's index, and the views beside it."""
        answer = super().get(request, *args, **kwargs)
        for name, url_name in (("floor", "api-floor"), ("schema", "api-schema"),
                               ("docs", "api-docs")):  # fmt: skip
            answer.data[name] = reverse(url_name, request=request, format=kwargs.get("format"))
        return answer


class Router(DefaultRouter):
    APIRootView = ApiRoot


router = Router()
router.register(
    "certificate-holders", floor.CertificateHolderViewSet, basename="certificate-holder"
)
router.register("tables", floor.TableViewSet, basename="table")
router.register("rules-submissions", floor.RulesSubmissionViewSet, basename="rules-submission")
router.register("layouts", floor.LayoutViewSet, basename="layout")
router.register("equipment-sets", floor.EquipmentSetViewSet, basename="equipment-set")
router.register("sets-in-play", floor.SetInPlayViewSet, basename="set-in-play")
router.register("rounds", RoundViewSet, basename="round")
router.register("wagers", WagerViewSet, basename="wager")
router.register("resolutions", ResolutionViewSet, basename="resolution")
router.register("ledger-entries", LedgerEntryViewSet, basename="ledger-entry")
router.register("ledger-lines", LedgerLineViewSet, basename="ledger-line")
router.register("devices", DeviceViewSet, basename="device")
router.register("device-events", DeviceEventViewSet, basename="device-event")
router.register("audit-entries", floor.AuditEntryViewSet, basename="audit-entry")
router.register("api-writes", floor.ApiWriteViewSet, basename="api-write")
router.register("webhook-endpoints", EndpointViewSet, basename="webhook-endpoint")
router.register("webhook-deliveries", DeliveryViewSet, basename="webhook-delivery")

urlpatterns = [
    path("floor/", overview.floor_view, name="api-floor"),
    path("par/<str:game>/", overview.ParSheetView.as_view(), name="api-par"),
    path("hold/", hold.FloorHoldView.as_view(), name="api-hold"),
    path(
        "equipment-schedule/",
        schedule.EquipmentScheduleView.as_view(),
        name="api-equipment-schedule",
    ),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include(router.urls)),
    # Last: any other path under /api/v1/ is a 404 in the API's error body.
    re_path(r"^(?P<path>.*)$", no_such_endpoint),
]
