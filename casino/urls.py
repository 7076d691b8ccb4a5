"""URLs: the floor page, the admin, the integrators' API (/api/v1/), the devices' endpoints
(/devices/v1/), and the health and readiness probes."""

from django.conf import settings
from django.contrib import admin
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.urls import include, path
from django.views import defaults
from django.views.generic import RedirectView

from casino import floor_page, health
from casino.api.errors import django_error, speaks_api
from casino.api.middleware import too_large
from casino.api.sign_in import ThrottledSignInForm

admin.site.site_header = "Casino floor"
admin.site.site_title = "Casino floor"
admin.site.index_title = "Operations and compliance"
admin.site.login_form = ThrottledSignInForm  # failed sign-ins throttled


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 400 (a malformed request, a bad Host): the one body under /api/ and
    /devices/, 413 for a body over Django's own DATA_UPLOAD_MAX_MEMORY_SIZE."""
    if not speaks_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    return django_error(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 403: the one body under /api/ and /devices/."""
    if not speaks_api(request):
        return defaults.permission_denied(request, exception)
    return django_error(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 404 without its CSRF check, which reads the body: a malformed one would be
    a 500 here. The one body under /api/ and /devices/."""
    if speaks_api(request):
        return django_error(request, 404)
    return HttpResponseNotFound(
        "<h1>Not Found</h1><p>The requested resource was not found on this server.</p>"
    )


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's 500: the one body under /api/ and /devices/ (an outage becomes a 503 in
    casino/api/middleware.py)."""
    if not speaks_api(request):
        return defaults.server_error(request)
    return django_error(request, 500)


handler400 = bad_request
handler403 = permission_denied
handler404 = page_not_found
handler500 = server_error

urlpatterns = [
    path("", RedirectView.as_view(url="/floor/", permanent=False)),
    path("floor/", floor_page.floor_page, name="floor"),
    path("floor/data.json", floor_page.floor_data, name="floor-data"),
    path("floor/statistics.json", floor_page.floor_statistics, name="floor-statistics"),
    path("health/", health.health, name="health"),
    path("ready/", health.ready, name="ready"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("casino.api.urls")),
    path("devices/v1/", include("devices.urls")),
]
