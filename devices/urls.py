"""The devices' signed endpoints (devices/views.py)."""

from django.urls import path

from devices import views

urlpatterns = [
    path("heartbeat", views.heartbeat, name="device-heartbeat"),
    path("condition", views.condition, name="device-condition"),
    path("report", views.report, name="device-report"),
]
