"""Webhooks through the API: an integrator's endpoints (register, list, change, delete,
rotate the secret) and their deliveries (listed with their answers, sent again).

A token registers and sees its own certificate holder's endpoints and deliveries only
(another holder's are 404, as everywhere in this API); operations staff manage every
holder's. The signing secret is in the answer to a registration and to a rotation, and
nowhere else, ever: the record of those writes (ApiWrite), and so a replay of the same
Idempotency-Key, has null in its place.
"""

import json
from typing import Any

from django.shortcuts import get_object_or_404
from django.utils import timezone
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api.errors import ApiError
from casino.api.fields import ClosedSerializer, StrictBooleanField
from casino.api.floor import ReadOnly, ScopedViewSet
from casino.api.permissions import scoped, token_holder_id
from casino.api.represent import represented
from casino.api.writes import write
from casino.models import CertificateHolder
from webhooks.delivery import deliveries_send_again
from webhooks.events import EVENT_TYPE_NAMES, EVENT_TYPES
from webhooks.models import ENDPOINT_STATUS_CHOICES, Attempt, Delivery, Endpoint
from webhooks.sending import url_refusals
from webhooks.services import (
    endpoint_delete,
    endpoint_register,
    endpoint_secret_rotate,
    endpoint_update,
)

EVENTS_HELP = "The event types it receives (docs/api.md, Webhooks): " + "; ".join(
    f"`{name}` {kind.sentence}" for name, kind in EVENT_TYPES.items()
)
URL_HELP = (
    "Where each event is POSTed: https:// (http:// too outside production), a host that "
    "resolves only to addresses routed on the internet (no loopback, private, link-local, "
    "multicast or reserved address, unless CASINO_WEBHOOK_ALLOWED_NETWORKS allows it), no "
    "user name or password, no fragment; 1000 characters at most. Redirects are not "
    "followed: answer 2xx at this URL."
)


def event_types_field(**kwargs: Any) -> serializers.ListField:
    """A list of event types, each one of the enum."""
    return serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_TYPE_NAMES),
        min_length=1,
        max_length=len(EVENT_TYPE_NAMES),
        help_text=EVENTS_HELP,
        **kwargs,
    )


def _url_checked(url: str) -> str:
    refusals = url_refusals(url)
    if refusals:
        raise serializers.ValidationError(refusals)
    return url


class WebhookEndpointSerializer(serializers.ModelSerializer):
    events = event_types_field()
    status = serializers.ChoiceField(
        choices=ENDPOINT_STATUS_CHOICES,
        read_only=True,
        help_text="active; failing (its last tries failed: `failures`, `retry_at`); paused "
        "(`active` false); disabled (by the circuit breaker: `disabled_reason`; PATCH "
        '{"active": true} enables it again).',
    )

    class Meta:
        model = Endpoint
        fields = [
            "id",
            "holder",
            "url",
            "description",
            "events",
            "active",
            "status",
            "failures",
            "failing_since",
            "retry_at",
            "disabled_at",
            "disabled_reason",
            "created_at",
            "secret_rotated_at",
            "previous_secret_until",
        ]


class WebhookEndpointSecretSerializer(WebhookEndpointSerializer):
    secret = serializers.CharField(
        allow_null=True,
        help_text="The signing secret (whsec_...), in this answer only: keep it, verify every "
        "message with it (any Standard Webhooks library). Null in an answer replayed for the "
        "same Idempotency-Key: rotate the secret to get a new one.",
    )

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]


class UrlField(serializers.CharField):
    """An endpoint's URL: checked by the server beyond its schema (its form, its scheme, its
    host's addresses once resolved: webhooks/addresses.py), as the schema says."""

    checked_by_server = (
        "The URL's form, its scheme and its host's addresses (resolved) as the description "
        "says; one refused is a 400 `invalid` naming `url`."
    )


class WebhookEndpointInSerializer(ClosedSerializer):
    """An endpoint to register. Any other field is refused, 400 `invalid` naming it."""

    holder = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**62,
        help_text="The certificate holder whose events it receives: a token's own (its "
        "default; another's is a 404); staff name one.",
    )
    url = UrlField(max_length=1000, help_text=URL_HELP)
    events = event_types_field()
    description = serializers.CharField(
        max_length=200, required=False, allow_blank=True, default=""
    )

    def validate_url(self, url: str) -> str:
        return _url_checked(url)


class WebhookEndpointChangeSerializer(ClosedSerializer):
    """What to change of an endpoint. Any other field (its `holder`, its `secret`: rotate-secret/
    gives a new one) is refused, 400 `invalid` naming it."""

    url = UrlField(max_length=1000, required=False, help_text=URL_HELP)
    events = event_types_field(required=False)
    description = serializers.CharField(max_length=200, required=False, allow_blank=True)
    active = StrictBooleanField(
        required=False,
        help_text="false pauses it; true enables it again (a disabled one too: its failures "
        "are forgotten and its pending deliveries sent).",
    )

    def validate_url(self, url: str) -> str:
        return _url_checked(url)


class WebhookEndpointFilter(filters.FilterSet):
    class Meta:
        model = Endpoint
        fields = ["holder", "active"]


def _payload(request: Request) -> dict:
    if not isinstance(request.data, dict):
        raise ApiError(400, "invalid", "the body must be a JSON object")
    return request.data


class EndpointViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, ScopedViewSet
):  # fmt: skip
    """Webhook endpoints: where a certificate holder's events are POSTed, and which."""

    queryset = Endpoint.objects.all()
    serializer_class = WebhookEndpointSerializer
    filterset_class = WebhookEndpointFilter
    holder_path = "holder"
    ordering_fields = ["id", "created_at"]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def _holder(self, holder_id: int | None) -> CertificateHolder:
        """The holder the new endpoint serves: a token's own unless it names it; staff
        name it. One the caller does not see is a 404, as everywhere in this API."""
        own = token_holder_id(self.request)
        if holder_id is None and own is None:
            raise serializers.ValidationError(
                {"holder": ["name the certificate holder whose events it receives"]}
            )
        holders = scoped(CertificateHolder.objects.all(), self.request, "id")
        return get_object_or_404(holders, pk=own if holder_id is None else holder_id)

    def _secret_answer(self, endpoint: Endpoint, secret: str, status: int) -> Response:
        return Response(
            {**represented(WebhookEndpointSerializer, endpoint), "secret": secret}, status
        )

    @extend_schema(
        request=WebhookEndpointInSerializer, responses={201: WebhookEndpointSecretSerializer}
    )
    @write(key_required=False, shown_once=("secret",))
    def create(self, request: Request) -> Response:
        """Register an endpoint for these events; the answer has its signing secret, once.
        A certificate holder has CASINO_WEBHOOK_MAX_ENDPOINTS at most (10 by default, paused
        and disabled ones counted): past it, 422 `refused` naming `holder`."""
        given = WebhookEndpointInSerializer(data=_payload(request))
        given.is_valid(raise_exception=True)
        holder = self._holder(given.validated_data.get("holder"))
        endpoint, secret = endpoint_register(
            holder=holder,
            url=given.validated_data["url"],
            events=given.validated_data["events"],
            description=given.validated_data["description"],
            by=request.user,
            now=timezone.now(),
        )
        return self._secret_answer(endpoint, secret, 201)

    @extend_schema(request=WebhookEndpointChangeSerializer, responses=WebhookEndpointSerializer)
    @write(key_required=False)
    def partial_update(self, request: Request, pk: str) -> Response:
        """Change its URL, events or description; pause it, or enable it again."""
        given = WebhookEndpointChangeSerializer(data=_payload(request))
        given.is_valid(raise_exception=True)
        endpoint = endpoint_update(
            self.get_object(), by=request.user, now=timezone.now(), **given.validated_data
        )
        return Response(represented(WebhookEndpointSerializer, endpoint))

    @extend_schema(request=None, responses={204: None})
    @write(key_required=False)
    def destroy(self, request: Request, pk: str) -> Response:
        """Delete it, with its deliveries."""
        endpoint_delete(self.get_object(), by=request.user)
        return Response(status=204)

    @extend_schema(request=None, responses=WebhookEndpointSecretSerializer)
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    @write(key_required=False, shown_once=("secret",))
    def rotate_secret(self, request: Request, pk: str) -> Response:
        """A new signing secret, in this answer only; the old one signs beside it for
        CASINO_WEBHOOK_ROTATION_GRACE_SECONDS (a day by default), then stops."""
        endpoint, secret = endpoint_secret_rotate(
            self.get_object(), by=request.user, now=timezone.now()
        )
        return self._secret_answer(endpoint, secret, 200)


class WebhookAttemptSerializer(serializers.ModelSerializer):
    class Meta:
        model = Attempt
        fields = ["number", "at", "duration_ms", "status_code", "response", "error", "succeeded"]


class WebhookDeliverySerializer(serializers.ModelSerializer):
    event_type = serializers.ChoiceField(
        source="event.event_type", choices=EVENT_TYPE_NAMES, read_only=True
    )
    message_id = serializers.CharField(
        source="event.message_id", read_only=True, help_text="The webhook-id header it carries."
    )
    occurred_at = serializers.DateTimeField(source="event.occurred_at", read_only=True)

    class Meta:
        model = Delivery
        fields = [
            "id",
            "endpoint",
            "event_type",
            "message_id",
            "occurred_at",
            "status",
            "attempts",
            "created_at",
            "next_attempt_at",
            "last_attempt_at",
            "last_status_code",
            "last_response",
            "last_error",
            "delivered_at",
        ]


class WebhookDeliveryDetailSerializer(WebhookDeliverySerializer):
    payload = serializers.SerializerMethodField(help_text="The body as sent (JSON).")
    tries = WebhookAttemptSerializer(source="attempt_log", many=True, read_only=True)

    class Meta(WebhookDeliverySerializer.Meta):
        fields = [*WebhookDeliverySerializer.Meta.fields, "payload", "tries"]

    def get_payload(self, delivery: Delivery) -> dict[str, Any]:
        return json.loads(delivery.event.body)


class WebhookDeliveryFilter(filters.FilterSet):
    event_type = filters.ChoiceFilter(
        field_name="event__event_type", choices=[(name, name) for name in EVENT_TYPE_NAMES]
    )
    created_after = filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = Delivery
        fields = ["endpoint", "status"]


class DeliveryViewSet(ReadOnly):
    """Each event's delivery to each endpoint, with its answers; send one again."""

    queryset = Delivery.objects.select_related("event")
    filterset_class = WebhookDeliveryFilter
    holder_path = "endpoint__holder"
    ordering_fields = ["id", "created_at", "next_attempt_at"]

    def get_serializer_class(self):
        """The payload and every try on one delivery; the last answer in the list."""
        return (
            WebhookDeliverySerializer if self.action == "list" else WebhookDeliveryDetailSerializer
        )

    def get_queryset(self):
        """Tries fetched with the delivery they belong to."""
        rows = super().get_queryset()
        return rows if self.action == "list" else rows.prefetch_related("attempt_log")

    @extend_schema(request=None, responses=WebhookDeliveryDetailSerializer)
    @action(detail=True, methods=["post"], url_path="send-again")
    @write(key_required=False)
    def send_again(self, request: Request, pk: str) -> Response:
        """Send it again now, whatever became of it (a dead letter too), its tries counted
        afresh; refused (422) while its endpoint is paused or disabled."""
        delivery = self.get_object()
        deliveries_send_again([delivery], by=request.user, now=timezone.now())
        fresh = get_object_or_404(self.get_queryset(), pk=delivery.pk)
        return Response(WebhookDeliveryDetailSerializer(fresh).data)
