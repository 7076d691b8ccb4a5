"""Devices through the API: the registry, their live heartbeats and their events; staff
and integrators mark one out of order or return it to service.

Devices themselves never use this API: they speak at /devices/v1/ with their own signed
credentials (devices/views.py).
"""

from datetime import datetime

from django.utils import timezone
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api.floor import ReadOnly, TableRef
from casino.api.writes import write
from devices import services
from devices.models import Device, DeviceEvent
from devices.selectors import seen_attach
from devices.watch import threshold
from gaming import devices as floor_devices


class DeviceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Device
        fields = [
            "id",
            "kind",
            "manufacturer",
            "serial_number",
            "firmware",
            "approval_reference",
            "approved_at",
            "table",
            "position",
            "status",
            "status_changed_at",
            "stale_since",
            "last_seen_at",
            "out_of_order_reason",
            "registered_at",
        ]


class HeartbeatSerializer(serializers.Serializer):
    device = serializers.IntegerField()
    serial_number = serializers.CharField()
    kind = serializers.CharField()
    table = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    last_seen_at = serializers.DateTimeField(allow_null=True)
    live = serializers.BooleanField(help_text="From the heartbeat store, not the written copy.")
    silent_seconds = serializers.FloatField(allow_null=True)
    stale_after_seconds = serializers.FloatField()


class OutOfOrderSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500)


class DeviceFilter(filters.FilterSet):
    table = TableRef()

    class Meta:
        model = Device
        fields = ["table", "kind", "status", "serial_number"]


def heartbeat_of(device: Device, now: datetime) -> dict:
    """A device's live last heartbeat and how long it may stay silent."""
    seen = device.seen
    return {
        "device": device.pk,
        "serial_number": device.serial_number,
        "kind": device.kind,
        "table": device.table_id,
        "status": device.status,
        "last_seen_at": seen.at,
        "live": seen.live,
        "silent_seconds": None if seen.at is None else (now - seen.at).total_seconds(),
        "stale_after_seconds": threshold(device.kind)[2],
    }


class DeviceViewSet(ReadOnly):
    """Shakers, sensors, lock-out controls and random number generators."""

    queryset = Device.objects.all()
    serializer_class = DeviceSerializer
    filterset_class = DeviceFilter
    holder_path = "table__holder"
    ordering_fields = ["id", "kind", "status", "last_seen_at"]

    @extend_schema(responses=HeartbeatSerializer(many=True))
    @action(detail=False, methods=["get"])
    def heartbeats(self, request: Request) -> Response:
        """Each device's last heartbeat, live from the store (filters as for the list)."""
        devices = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        now = timezone.now()
        rows = [heartbeat_of(device, now) for device in seen_attach(devices)]
        return self.get_paginated_response(HeartbeatSerializer(rows, many=True).data)

    @extend_schema(request=OutOfOrderSerializer, responses=DeviceSerializer)
    @action(detail=True, methods=["post"], url_path="out-of-order")
    @write(key_required=False)
    def out_of_order(self, request: Request, pk: str) -> Response:
        """Mark the device out of order, saying why (its table feels what it serves)."""
        given = OutOfOrderSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        device = floor_devices.device_out_of_order(
            self.get_object(), given.validated_data["reason"], by=request.user, now=timezone.now()
        )
        return Response(DeviceSerializer(device).data)

    @extend_schema(request=None, responses=DeviceSerializer)
    @action(detail=True, methods=["post"], url_path="return-to-service")
    @write(key_required=False)
    def return_to_service(self, request: Request, pk: str) -> Response:
        """Return the device to service: active again once it is heard from."""
        device = services.device_return_to_service(
            self.get_object(), by=request.user, now=timezone.now()
        )
        return Response(DeviceSerializer(device).data)


class DeviceEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeviceEvent
        fields = ["id", "device", "table", "kind", "at", "detail", "cite", "round", "by"]


class DeviceEventFilter(filters.FilterSet):
    at_after = filters.IsoDateTimeFilter(field_name="at", lookup_expr="gte")
    at_before = filters.IsoDateTimeFilter(field_name="at", lookup_expr="lt")
    table = TableRef()

    class Meta:
        model = DeviceEvent
        fields = ["device", "table", "kind", "round"]


class DeviceEventViewSet(ReadOnly):
    """Every device's history: status changes, reports, faults, consequences."""

    queryset = DeviceEvent.objects.all()
    serializer_class = DeviceEventSerializer
    filterset_class = DeviceEventFilter
    holder_path = "table__holder"
    ordering_fields = ["at", "id"]
