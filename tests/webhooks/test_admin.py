"""Webhooks in the admin: an endpoint registered with its secret shown once, a URL the
server-side request forgery check refuses, a disabled endpoint in red and enabled again,
a delivery with its payload and tries, and "Send again"."""

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from tests.casino.floor_fixtures import compliance, holder_get, operations
from tests.webhooks.fixtures import endpoint_make
from webhooks.delivery import event_fan_out
from webhooks.events import TABLE_STATUS_CHANGED
from webhooks.models import Attempt, Delivery, Endpoint
from webhooks.payloads import event_body
from webhooks.services import event_record

pytestmark = pytest.mark.django_db
URL = "http://127.0.0.1:9/hooks"


def login(client: Client, user: Any) -> Client:
    user.is_staff = True
    user.save()
    client.force_login(user)
    return client


def said(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_operations_register_an_endpoint_and_see_its_secret_once():
    client = login(Client(), operations())
    holder = holder_get()
    response = client.post(
        "/admin/webhooks/endpoint/add/",
        {"holder": holder.pk, "url": URL, "description": "floor system",
         "events": ["round.settled", "settlement.alert"]},
        follow=True,
    )  # fmt: skip
    (message,) = [text for text in said(response) if "shown this once" in text]
    secret = re.search(r"whsec_[A-Za-z0-9+/=]+", message)[0]
    endpoint = Endpoint.objects.get()
    assert (endpoint.url, endpoint.events, endpoint.secret) == (
        URL,
        ["round.settled", "settlement.alert"],
        secret,
    )
    page = client.get(f"/admin/webhooks/endpoint/{endpoint.pk}/change/")
    assert page.status_code == 200 and secret.encode() not in page.content


def test_a_refused_url_is_the_forms_error_and_registers_nothing(settings):
    settings.CASINO_WEBHOOK_ALLOWED_NETWORKS = []
    client = login(Client(), operations())
    response = client.post(
        "/admin/webhooks/endpoint/add/",
        {"holder": holder_get().pk, "url": URL, "events": ["round.settled"]},
    )
    assert response.status_code == 200
    assert "127.0.0.1 is a loopback address" in str(response.context["adminform"].form.errors)
    assert not Endpoint.objects.exists()


def test_a_holder_at_the_most_endpoints_is_the_forms_error_and_registers_nothing(settings):
    settings.CASINO_WEBHOOK_MAX_ENDPOINTS = 1
    holder = holder_get()
    endpoint_make(holder, URL)
    client = login(Client(), operations())
    response = client.post(
        "/admin/webhooks/endpoint/add/",
        {"holder": holder.pk, "url": URL, "events": ["round.settled"]},
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["holder"] == [
        "a certificate holder may have 1 webhook endpoint at most "
        f"(CASINO_WEBHOOK_MAX_ENDPOINTS), and {holder} has 1: delete one it no longer uses first"
    ]
    assert Endpoint.objects.count() == 1


def test_a_disabled_endpoint_is_listed_in_red_and_enabled_again():
    client = login(Client(), operations())
    endpoint, _ = endpoint_make(holder_get(), URL, ["round.settled"])
    Endpoint.objects.filter(pk=endpoint.pk).update(
        active=False, disabled_at=timezone.now(), disabled_reason="40 tries in a row failed",
        failures=40,
    )  # fmt: skip
    listed = client.get("/admin/webhooks/endpoint/?state=disabled")
    assert [e.pk for e in listed.context["cl"].result_list] == [endpoint.pk]
    assert b"#c62828" in listed.content and b"disabled: 40 tries in a row failed" in listed.content
    response = client.post(
        "/admin/webhooks/endpoint/",
        {"action": "enable_again", "_selected_action": [endpoint.pk], "index": 0},
        follow=True,
    )
    assert said(response) == [f"{URL}: active"]
    endpoint.refresh_from_db()
    assert (endpoint.active, endpoint.disabled_at, endpoint.failures) == (True, None, 0)


def delivery_made() -> Delivery:
    holder, now = holder_get(), timezone.now()
    endpoint_make(holder, URL, [TABLE_STATUS_CHANGED])
    event = event_record(TABLE_STATUS_CHANGED, holder_id=holder.pk, data={"table": 1}, now=now)
    event_fan_out(event.pk, body_of=event_body, now=now)
    delivery = Delivery.objects.get()
    Attempt.objects.create(
        delivery=delivery, number=1, at=now, duration_ms=40, status_code=503,
        response="busy", error="", succeeded=False,
    )  # fmt: skip
    Delivery.objects.filter(pk=delivery.pk).update(status="failed", attempts=1)
    return delivery


def test_a_delivery_shows_its_payload_and_tries_and_is_sent_again():
    client = login(Client(), operations())
    delivery = delivery_made()
    page = client.get(f"/admin/webhooks/delivery/{delivery.pk}/change/")
    assert page.status_code == 200
    assert b"table.status_changed" in page.content and b"busy" in page.content
    response = client.post(
        "/admin/webhooks/delivery/",
        {"action": "send_again", "_selected_action": [delivery.pk], "index": 0},
        follow=True,
    )
    assert said(response) == ["Sent 1 delivery(ies) again."]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("pending", 0)


def test_compliance_reads_deliveries_but_may_not_send_one_again():
    client = login(Client(), compliance())
    delivery = delivery_made()
    listed = client.get("/admin/webhooks/delivery/")
    assert listed.status_code == 200
    assert listed.context["action_form"] is None  # no action of theirs: no "Send again"
    assert client.get(f"/admin/webhooks/delivery/{delivery.pk}/change/").status_code == 200


def test_the_floor_page_says_when_an_endpoint_is_disabled():
    client = login(Client(), operations())
    endpoint, _ = endpoint_make(holder_get(), URL, ["round.settled"])
    assert b"webhook endpoint" not in client.get("/floor/").content
    Endpoint.objects.filter(pk=endpoint.pk).update(active=False, disabled_at=timezone.now())
    page = client.get("/floor/").content.decode()
    assert (
        '<a class="webhooks-disabled" href="/admin/webhooks/endpoint/?state=disabled">'
        "1 webhook endpoint disabled</a>"
    ) in page
