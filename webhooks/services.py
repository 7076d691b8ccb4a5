"""Recording an event in the caller's transaction (the outbox), and an integrator's
endpoints: register, change, delete, rotate the secret.

`event_record` is the one way an event is written: by the code that makes it true, in its
transaction, so an event rolled back is never sent and an event committed is never lost
(the fan-out is published on commit; the sweep sends it again if that message is lost).
It writes nothing when no active endpoint of the certificate holder wants the type: a floor
nobody listens to keeps no outbox. A round's settlement, the floor's hot path, asks the
same question inside its own statements on PostgreSQL (`subscribed_sql`, `event_insert_sql`).
"""

import base64
import json
import logging
import secrets
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, connection, transaction

from casino.models import CertificateHolder, Table
from casino.services.errors import FloorRefused, by_actor, permission_check
from webhooks.events import (
    EVENT_TYPES,
    ROUND_WAITING_ON_DEVICE,
    names_unknown,
    round_waiting_data,
)
from webhooks.models import Endpoint, Event
from webhooks.sending import url_refusals

FAN_OUT_TASK = "webhooks.event_fan_out"
DELIVER_TASK = "webhooks.delivery_send"
QUEUE = "webhooks"
ADD, CHANGE, DELETE = (
    "webhooks.add_endpoint",
    "webhooks.change_endpoint",
    "webhooks.delete_endpoint",
)
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32  # Standard Webhooks: 24 to 64
log = logging.getLogger(__name__)


def tasks_send(name: str, ids: Iterable[int]) -> int:
    """Publish one task per id on the webhooks queue; a broker that is down is logged, not
    raised (the sweep sends it again): the caller's work has committed."""
    sent = 0
    for pk in ids:
        try:
            current_app.send_task(name, args=[pk], queue=QUEUE)
            sent += 1
        except Exception as error:
            log.warning("%s(%s) not sent (%s); the sweep will", name, pk, error)
    return sent


def subscribed(holder_id: int, event_type: str) -> bool:
    """Whether an active endpoint of this certificate holder wants this event type."""
    wanted = Endpoint.objects.filter(holder_id=holder_id, active=True).values_list(
        "events", flat=True
    )
    return any(event_type in events for events in wanted)


def event_record(
    event_type: str,
    *,
    data: dict[str, Any],
    now: datetime,
    table: Table | None = None,
    holder_id: int | None = None,
    key: str | None = None,
) -> Event | None:
    """Write the event in the caller's transaction, for `table`'s certificate holder (or
    `holder_id`), and fan it out once that commits; None when no endpoint wants it, or
    when an event with this `key` was written before (one event for one occurrence)."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"no webhook event type {event_type!r}; these are: {list(EVENT_TYPES)}")
    holder = table.holder_id if table is not None else holder_id
    if holder is None:
        raise ValueError("an event belongs to a certificate holder: give its table or holder")
    if not subscribed(holder, event_type):
        return None
    event = Event(
        event_type=event_type, holder_id=holder, table=table, occurred_at=now, data=data, key=key
    )
    if key is None:
        event.save()
    else:
        try:
            with transaction.atomic():  # a savepoint: a key taken rolls back this row alone
                event.save()
        except IntegrityError:
            return None
    fan_out_on_commit(event.pk)
    return event


def fan_out_on_commit(event_id: int) -> None:
    """Publish the event's fan-out once the transaction that wrote it commits."""
    transaction.on_commit(lambda: tasks_send(FAN_OUT_TASK, [event_id]))


def round_waiting_record(*, table: Table, wait: Mapping[str, Any], now: datetime) -> Event | None:
    """round.waiting_on_device, written in the transaction that raises the round's alert;
    once for one wait (a check that finds the round still waiting writes nothing more).
    `wait`: the wait as the API shows it (gaming/waits.py `waiting_data`)."""
    data = round_waiting_data(table=table.pk, table_number=table.number, game=table.game, wait=wait)
    key = f"{ROUND_WAITING_ON_DEVICE}:{data['round']}:{data['since']}"
    return event_record(ROUND_WAITING_ON_DEVICE, table=table, data=data, now=now, key=key)


# --- the settlement's statements on PostgreSQL (games/services/settlement.py) ------------


def subscribed_sql(event_type: str, table_id: str) -> str:
    """An SQL boolean: an active endpoint of the holder of the table whose id is the SQL
    expression `table_id` wants `event_type` (PostgreSQL; a constant type, never input)."""
    if event_type not in EVENT_TYPES:
        raise ValueError(event_type)
    quote = connection.ops.quote_name
    endpoint, table = Endpoint._meta, Table._meta
    wanted = json.dumps([event_type])
    return (
        f"EXISTS (SELECT 1 FROM {quote(endpoint.db_table)} w"
        f" JOIN {quote(table.db_table)} t"
        f" ON t.{quote(table.get_field('holder').column)} ="
        f" w.{quote(endpoint.get_field('holder').column)}"
        f" WHERE t.{quote(table.pk.column)} = {table_id}"
        f" AND w.{quote(endpoint.get_field('active').column)}"
        f" AND w.{quote(endpoint.get_field('events').column)} @> '{wanted}'::jsonb)"
    )


@cache
def event_insert_sql(event_type: str) -> str:
    """A data-modifying CTE, `recorded`, that writes one event of `event_type` at a table,
    RETURNING its id: parameters (uid, occurred_at, data as JSON text, table id)."""
    if event_type not in EVENT_TYPES:
        raise ValueError(event_type)
    quote = connection.ops.quote_name
    event, table = Event._meta, Table._meta

    def column(name: str) -> str:
        return quote(event.get_field(name).column)

    names = ", ".join(
        column(name)
        for name in ("uid", "event_type", "holder", "table", "occurred_at", "data", "body")
    )
    return (
        f"recorded AS (INSERT INTO {quote(event.db_table)} ({names})"
        f" SELECT %s, '{event_type}', t.{quote(table.get_field('holder').column)},"
        f" t.{quote(table.pk.column)}, %s, %s::jsonb, ''"
        f" FROM {quote(table.db_table)} t WHERE t.{quote(table.pk.column)} = %s"
        f" RETURNING {quote(event.pk.column)})"
    )


# --- endpoints --------------------------------------------------------------------------


def secret_new() -> str:
    """A signing secret as Standard Webhooks writes it: whsec_ and base64 of 32 bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def endpoint_refusals(*, url: str | None = None, events: object = None) -> dict[str, list[str]]:
    """What is wrong with an endpoint's URL (resolved and checked: webhooks/addresses.py)
    and its events, by field; empty when nothing is."""
    refusals: dict[str, list[str]] = {}
    if url is not None and (reasons := url_refusals(url)):
        refusals["url"] = reasons
    if events is not None:
        reasons = []
        if not isinstance(events, list) or not events:
            reasons.append(f"name one or more event types: {', '.join(EVENT_TYPES)}")
        elif unknown := names_unknown(events):
            reasons.append(
                f"no event type {', '.join(map(repr, unknown))}; these are: "
                f"{', '.join(EVENT_TYPES)}"
            )
        if reasons:
            refusals["events"] = reasons
    return refusals


def _refused(action: str, refusals: dict[str, list[str]]) -> None:
    if refusals:
        raise FloorRefused(
            action, [f"{field}: {reason}" for field, texts in refusals.items() for reason in texts]
        )


def endpoint_count_refusal(holder: CertificateHolder) -> str | None:
    """Why `holder` may register no other endpoint (it has CASINO_WEBHOOK_MAX_ENDPOINTS,
    paused and disabled ones counted: each may be enabled again), or None."""
    most = settings.CASINO_WEBHOOK_MAX_ENDPOINTS
    held = Endpoint.objects.filter(holder=holder).count()
    if held < most:
        return None
    return (
        f"a certificate holder may have {most} webhook endpoint{'s' * (most != 1)} at most "
        f"(CASINO_WEBHOOK_MAX_ENDPOINTS), and {holder} has {held}: delete one it no longer "
        "uses first"
    )


def _events_kept(events: list[str]) -> list[str]:
    return [name for name in EVENT_TYPES if name in set(events)]  # the catalogue's order


@by_actor
def endpoint_register(
    *,
    holder: CertificateHolder,
    url: str,
    events: list[str],
    by: Any,
    now: datetime,
    description: str = "",
) -> tuple[Endpoint, str]:
    """A new endpoint of `holder` for these events, and its signing secret (shown once);
    refused past CASINO_WEBHOOK_MAX_ENDPOINTS (`endpoint_count_refusal`)."""
    permission_check(by, ADD, "register a webhook endpoint")
    action = "Registering a webhook endpoint"
    _refused(action, endpoint_refusals(url=url, events=events))
    secret = secret_new()
    with transaction.atomic():
        # The holder's row locked: two registrations at once count each other.
        CertificateHolder.objects.select_for_update().filter(pk=holder.pk).first()
        if full := endpoint_count_refusal(holder):
            _refused(action, {"holder": [full]})
        endpoint = Endpoint.objects.create(
            holder=holder,
            url=url,
            description=description.strip()[:200],
            events=_events_kept(events),
            secret=secret,
            created_at=now,
            created_by=by if getattr(by, "pk", None) else None,
        )
    return endpoint, secret


@by_actor
def endpoint_update(
    endpoint: Endpoint,
    *,
    by: Any,
    now: datetime,
    url: str | None = None,
    events: list[str] | None = None,
    description: str | None = None,
    active: bool | None = None,
) -> Endpoint:
    """Change what is given. Enabling an endpoint (active) clears what disabled it and its
    failures: its deliveries still pending are sent again by the sweep."""
    permission_check(by, CHANGE, "change a webhook endpoint")
    _refused("Changing a webhook endpoint", endpoint_refusals(url=url, events=events))
    with transaction.atomic():
        endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
        if url is not None:
            endpoint.url = url
        if events is not None:
            endpoint.events = _events_kept(events)
        if description is not None:
            endpoint.description = description.strip()[:200]
        if active is not None:
            if active and not endpoint.active:
                _breaker_clear(endpoint)
            endpoint.active = active
        endpoint.save()
    return endpoint


def _breaker_clear(endpoint: Endpoint) -> None:
    endpoint.failures, endpoint.failing_since, endpoint.retry_at = 0, None, None
    endpoint.disabled_at, endpoint.disabled_reason = None, ""


@by_actor
def endpoint_delete(endpoint: Endpoint, *, by: Any) -> None:
    """Delete the endpoint and its deliveries (the events stay until the retention)."""
    permission_check(by, DELETE, "delete a webhook endpoint")
    endpoint.delete()


@by_actor
def endpoint_secret_rotate(endpoint: Endpoint, *, by: Any, now: datetime) -> tuple[Endpoint, str]:
    """A new signing secret (shown once); the old one signs beside it for
    CASINO_WEBHOOK_ROTATION_GRACE_SECONDS, so the receiver can switch without a gap."""
    permission_check(by, CHANGE, "rotate a webhook endpoint's secret")
    secret = secret_new()
    with transaction.atomic():
        endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
        grace = timedelta(seconds=settings.CASINO_WEBHOOK_ROTATION_GRACE_SECONDS)
        endpoint.previous_secret, endpoint.previous_secret_until = endpoint.secret, now + grace
        endpoint.secret, endpoint.secret_rotated_at = secret, now
        endpoint.save()
    return endpoint, secret


def signing_secrets(endpoint: Endpoint, now: datetime) -> list[str]:
    """The secrets that sign a message now: the current one, and the previous one during
    its grace after a rotation."""
    found = [endpoint.secret]
    until = endpoint.previous_secret_until
    if endpoint.previous_secret and until is not None and now < until:
        found.append(endpoint.previous_secret)
    return found
