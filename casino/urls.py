"""URLs: the floor page, the admin, the integrators' API (/api/v1/), the devices' endpoints
(/devices/v1/), and the health and readiness probes."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.urls import include, path
from django.views.generic import RedirectView

from casino import floor_page, health
from casino.api.sign_in import ThrottledSignInForm

admin.site.site_header = "Casino floor"
admin.site.site_title = "Casino floor"
admin.site.index_title = "Operations and compliance"
admin.site.login_form = ThrottledSignInForm  # failed sign-ins throttled


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 404 without its CSRF check, which reads the body: a malformed one would be
    a 500 here."""
    return HttpResponseNotFound(
        "<h1>Not Found</h1><p>The requested resource was not found on this server.</p>"
    )


handler404 = page_not_found

urlpatterns = [
    path("", RedirectView.as_view(url="/floor/", permanent=False)),
    path("floor/", floor_page.floor_page, name="floor"),
    path("floor/data.json", floor_page.floor_data, name="floor-data"),
    path("health/", health.health, name="health"),
    path("ready/", health.ready, name="ready"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("casino.api.urls")),
    path("devices/v1/", include("devices.urls")),
]
