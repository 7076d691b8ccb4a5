"""URLs of the devices' own web process (casino/wsgi_devices.py): the devices' signed
endpoints (/devices/v1/) and the probes the load balancer asks (/health/, /ready/); every
other path is a 404 in the one JSON body. /metrics is answered by its middleware before
any URL, as in the web process (Prometheus scrapes each process), and so are the static
files (WhiteNoise, under STATIC_URL)."""

from django.http import HttpRequest, JsonResponse
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt

from casino import health, urls
from casino.api.errors import error_body

DEVICES_PREFIX = "/devices/v1/"


@csrf_exempt  # it changes nothing: a POST is a 404 too, not a 403 for its missing cookie
def not_found(request: HttpRequest) -> JsonResponse:
    """Any path but the devices' and the probes': the one body, naming where they are."""
    detail = (
        f"no endpoint at {request.path}; this server answers the devices' endpoints only "
        f"({DEVICES_PREFIX})"
    )
    return JsonResponse(error_body(404, "not_found", detail, [detail]), status=404)


# The web process's handlers: under /devices/ they answer in the one body.
handler400 = urls.bad_request
handler403 = urls.permission_denied
handler404 = urls.page_not_found
handler500 = urls.server_error

urlpatterns = [
    path("health/", health.health, name="health"),
    path("ready/", health.ready, name="ready"),
    path("devices/v1/", include("devices.urls")),
    # Every other path, as a view rather than the resolver's 404: JSON under DEBUG too
    # (not Django's page), and no redirect to the path with a slash (APPEND_SLASH).
    re_path(r"", not_found),
]
