"""api_token_list and api_token_revoke (issue 22): the tokens from the shell, and a
revocation that stops the token at once, the token cache (casino/api/auth.py) and the
floor's cached read included, with an audit entry naming who revoked it."""

from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import CommandError, call_command
from django.utils import timezone

from casino.models import ApiToken, AuditEntry
from casino.services.api_tokens import token_issue, token_revoke
from tests.api.conftest import API, bearer, error_of, integrator_user, operations_user

pytestmark = pytest.mark.django_db


def listed(*args: str) -> list[list[str]]:
    out = StringIO()
    call_command("api_token_list", *args, stdout=out, stderr=StringIO())
    return [line.split("  ") for line in out.getvalue().splitlines()]


def cells(line: list[str]) -> list[str]:
    return [cell.strip() for cell in line if cell.strip()]


def test_the_list_shows_each_token_newest_first(api_floor):
    a, b = api_floor.a.token, api_floor.b.token
    spare, _ = token_issue(
        user=integrator_user(),
        holder=api_floor.a.holder,
        name="old screens",
        by=operations_user(),
        now=api_floor.at,
    )
    token_revoke(spare, by=operations_user(), now=api_floor.at + timedelta(minutes=1))
    rows = [cells(line) for line in listed()]
    assert rows[0] == [
        "id", "key", "name", "user", "holder", "created", "by", "last used", "revoked"
    ]  # fmt: skip
    at = timezone.localtime(api_floor.a.token.created_at).strftime("%Y-%m-%d %H:%M")
    revoked = timezone.localtime(api_floor.at + timedelta(minutes=1)).strftime("%Y-%m-%d %H:%M")
    spare_at = timezone.localtime(api_floor.at).strftime("%Y-%m-%d %H:%M")
    # The floor's two tokens were issued at the same moment; the spare one 20 minutes later.
    assert rows[1] == [
        str(spare.pk), f"cft_{spare.key_id}_…", "old screens", "ian_integrator",
        "Keystone Test Casino", spare_at, "olive_ops", "-", revoked,
    ]  # fmt: skip
    assert sorted(rows[2:]) == sorted(
        [
            [str(t.pk), f"cft_{t.key_id}_…", "floor system", t.user.username, t.holder.name,
             at, "olive_ops", "-", "no"]
            for t in (a, b)
        ]
    )  # fmt: skip
    assert [r[0] for r in map(cells, listed("--active"))][1:] == sorted(
        [str(a.pk), str(b.pk)], key=lambda pk: [r[0] for r in rows].index(pk)
    )
    assert [cells(r)[0] for r in listed("--holder", "Allegheny Test Casino")][1:] == [str(b.pk)]


def test_revoking_by_key_prefix_stops_the_token_at_once_and_is_audited(
    api_floor, django_capture_on_commit_callbacks
):
    key, token = api_floor.a.key, api_floor.a.token
    a = bearer(key)
    # Both ways a token is read: DRF's (TokenAuthentication) and the floor's cached read;
    # twice each, so the token's pass and user are in the cache.
    for _ in range(2):
        assert a.get(f"{API}/tables/").status_code == 200
        assert a.get(f"{API}/floor/").status_code == 200
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("api_token_revoke", f"cft_{token.key_id[:6]}", "--by", "olive_ops", stdout=out)
    assert out.getvalue() == f"{ApiToken.objects.get(pk=token.pk)} revoked by olive_ops\n"
    refused = error_of(a.get(f"{API}/tables/"), 401, "authentication_failed")
    assert refused["detail"] == "the token was revoked"
    error_of(a.get(f"{API}/floor/"), 401, "authentication_failed")
    entry = AuditEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(ApiToken), object_id=str(token.pk)
    ).latest("at", "id")
    assert (entry.action, entry.actor_name, list(entry.after)) == (
        "changed",
        "olive_ops",
        ["revoked_at"],
    )
    assert entry.before == {"revoked_at": None}
    # The other holder's token still works.
    assert bearer(api_floor.b.key).get(f"{API}/tables/").status_code == 200


def test_a_key_prefix_is_found_in_either_case(api_floor):
    """A key id is lowercase hex: one copied by hand in capitals names the same token."""
    token = api_floor.b.token
    named = f"CFT_{token.key_id[:8].upper()}"
    call_command("api_token_revoke", named, "--by", "olive_ops", stdout=StringIO())
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None
    assert ApiToken.objects.get(pk=api_floor.a.token.pk).revoked_at is None


def test_revoking_by_id(api_floor):
    token = api_floor.b.token
    call_command("api_token_revoke", str(token.pk), "--by", "olive_ops", stdout=StringIO())
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None


@pytest.mark.parametrize(
    ("named", "by", "message"),
    [
        ("999999", "olive_ops", "no API token with id 999999"),
        ("cft_zzzzzz", "olive_ops", "no API token whose key starts cft_zzzzzz"),
        ("cft_ab", "olive_ops", "'cft_ab': give at least 4 characters of the key id after cft_"),
        ("floor system", "olive_ops", "name a token by its id (a number) or its key's prefix"),
        ("A", "nobody", "no such user: nobody"),
    ],
)
def test_a_token_or_user_not_found_is_refused_and_nothing_changes(api_floor, named, by, message):
    before = list(ApiToken.objects.values_list("pk", "revoked_at"))
    with pytest.raises(CommandError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        call_command("api_token_revoke", named, "--by", by, stdout=StringIO())
    assert list(ApiToken.objects.values_list("pk", "revoked_at")) == before


def test_revoking_twice_or_without_the_permission_is_refused(api_floor):
    token = api_floor.a.token
    with pytest.raises(CommandError, match="revoke an API token"):
        call_command("api_token_revoke", str(token.pk), "--by", "ian_integrator")
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None
    call_command("api_token_revoke", str(token.pk), "--by", "olive_ops", stdout=StringIO())
    with pytest.raises(CommandError, match="is already revoked"):
        call_command("api_token_revoke", str(token.pk), "--by", "olive_ops")
