"""The admin's History button shows the record's audit trail (issue 22): Django's own page
reads LogEntry, which the services never write, so it said "This object doesn't have a
change history" while the trail (casino/audit.py) held every change."""

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin
from django.test import Client
from django.utils import timezone

from casino.admin.audit import AuditHistory
from casino.audit import AUDITED
from casino.models import ApiToken, CertificateHolder
from casino.services.api_tokens import token_issue, token_revoke
from casino.services.tables import table_suspend
from devices.models import Device
from games.models import LedgerEntry
from tests.casino.floor_fixtures import compliant_table, operations, staff

pytestmark = pytest.mark.django_db


def signed_in(client: Client, user: Any) -> Client:
    user.is_staff = True
    user.save()
    client.force_login(user)
    return client


def rows(html: str) -> list[list[str]]:
    """The History table's rows, each cell's text (a rowspan cell only on its first row)."""
    body = html.split('<div id="change-history"', 1)[1].split("</tbody>", 1)[0]
    found = []
    for row in re.findall(r"<tr class=\"audit-entry-\d+\">(.*?)</tr>", body, re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        found.append([re.sub(r"\s+", " ", cell).strip() for cell in cells])
    return found


def test_a_table_s_history_is_its_audit_trail_newest_first(client: Client):
    now = timezone.now().replace(microsecond=0) - timedelta(hours=1)
    table = compliant_table("sic_bo", number="SB-07", now=now, open_table=True).table
    ops = operations()
    table_suspend(table, by=ops, now=now + timedelta(minutes=5))
    signed_in(client, ops)
    page = client.get(f"/admin/casino/table/{table.pk}/history/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "change history" not in html
    assert "3 audit entries" in html
    opened, suspended = (
        f"{now:%Y-%m-%dT%H:%M:%S}Z",
        f"{now + timedelta(minutes=5):%Y-%m-%dT%H:%M:%S}Z",
    )
    found = [row[1:] for row in rows(html) if len(row) == 6]  # each entry's first row
    assert found == [
        ["olive_ops", "Changed", "status", "open", "suspended"],
        ["olive_ops", "Changed", "status", "closed", "open"],
        ["system", "Created", "id", "", str(table.pk)],
    ]
    more = [row for row in rows(html) if len(row) == 3]  # the entries' other fields, in order
    assert more[:2] == [["status_changed_at", opened, suspended], ["status_changed_at", "", opened]]
    # The model's order, whatever order the database keeps the JSON's keys in.
    assert [row[0] for row in more[2:]] == [
        "holder_id", "number", "game", "variant", "seats", "min_wager", "max_wager",
        "operation", "automated_shaker", "power_odds", "layout_id", "status",
        "status_changed_at", "closed_at",
    ]  # fmt: skip
    assert ["number", "", "SB-07"] in more and ["status", "", "closed"] in more
    assert ">SB-07<" in html  # the breadcrumbs name the record


def test_an_api_token_s_history_shows_its_revocation(client: Client):
    """ApiToken's admin too: the revocation, who and when."""
    holder = CertificateHolder.objects.create(name="History Casino")
    ops = operations()
    at = timezone.now().replace(microsecond=0)
    token, _ = token_issue(
        user=staff("ian_integrator", "integrator"), holder=holder, name="screens", by=ops, now=at
    )
    token_revoke(token, by=ops, now=at + timedelta(minutes=1))
    signed_in(client, ops)
    html = client.get(f"/admin/casino/apitoken/{token.pk}/history/").content.decode()
    assert "2 audit entries" in html
    revoked = f"{at + timedelta(minutes=1):%Y-%m-%dT%H:%M:%S}Z"
    assert next(row[1:] for row in rows(html) if len(row) == 6) == [
        "olive_ops", "Changed", "revoked_at", "", revoked
    ]  # fmt: skip
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None
    # The creation's fields, without the secret's hash (the change form hides it too).
    created = [row[-3] for row in rows(html)[1:]]
    assert "key_id" in created and "key_hash" not in created
    assert token.key_hash not in html


def test_a_user_who_may_not_view_the_record_gets_no_history(client: Client):
    table = compliant_table("sic_bo", number="SB-09", now=timezone.now()).table
    signed_in(client, staff("no_role", None))
    assert client.get(f"/admin/casino/table/{table.pk}/history/").status_code == 403


def test_an_unknown_record_s_history_redirects_as_django_does(client: Client):
    signed_in(client, operations())
    answer = client.get("/admin/casino/table/999999/history/")
    assert (answer.status_code, answer["Location"]) == (302, "/admin/")


def test_every_audited_model_s_admin_shows_its_trail():
    """The models whose saves and deletes write entries (casino.audit.AUDITED, the devices,
    a ledger adjustment): each admin's History is the trail."""
    registered = admin.site._registry
    for model in [*AUDITED, Device, LedgerEntry]:
        assert model in registered, model
        assert isinstance(registered[model], AuditHistory), model
