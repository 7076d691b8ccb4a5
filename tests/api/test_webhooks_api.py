"""Webhooks through the API (issue 33, part 3): an integrator registers an endpoint and
gets its secret once; a bad URL or an unknown event is a 400 naming the field and writes
nothing; endpoints are changed, paused, enabled again, deleted, their secret rotated; the
deliveries are listed with their answers, filtered, read with their payload and tries,
and sent again; and "round settled" carries exactly what GET /resolutions/?round= shows.
The floor is tests/api/conftest.py's (each holder's endpoint and one pending delivery).
"""

import json
import socket

import pytest
from django.utils import timezone
from standardwebhooks import Webhook

from casino.models import ApiWrite
from tests.api.conftest import API, bearer, error_of, new_key, post, session
from webhooks.delivery import delivery_attempt
from webhooks.models import Attempt, Delivery, Endpoint
from webhooks.sending import Answer

pytestmark = pytest.mark.django_db

ENDPOINTS = f"{API}/webhook-endpoints/"
DELIVERIES = f"{API}/webhook-deliveries/"
URL = "http://127.0.0.1:9/new"


def patch(client, path: str, body: dict, key: str | None = None):
    headers = {"Idempotency-Key": key} if key else {}
    return client.patch(path, json.dumps(body), content_type="application/json", headers=headers)


# --- registering -------------------------------------------------------------------------


def test_an_integrator_registers_an_endpoint_and_sees_its_secret_once(api_floor):
    client, key = bearer(api_floor.a.key), new_key()
    body = {"url": URL, "events": ["table.status_changed", "round.settled"]}
    response = post(client, ENDPOINTS, body, key=key)
    assert response.status_code == 201, response.content
    made = response.json()
    secret = made.pop("secret")
    assert secret.startswith("whsec_") and len(secret) == 6 + 44
    endpoint = Endpoint.objects.get(pk=made["id"])
    assert endpoint.secret == secret
    assert made == {
        "id": endpoint.pk,
        "holder": api_floor.a.holder.pk,  # the token's own
        "url": URL,
        "description": "",
        "events": ["round.settled", "table.status_changed"],  # in the catalogue's order
        "active": True,
        "status": "active",
        "failures": 0,
        "failing_since": None,
        "retry_at": None,
        "disabled_at": None,
        "disabled_reason": "",
        "created_at": made["created_at"],
        "secret_rotated_at": None,
        "previous_secret_until": None,
    }
    # Nowhere else: not in a read, not in the write's record; a replay has null.
    assert "secret" not in client.get(f"{ENDPOINTS}{endpoint.pk}/").json()
    record = ApiWrite.objects.get(idempotency_key=key)
    assert record.response["secret"] is None and secret not in json.dumps(record.response)
    again = post(client, ENDPOINTS, body, key=key)
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json()["secret"] is None and again.json()["id"] == endpoint.pk
    assert Endpoint.objects.filter(url=URL).count() == 1


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"url": "ftp://hooks.example.com/", "events": ["round.settled"]}, "url",
         "the URL must start with https:// or http://"),
        ({"url": "http://10.1.2.3/in", "events": ["round.settled"]}, "url",
         "10.1.2.3 is a private address"),
        ({"url": "http://169.254.169.254/latest/meta-data", "events": ["round.settled"]},
         "url", "169.254.169.254 is a link-local address"),
        ({"url": "http://[::ffff:10.0.0.1]/in", "events": ["round.settled"]}, "url",
         "::ffff:a00:1 (10.0.0.1) is a private address"),
        ({"url": "https://no-such-host.invalid/", "events": ["round.settled"]}, "url",
         "the host no-such-host.invalid does not resolve"),
        ({"url": URL, "events": ["round.setled"]}, "events.0",
         '"round.setled" is not a valid choice.'),
        ({"url": URL, "events": []}, "events", "Ensure this field has at least 1 elements."),
        ({"url": URL}, "events", "This field is required."),
        ({"events": ["round.settled"]}, "url", "This field is required."),
    ],
)  # fmt: skip
def test_a_bad_registration_is_a_400_naming_the_field_and_writes_nothing(
    api_floor, body, field, words, monkeypatch
):
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):  # no network needed: the name is refused here
        if host == "no-such-host.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr("webhooks.sending.socket.getaddrinfo", getaddrinfo)
    before = Endpoint.objects.count()
    response = post(bearer(api_floor.a.key), ENDPOINTS, body, key=new_key())
    refusal = error_of(response, 400, "invalid")
    assert any(words in text for text in refusal["fields"][field]), refusal
    assert Endpoint.objects.count() == before


def test_loopback_is_refused_where_the_setting_does_not_allow_it(api_floor, settings):
    settings.CASINO_WEBHOOK_ALLOWED_NETWORKS = []
    response = post(bearer(api_floor.a.key), ENDPOINTS, {"url": URL, "events": ["round.settled"]})
    assert error_of(response, 400, "invalid")["fields"]["url"] == [
        "127.0.0.1 is a loopback address: a webhook goes only to an address routed on the "
        "internet (CASINO_WEBHOOK_ALLOWED_NETWORKS lists the exceptions)"
    ]
    settings.CASINO_WEBHOOK_HTTPS_ONLY = True
    response = post(bearer(api_floor.a.key), ENDPOINTS, {"url": URL, "events": ["round.settled"]})
    assert error_of(response, 400, "invalid")["fields"]["url"] == [
        "the URL must start with https://"
    ]


def test_staff_name_the_holder_and_a_token_never_registers_for_another(api_floor):
    ops = session(api_floor.operations)
    response = post(ops, ENDPOINTS, {"url": URL, "events": ["round.settled"]})
    assert error_of(response, 400, "invalid")["fields"] == {
        "holder": ["name the certificate holder whose events it receives"]
    }
    made = post(ops, ENDPOINTS, {"holder": api_floor.b.holder.pk, "url": URL,
                                 "events": ["round.settled"]})  # fmt: skip
    assert made.status_code == 201 and made.json()["holder"] == api_floor.b.holder.pk
    other = {"holder": api_floor.b.holder.pk, "url": URL, "events": ["round.settled"]}
    error_of(post(bearer(api_floor.a.key), ENDPOINTS, other), 404, "not_found")
    error_of(post(ops, ENDPOINTS, {**other, "holder": 999999}), 404, "not_found")


def test_a_holder_registers_no_more_than_the_most_endpoints_and_deleting_one_makes_room(
    api_floor, settings
):
    """Each event is POSTed to every endpoint that wants it: the most bounds the POSTs one
    event makes (review finding W3: 25 endpoints at one host, 27 POSTs a settlement)."""
    settings.CASINO_WEBHOOK_MAX_ENDPOINTS = 3
    client, holder = bearer(api_floor.a.key), api_floor.a.holder
    body = {"url": URL, "events": ["round.settled"]}
    while Endpoint.objects.filter(holder=holder).count() < 3:
        assert post(client, ENDPOINTS, body).status_code == 201
    Endpoint.objects.filter(holder=holder).update(active=False)  # paused ones count too
    refusal = error_of(post(client, ENDPOINTS, body, key=new_key()), 422, "refused")
    assert refusal["reasons"] == [
        "holder: a certificate holder may have 3 webhook endpoints at most "
        f"(CASINO_WEBHOOK_MAX_ENDPOINTS), and {holder} has 3: delete one it no longer uses first"
    ]
    assert Endpoint.objects.filter(holder=holder).count() == 3
    other = {"holder": api_floor.b.holder.pk, **body}  # another holder's are its own
    assert post(session(api_floor.operations), ENDPOINTS, other).status_code == 201
    gone = Endpoint.objects.filter(holder=holder).first()
    assert client.delete(f"{ENDPOINTS}{gone.pk}/").status_code == 204
    assert post(client, ENDPOINTS, body).status_code == 201


# --- changing, pausing, enabling again, deleting, rotating ---------------------------------


def test_an_endpoint_is_changed_paused_and_enabled_again_clearing_its_disabling(api_floor):
    client, endpoint = bearer(api_floor.a.key), api_floor.a.webhook_endpoint
    path = f"{ENDPOINTS}{endpoint.pk}/"
    changed = patch(client, path, {"events": ["settlement.alert"], "description": "floor"})
    assert changed.status_code == 200, changed.content
    assert (changed.json()["events"], changed.json()["description"]) == (
        ["settlement.alert"],
        "floor",
    )
    now = timezone.now()
    Endpoint.objects.filter(pk=endpoint.pk).update(
        active=False, disabled_at=now, disabled_reason="12 tries failed", failures=12,
        failing_since=now,
    )  # fmt: skip
    shown = client.get(path).json()
    assert (shown["status"], shown["disabled_reason"]) == ("disabled", "12 tries failed")
    enabled = patch(client, path, {"active": True}).json()
    assert (enabled["status"], enabled["failures"], enabled["disabled_at"]) == ("active", 0, None)
    assert patch(client, path, {"active": False}).json()["status"] == "paused"
    refused = error_of(patch(client, path, {"url": "http://10.0.0.1/"}), 400, "invalid")
    assert "10.0.0.1 is a private address" in refused["fields"]["url"][0]


CHANGE_FIELDS = "(it takes url, events, description, active)"


@pytest.mark.parametrize("given", ["off", "on", "yes", "true", "false", 1, 0, None, [True]])
def test_active_is_a_json_boolean_anything_else_is_a_400_naming_it(api_floor, given):
    """The schema says `boolean`: DRF's BooleanField took "off", "yes", "on" and 1."""
    client, endpoint = bearer(api_floor.a.key), api_floor.a.webhook_endpoint
    before = Endpoint.objects.filter(pk=endpoint.pk).values().get()
    response = patch(client, f"{ENDPOINTS}{endpoint.pk}/", {"active": given})
    refusal = error_of(response, 400, "invalid")
    shown = f'"{given}"' if isinstance(given, str) else repr(given)
    why = "This field may not be null." if given is None else (
        f"must be true or false (a JSON boolean), not {shown}")  # fmt: skip
    assert refusal["fields"] == {"active": [why]}
    assert Endpoint.objects.filter(pk=endpoint.pk).values().get() == before


@pytest.mark.parametrize(
    "body",
    [{"holder": 2}, {"secret": "whsec_abc"}, {"active": False, "secret": "whsec_abc"}],
    ids=["holder", "secret", "with a field it takes"],
)
def test_a_change_naming_a_field_it_does_not_take_is_a_400_naming_each(api_floor, body):
    """`holder` and `secret` were taken and silently ignored: the body is closed, as its
    schema says (additionalProperties: false)."""
    client, endpoint = bearer(api_floor.a.key), api_floor.a.webhook_endpoint
    before = Endpoint.objects.filter(pk=endpoint.pk).values().get()
    refusal = error_of(patch(client, f"{ENDPOINTS}{endpoint.pk}/", body), 400, "invalid")
    unknown = sorted(set(body) - {"active"})
    assert refusal["fields"] == {
        name: [f"is not a field this body takes {CHANGE_FIELDS}"] for name in unknown
    }
    assert Endpoint.objects.filter(pk=endpoint.pk).values().get() == before


def test_a_registration_naming_a_field_it_does_not_take_is_a_400_naming_each(api_floor):
    before = Endpoint.objects.count()
    body = {"url": URL, "events": ["round.settled"], "secret": "whsec_x", "active": False}
    refusal = error_of(post(bearer(api_floor.a.key), ENDPOINTS, body), 400, "invalid")
    why = "is not a field this body takes (it takes holder, url, events, description)"
    assert refusal["fields"] == {"active": [why], "secret": [why]}
    assert Endpoint.objects.count() == before


def test_another_holders_endpoint_is_a_404_for_every_action(api_floor):
    client, theirs = bearer(api_floor.a.key), api_floor.b.webhook_endpoint
    path = f"{ENDPOINTS}{theirs.pk}/"
    error_of(client.get(path), 404, "not_found")
    error_of(patch(client, path, {"active": False}), 404, "not_found")
    error_of(client.delete(path), 404, "not_found")
    error_of(post(client, f"{path}rotate-secret/"), 404, "not_found")
    listed = client.get(ENDPOINTS).json()["results"]
    assert [row["id"] for row in listed] == [api_floor.a.webhook_endpoint.pk]
    assert Endpoint.objects.get(pk=theirs.pk).active


def test_deleting_an_endpoint_deletes_its_deliveries(api_floor):
    client, endpoint = bearer(api_floor.a.key), api_floor.a.webhook_endpoint
    response = client.delete(f"{ENDPOINTS}{endpoint.pk}/")
    assert (response.status_code, response.content) == (204, b"")
    assert not Endpoint.objects.filter(pk=endpoint.pk).exists()
    assert not Delivery.objects.filter(endpoint_id=endpoint.pk).exists()


def test_a_rotation_answers_the_new_secret_once_and_the_old_one_signs_for_a_grace(api_floor):
    client, endpoint = bearer(api_floor.a.key), api_floor.a.webhook_endpoint
    old = endpoint.secret
    key = new_key()
    rotated = post(client, f"{ENDPOINTS}{endpoint.pk}/rotate-secret/", key=key)
    assert rotated.status_code == 200, rotated.content
    secret = rotated.json()["secret"]
    endpoint.refresh_from_db()
    assert (endpoint.secret, endpoint.previous_secret) == (secret, old)
    assert rotated.json()["previous_secret_until"] is not None
    assert ApiWrite.objects.get(idempotency_key=key).response["secret"] is None


# --- deliveries -----------------------------------------------------------------------------


def test_deliveries_are_listed_with_their_answers_and_filtered(api_floor, monkeypatch):
    client, delivery = bearer(api_floor.a.key), api_floor.a.webhook_delivery
    monkeypatch.setattr(
        "webhooks.delivery.post",
        lambda url, body, headers: Answer(500, "the receiver broke", "", 12),
    )
    delivery_attempt(delivery.pk, now=timezone.now())
    listed = client.get(DELIVERIES).json()["results"]
    assert [row["id"] for row in listed] == [delivery.pk]  # its own holder's only
    (row,) = listed
    assert (row["event_type"], row["status"], row["attempts"]) == ("round.settled", "pending", 1)
    assert (row["last_status_code"], row["last_response"]) == (500, "the receiver broke")
    assert row["message_id"] == delivery.event.message_id
    for query, found in (
        ("status=pending", [delivery.pk]),
        ("status=delivered", []),
        ("event_type=round.settled", [delivery.pk]),
        ("event_type=table.status_changed", []),
        (f"endpoint={delivery.endpoint_id}", [delivery.pk]),
    ):
        assert [r["id"] for r in client.get(f"{DELIVERIES}?{query}").json()["results"]] == found
    refused = error_of(client.get(f"{DELIVERIES}?event_type=round.setled"), 400, "invalid")
    assert "event_type" in refused["fields"]
    one = client.get(f"{DELIVERIES}{delivery.pk}/").json()
    assert one["tries"] == [
        {
            "number": 1,
            "at": one["tries"][0]["at"],
            "duration_ms": 12,
            "status_code": 500,
            "response": "the receiver broke",
            "error": "",
            "succeeded": False,
        }
    ]
    assert one["payload"]["type"] == "round.settled"
    error_of(client.get(f"{DELIVERIES}{api_floor.b.webhook_delivery.pk}/"), 404, "not_found")


def test_a_delivery_is_sent_again_through_the_api(api_floor):
    client, delivery = bearer(api_floor.a.key), api_floor.a.webhook_delivery
    Delivery.objects.filter(pk=delivery.pk).update(status="failed", attempts=12)
    response = post(client, f"{DELIVERIES}{delivery.pk}/send-again/", key=new_key())
    assert response.status_code == 200, response.content
    assert (response.json()["status"], response.json()["attempts"]) == ("pending", 0)
    Endpoint.objects.filter(pk=delivery.endpoint_id).update(active=False)
    refused = error_of(post(client, f"{DELIVERIES}{delivery.pk}/send-again/"), 422, "refused")
    assert refused["reasons"] == [
        f"delivery {delivery.pk}: its endpoint http://127.0.0.1:9/hooks is paused: enable it first"
    ]


def test_round_settled_carries_exactly_what_the_api_shows(api_floor, monkeypatch):
    client, delivery = bearer(api_floor.a.key), api_floor.a.webhook_delivery
    round_ = api_floor.a.round1
    sent = []
    monkeypatch.setattr(
        "webhooks.delivery.post",
        lambda url, body, headers: sent.append((body, headers)) or Answer(204, "", "", 3),
    )
    assert delivery_attempt(delivery.pk, now=timezone.now()) == "delivered (204)"
    ((body, headers),) = sent
    payload = Webhook(delivery.endpoint.secret).verify(body, headers)
    resolutions = client.get(f"{API}/resolutions/?round={round_.pk}").json()["results"]
    assert resolutions and payload["data"]["resolutions"] == resolutions
    rounds = client.get(f"{API}/rounds/?table={round_.table_id}").json()["results"]
    assert payload["data"]["round"] == next(r for r in rounds if r["id"] == round_.pk)
    assert (payload["type"], payload["data"]["round"]["status"]) == ("round.settled", "settled")
    assert Attempt.objects.get(delivery=delivery).succeeded
