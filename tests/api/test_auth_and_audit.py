"""Who may call the API, and what every write leaves behind (issue 9).

- API tokens (casino/api/auth.py): `Authorization: Bearer cft_<key id>_<secret>`, bound to
  one certificate holder; a revoked, malformed or unknown token is a 401 at once. Only
  operations issue them (casino.add_apitoken), and only to an integrator.
- Sessions: staff signed in to the admin; an unsafe method needs the CSRF token.
- Failed sign-ins (casino/api/sign_in.py): 5 failures for one username or from one address
  within the window, and every further try is refused, the right password too, at the
  admin's form and at `authenticate()` alike.
- Every write through the API is an ApiWrite (user, token, method, path, body, status,
  answer), refused ones too; a change to a compliance record made through the API is
  audited in the API user's name, never "system"; reads write nothing.

The floor is tests/api/conftest.py's `api_floor`; the cache (the sign-in counts) is
emptied around every sign-in test.
"""

import time
from datetime import timedelta

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory, override_settings
from django.utils import timezone

from casino.models import ApiToken, ApiWrite, AuditEntry, RulesSubmission, Table
from casino.services import FloorRefused
from casino.services.api_tokens import token_issue, token_revoke
from games.models import Round
from tests.api.conftest import (
    API,
    bearer,
    error_of,
    integrator_user,
    new_key,
    post,
    session,
)

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
TOO_MANY = "Too many failed sign-ins for this user or from this address."


# --- tokens -----------------------------------------------------------------------------


def test_a_valid_token_reads_and_is_marked_used(api_floor):
    f = api_floor
    ApiToken.objects.filter(pk=f.a.token.pk).update(last_used_at=None)
    response = bearer(f.a.key).get(f"{API}/tables/{f.a.play.pk}/")
    assert response.status_code == 200
    assert response.json()["number"] == "SB-01"
    assert f.a.key.startswith(f"cft_{f.a.token.key_id}_")
    token = ApiToken.objects.get(pk=f.a.token.pk)
    assert token.last_used_at is not None
    assert timezone.now() - token.last_used_at < timedelta(minutes=1)
    # Only a hash of the secret is kept.
    secret = f.a.key.split("_", 2)[2]
    assert secret not in (token.key_hash, token.key_id)


def test_a_revoked_token_is_refused_at_once(api_floor):
    f = api_floor
    client = bearer(f.a.key)
    assert client.get(f"{API}/tables/").status_code == 200
    token_revoke(f.a.token, by=f.operations, now=timezone.now())

    response = client.get(f"{API}/tables/")

    body = error_of(response, 401, "authentication_failed")
    assert body["detail"] == "the token was revoked"
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    write = post(client, f"{API}/rounds/", {"table": f.idle.pk}, key=new_key())
    error_of(write, 401, "authentication_failed")
    assert not Round.objects.filter(table=f.idle).exists()


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        ("Bearer nonsense", "the token is not of the form cft_<id>_<secret>"),
        ("Bearer cft_", "the token is not of the form cft_<id>_<secret>"),
        ("Bearer abc_0123456789abcdef_secret", "the token is not of the form cft_<id>_<secret>"),
        ("Bearer cft_0123456789abcdef_secret", "unknown token"),
    ],
    ids=["no form", "prefix only", "another prefix", "unknown key id"],
)
def test_a_malformed_or_unknown_token_is_a_401_with_the_error_body(api_floor, header, detail):
    response = Client(headers={"Authorization": header}).get(f"{API}/tables/")
    body = error_of(response, 401, "authentication_failed")
    assert body["detail"] == detail
    assert body["reasons"] == [detail]
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_a_known_key_id_with_the_wrong_secret_is_unknown(api_floor):
    f = api_floor
    wrong = f"cft_{f.a.token.key_id}_not-the-secret"
    body = error_of(bearer(wrong).get(f"{API}/tables/"), 401, "authentication_failed")
    assert body["detail"] == "unknown token"


def test_the_token_of_an_inactive_user_is_refused(api_floor):
    f = api_floor
    get_user_model().objects.filter(pk=f.a.integrator.pk).update(is_active=False)
    body = error_of(bearer(f.a.key).get(f"{API}/tables/"), 401, "authentication_failed")
    assert body["detail"] == "the token's user is inactive"


def test_a_token_for_holder_a_cannot_see_or_play_holder_bs_table(api_floor):
    f = api_floor
    client = bearer(f.a.key)
    error_of(client.get(f"{API}/tables/{f.b.play.pk}/"), 404, "not_found")
    error_of(client.get(f"{API}/rounds/{f.b.round2.pk}/"), 404, "not_found")
    rounds = Round.objects.count()
    opened = post(client, f"{API}/rounds/", {"table": f.b.play.pk}, key=new_key())
    error_of(opened, 404, "not_found")
    wager = {"wagers": [{"player": "cy", "kind": "big", "amount": "10.00"}]}
    placed = post(client, f"{API}/rounds/{f.b.round2.pk}/wagers/", wager, key=new_key())
    error_of(placed, 404, "not_found")
    error_of(post(client, f"{API}/tables/{f.b.play.pk}/suspend/"), 404, "not_found")
    assert Round.objects.count() == rounds
    assert Table.objects.get(pk=f.b.play.pk).status == "open"


def test_a_token_is_issued_only_to_an_integrator(api_floor):
    f = api_floor
    with pytest.raises(FloorRefused) as refused:
        token_issue(user=f.compliance, holder=f.a.holder, name="x", by=f.operations, now=f.at)
    assert refused.value.reasons == ["carl_compliance is not in the integrator role"]
    token, key = token_issue(
        user=integrator_user("ida_integrator"),
        holder=f.b.holder,
        name="pit system",
        by=f.operations,
        now=f.at,
    )
    assert (token.user.username, token.holder_id, token.created_by_id) == (
        "ida_integrator",
        f.b.holder.pk,
        f.operations.pk,
    )
    assert bearer(key).get(f"{API}/tables/").json()["count"] == 1


@pytest.mark.parametrize("issuer", ["compliance", "regulator"])
def test_only_operations_issue_tokens(api_floor, issuer):
    f = api_floor
    tokens = ApiToken.objects.count()
    with pytest.raises(PermissionDenied, match=r"needs casino\.add_apitoken"):
        token_issue(
            user=f.a.integrator, holder=f.a.holder, name="x", by=getattr(f, issuer), now=f.at
        )
    with pytest.raises(PermissionDenied, match=r"needs casino\.add_apitoken"):
        token_issue(user=f.a.integrator, holder=f.a.holder, name="x", by=f.a.integrator, now=f.at)
    assert ApiToken.objects.count() == tokens


# --- sessions and CSRF ------------------------------------------------------------------------


def test_staff_use_the_api_with_their_session(api_floor):
    f = api_floor
    client = session(f.operations)
    assert client.get(f"{API}/tables/").json()["count"] == 5
    response = post(client, f"{API}/tables/{f.a.play.pk}/suspend/")
    assert response.status_code == 200
    assert response.json()["status"] == "suspended"


def test_an_unsafe_method_with_a_session_needs_the_csrf_token(api_floor):
    f = api_floor
    client = session(f.operations, enforce_csrf_checks=True)
    writes = ApiWrite.objects.count()

    response = post(client, f"{API}/tables/{f.a.play.pk}/suspend/")

    body = error_of(response, 403, "permission_denied")
    assert body["detail"] == "CSRF Failed: CSRF cookie not set."
    assert Table.objects.get(pk=f.a.play.pk).status == "open"
    assert ApiWrite.objects.count() == writes
    # With the cookie and the header, the same request goes through.
    request = RequestFactory().get("/")
    token = get_token(request)
    client.cookies["csrftoken"] = request.META["CSRF_COOKIE"]
    done = post(client, f"{API}/tables/{f.a.play.pk}/suspend/", **{"X-CSRFToken": token})
    assert done.status_code == 200, done.content
    assert Table.objects.get(pk=f.a.play.pk).status == "suspended"


def test_a_token_needs_no_csrf_token(api_floor):
    f = api_floor
    client = Client(enforce_csrf_checks=True, headers={"Authorization": f"Bearer {f.a.key}"})
    response = post(client, f"{API}/tables/{f.a.play.pk}/suspend/")
    assert response.status_code == 200, response.content


# --- failed sign-ins ----------------------------------------------------------------------------


@pytest.fixture
def with_passwords(api_floor, empty_cache):
    for staff in (api_floor.operations, api_floor.compliance, api_floor.regulator):
        user = get_user_model().objects.get(pk=staff.pk)  # the module's copies stay as they are
        user.set_password(PASSWORD)
        user.save()
    return api_floor


def sign_in(username: str, password: str, address: str = "10.0.0.1") -> Client:
    """The admin's sign-in form, from `address`; the client, signed in or not."""
    client = Client(REMOTE_ADDR=address)
    client.last = client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password, "next": "/admin/"},
    )
    return client


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def fail_five_times(username: str, address: str = "10.0.0.1") -> None:
    for _ in range(5):
        client = sign_in(username, "wrong password", address)
        assert client.last.status_code == 200
        assert not signed_in(client)
        assert TOO_MANY not in client.last.content.decode()


def test_the_right_password_is_refused_after_five_failures(with_passwords):
    fail_five_times("olive_ops")

    client = sign_in("olive_ops", PASSWORD)

    assert client.last.status_code == 200
    assert not signed_in(client)
    assert TOO_MANY + " Try again in 15 minutes." in client.last.content.decode()
    # The same username from another address: the username's count holds it.
    elsewhere = sign_in("olive_ops", PASSWORD, address="10.9.9.9")
    assert not signed_in(elsewhere)
    assert TOO_MANY in elsewhere.last.content.decode()


def test_four_failures_do_not_lock_and_a_success_starts_the_count_again(with_passwords):
    for _ in range(4):
        sign_in("olive_ops", "wrong password", address="10.0.0.1")
    client = sign_in("olive_ops", PASSWORD, address="10.0.0.2")
    assert client.last.status_code == 302
    assert signed_in(client)
    for _ in range(4):
        sign_in("olive_ops", "wrong password", address="10.0.0.3")
    assert signed_in(sign_in("olive_ops", PASSWORD, address="10.0.0.4"))


def test_another_username_from_another_address_still_signs_in(with_passwords):
    fail_five_times("olive_ops", address="10.0.0.1")

    other = sign_in("carl_compliance", PASSWORD, address="10.0.0.2")

    assert other.last.status_code == 302
    assert other.last["Location"] == "/admin/"
    assert signed_in(other)
    # From the address that failed five times, any username is refused.
    same_address = sign_in("rita_regulator", PASSWORD, address="10.0.0.1")
    assert not signed_in(same_address)
    assert TOO_MANY in same_address.last.content.decode()


def test_authenticate_refuses_too_while_throttled(with_passwords):
    request = RequestFactory().post("/api/login/", REMOTE_ADDR="10.0.0.1")
    assert authenticate(request, username="olive_ops", password=PASSWORD) is not None
    fail_five_times("olive_ops")

    assert authenticate(request, username="olive_ops", password=PASSWORD) is None
    assert authenticate(None, username="olive_ops", password=PASSWORD) is None
    other_address = RequestFactory().post("/api/login/", REMOTE_ADDR="10.7.7.7")
    assert authenticate(other_address, username="olive_ops", password=PASSWORD) is None
    # Another user from another address is not held.
    assert authenticate(other_address, username="carl_compliance", password=PASSWORD) is not None


def test_after_the_window_the_user_signs_in_again(with_passwords):
    with override_settings(CASINO_SIGN_IN_WINDOW_SECONDS=1):
        fail_five_times("olive_ops")
        assert not signed_in(sign_in("olive_ops", PASSWORD))
        time.sleep(2.1)  # past the window (the cache keeps whole seconds)

        client = sign_in("olive_ops", PASSWORD)

    assert client.last.status_code == 302
    assert signed_in(client)


def test_once_the_counts_are_gone_the_user_signs_in_again(with_passwords):
    fail_five_times("olive_ops")
    assert not signed_in(sign_in("olive_ops", PASSWORD))
    cache.clear()  # what the window's end does to the counts
    assert signed_in(sign_in("olive_ops", PASSWORD))


def test_a_failure_on_one_username_is_counted_for_that_username_only(with_passwords):
    for address in ("10.1.0.1", "10.1.0.2", "10.1.0.3", "10.1.0.4", "10.1.0.5"):
        sign_in("olive_ops", "wrong password", address)
    assert not signed_in(sign_in("olive_ops", PASSWORD, "10.1.0.6"))
    assert signed_in(sign_in("carl_compliance", PASSWORD, "10.1.0.6"))
    # The names are counted without regard to case or spaces around them.
    assert TOO_MANY in sign_in(" OLIVE_OPS ", PASSWORD, "10.1.0.7").last.content.decode()


# --- every write recorded, every change audited -----------------------------------------------


def last_write() -> ApiWrite:
    return ApiWrite.objects.order_by("-id").first()


def test_a_successful_write_by_token_is_recorded_with_its_answer(api_floor):
    f = api_floor
    writes = ApiWrite.objects.count()
    body = {"composition": "three_dice", "reason": "schedule", "new_set": f.a.reserve.pk}
    path = f"{API}/tables/{f.a.play.pk}/changeout/"

    response = post(bearer(f.a.key), path, body, key="changeout-1")

    assert response.status_code == 201, response.content
    assert ApiWrite.objects.count() == writes + 1
    row = last_write()
    assert (row.user_id, row.token_id, row.method, row.path) == (
        f.a.integrator.pk,
        f.a.token.pk,
        "POST",
        path,
    )
    assert row.body == body
    assert (row.idempotency_key, row.status_code, row.response) == (
        "changeout-1",
        201,
        response.json(),
    )


REFUSED_WRITES = [
    # (who, the path and body for the floor, the status)
    ("integrator", lambda f: (f"tables/{f.a.play.pk}/open/", None), 422),
    ("integrator", lambda f: (f"tables/{f.b.play.pk}/suspend/", None), 404),
    ("integrator", lambda f: (f"tables/{f.a.play.pk}/changeout/", {"reason": "schedule"}), 400),
    ("regulator", lambda f: (f"tables/{f.a.play.pk}/suspend/", None), 403),
    ("compliance", lambda f: ("rounds/", {"table": f.idle.pk}), 403),
    ("operations", lambda f: (f"rules-submissions/{f.pending_submission.pk}/approve/", {}), 403),
]


@pytest.mark.parametrize(
    ("who", "request_of", "status"),
    REFUSED_WRITES,
    ids=[
        "422 refused",
        "404 other holder",
        "400 invalid",
        "403 regulator",
        "403 compliance",
        "403 operations approving",
    ],
)
def test_each_refused_write_is_recorded_with_its_refusal(api_floor, who, request_of, status):
    f = api_floor
    path, body = request_of(f)
    url = f"{API}/{path}"
    client = bearer(f.a.key) if who == "integrator" else session(getattr(f, who))
    user = f.a.integrator if who == "integrator" else getattr(f, who)
    writes, audit = ApiWrite.objects.count(), AuditEntry.objects.count()

    response = post(client, url, body, key=new_key())

    assert response.status_code == status, response.content
    assert ApiWrite.objects.count() == writes + 1
    row = last_write()
    assert (row.user_id, row.method, row.path, row.status_code) == (user.pk, "POST", url, status)
    assert row.token_id == (f.a.token.pk if who == "integrator" else None)
    assert row.body == (body or {})
    assert row.response == response.json()
    assert row.response["status"] == status
    # A refusal changes no compliance record.
    assert AuditEntry.objects.count() == audit


def test_approving_a_submission_through_the_api_is_audited_as_the_api_user(api_floor):
    f = api_floor
    response = post(
        session(f.compliance), f"{API}/rules-submissions/{f.pending_submission.pk}/approve/", {}
    )
    assert response.status_code == 200, response.content
    entry = AuditEntry.objects.filter(
        content_type__model="rulessubmission", object_id=str(f.pending_submission.pk)
    ).latest("id")
    assert (entry.action, entry.actor_id, entry.actor_name) == (
        "changed",
        f.compliance.pk,
        "carl_compliance",
    )
    assert (entry.before["status"], entry.after["status"]) == ("submitted", "approved")
    assert RulesSubmission.objects.get(pk=f.pending_submission.pk).decided_by_id == f.compliance.pk


def test_opening_a_table_by_token_is_audited_as_the_tokens_user_not_system(api_floor):
    f = api_floor
    response = post(bearer(f.a.key), f"{API}/tables/{f.closed.pk}/open/")
    assert response.status_code == 200, response.content
    entry = AuditEntry.objects.filter(
        content_type__model="table", object_id=str(f.closed.pk)
    ).latest("id")
    assert (entry.action, entry.actor_id, entry.actor_name) == (
        "changed",
        f.a.integrator.pk,
        "ian_integrator",
    )
    assert (entry.before["status"], entry.after["status"]) == ("closed", "open")


def test_a_changeout_by_token_is_audited_as_the_tokens_user(api_floor):
    f = api_floor
    body = {"composition": "three_dice", "reason": "schedule", "new_set": f.a.reserve.pk}
    last = AuditEntry.objects.order_by("-id").first().pk
    response = post(bearer(f.a.key), f"{API}/tables/{f.a.play.pk}/changeout/", body)
    assert response.status_code == 201, response.content
    entries = list(AuditEntry.objects.filter(id__gt=last).select_related("content_type"))
    assert {(e.actor_id, e.actor_name) for e in entries} == {(f.a.integrator.pk, "ian_integrator")}
    assert {e.content_type.model for e in entries} >= {"setinplay", "equipmentset"}


@pytest.mark.parametrize("who", ["operations", "regulator", "integrator"])
def test_reads_write_nothing(api_floor, who):
    f = api_floor
    client = bearer(f.a.key) if who == "integrator" else session(getattr(f, who))
    ApiToken.objects.filter(pk=f.a.token.pk).update(last_used_at=timezone.now())
    writes, audit = ApiWrite.objects.count(), AuditEntry.objects.count()
    for path in (
        "tables/",
        f"tables/{f.a.play.pk}/",
        "rounds/",
        "wagers/",
        "ledger-entries/",
        "floor/",
        "par/sic_bo/",
        "devices/heartbeats/",
        "api-writes/",
    ):
        assert client.get(f"{API}/{path}").status_code == 200, path
    assert (ApiWrite.objects.count(), AuditEntry.objects.count()) == (writes, audit)


def test_the_api_writes_list_shows_each_write_to_its_readers(api_floor):
    f = api_floor
    post(bearer(f.a.key), f"{API}/tables/{f.a.play.pk}/suspend/", key="suspend-a")
    rows = session(f.regulator).get(f"{API}/api-writes/", {"idempotency_key": "suspend-a"}).json()
    (row,) = rows["results"]
    assert (row["actor_name"], row["token"], row["method"], row["status_code"]) == (
        "ian_integrator",
        f.a.token.pk,
        "POST",
        200,
    )
    assert row["response"]["status"] == "suspended"
    theirs = bearer(f.b.key).get(f"{API}/api-writes/", {"idempotency_key": "suspend-a"}).json()
    assert theirs["count"] == 0
