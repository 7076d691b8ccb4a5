"""URLs: the admin at /admin/, the integrators' API at /api/."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView
from rest_framework.routers import DefaultRouter

from casino.apis import CertificateHolderViewSet, TableViewSet

router = DefaultRouter()
router.register("certificate-holders", CertificateHolderViewSet, basename="certificate-holder")
router.register("tables", TableViewSet, basename="table")

admin.site.site_header = "Casino floor"
admin.site.site_title = "Casino floor"
admin.site.index_title = "Operations and compliance"

urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("admin/", admin.site.urls),
    path("api/", include(router.urls)),
    path("api-auth/", include("rest_framework.urls")),
    path("devices/v1/", include("devices.urls")),
]
