"""The compliance officers' email when a set in play becomes due soon or overdue.

The schedule check writes one EquipmentNotice per set and state
(casino/services/equipment.py `notice_record`); beat's `notices_send` sends each that is
pending through Django's email framework (the console in development, SMTP in production:
docs/deploy.md, Email) to every active compliance officer with an address, with a link
to the set's row in the admin. A sender claims a notice for a lease before sending, so two
sweeps at once send it once; a failure leaves it pending for the next sweep. A notice
whose set left play, or a "due soon" whose set is already overdue, is withdrawn unsent.
"""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from casino.models import EquipmentNotice, SetInPlay
from casino.rules.equipment import COMPOSITIONS, DUE_SOON, OVERDUE, schedule_state
from casino.services.equipment import set_limit

log = logging.getLogger(__name__)

# The role that is told (casino/roles.py).
RECIPIENT_GROUP = "compliance"
# How long a sender holds a notice it claimed: longer than the task's time limit
# (workers/tasks.py), so a notice is claimed again only once its sender is surely gone.
LEASE = timedelta(minutes=5)
# At most this many notices a sweep; the rest wait for the next one.
BATCH = 100

SENT, WITHDRAWN, FAILED, TAKEN = "sent", "withdrawn", "failed", "taken"


def notice_recipients() -> list[str]:
    """The addresses of the active compliance officers who have one, each once."""
    users = get_user_model().objects.filter(groups__name=RECIPIENT_GROUP, is_active=True)
    addresses = users.exclude(email="").order_by("email").values_list("email", flat=True)
    return list(dict.fromkeys(address.strip() for address in addresses if address.strip()))


def set_admin_url(set_in_play_id: int) -> str:
    """The absolute address of the set's row in the admin's equipment schedule, where its
    changeout is recorded (CASINO_SITE_URL before it)."""
    path = reverse("admin:casino_setinplay_schedule") + f"#schedule-row-{set_in_play_id}"
    return settings.CASINO_SITE_URL.rstrip("/") + path


def notices_send(now: datetime) -> dict[str, int]:
    """Send every pending notice not claimed by another sender (beat's sweep)."""
    counts = {SENT: 0, WITHDRAWN: 0, FAILED: 0, TAKEN: 0}
    pending = list(
        EquipmentNotice.objects.filter(_sendable(now))
        .order_by("noticed_at", "pk")
        .values_list("pk", flat=True)[:BATCH]
    )
    if not pending:
        return counts
    recipients = notice_recipients()
    for pk in pending:
        counts[notice_send(pk, recipients=recipients, now=now)] += 1
    return counts


def _sendable(now: datetime) -> Q:
    return Q(status=EquipmentNotice.Status.PENDING) & (
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    )


def notice_send(notice_id: int, *, recipients: list[str], now: datetime) -> str:
    """Send one notice to `recipients`: sent, withdrawn, failed (left pending, the error
    kept) or taken (another sender holds it, or it is no longer pending)."""
    # The claim is one conditional update: of two senders, one changes the row.
    claimed = EquipmentNotice.objects.filter(_sendable(now), pk=notice_id).update(
        claimed_until=now + LEASE, attempts=F("attempts") + 1
    )
    if not claimed:
        return TAKEN
    notice = EquipmentNotice.objects.select_related(
        "set_in_play__table", "set_in_play__equipment_set", "set_in_play__put_in_play_by"
    ).get(pk=notice_id)
    row = notice.set_in_play
    withdrawn = _withdrawn_reason(notice, row, now)
    if withdrawn:
        _finish(notice_id, status=EquipmentNotice.Status.WITHDRAWN, withdrawn_reason=withdrawn)
        return WITHDRAWN
    if not recipients:
        return _failed(notice_id, "no active compliance officer has an email address")
    subject, body = notice_message(notice, row)
    try:
        # No database transaction is open here: a slow mail server holds no lock.
        EmailMessage(subject, body, to=recipients).send()
    except Exception as error:  # SMTP, DNS, a refused login: the next sweep tries again
        return _failed(notice_id, f"{type(error).__name__}: {error}")
    _finish(
        notice_id,
        status=EquipmentNotice.Status.SENT,
        sent_at=now,
        recipients="\n".join(recipients),
        last_error="",
    )
    return SENT


def _withdrawn_reason(notice: EquipmentNotice, row: SetInPlay, now: datetime) -> str:
    if row.removed_at is not None:
        return "the set left play before the notice was sent"
    due_at, warn_from, _ = set_limit(row)
    if notice.state == DUE_SOON and schedule_state(due_at, due_at - warn_from, now) == OVERDUE:
        return "the set was overdue before the notice was sent (the overdue notice tells)"
    return ""


def _finish(notice_id: int, **fields: object) -> None:
    EquipmentNotice.objects.filter(pk=notice_id).update(claimed_until=None, **fields)


def _failed(notice_id: int, error: str) -> str:
    EquipmentNotice.objects.filter(pk=notice_id).update(claimed_until=None, last_error=error)
    log.warning("equipment notice %s not sent: %s; the next sweep tries again", notice_id, error)
    return FAILED


def notice_message(notice: EquipmentNotice, row: SetInPlay) -> tuple[str, str]:
    """The email's subject and plain-text body: the set, its table, the time it must be
    (or was to be) out of play with the limit and its section, and the link to its row."""
    due_at, _, limit = set_limit(row)
    table, equipment_set = row.table, row.equipment_set
    what = COMPOSITIONS[row.composition].label if row.composition in COMPOSITIONS else ""
    when = _when(due_at)
    if notice.state == OVERDUE:
        subject = f"Overdue: {equipment_set.identifier} at {table.number}, due out at {when}"
        headline = (
            f"The {what} of set {equipment_set.identifier} at table {table.number} are "
            f"overdue: they were due out of play at {when}. The table starts no round "
            "until they are changed."
        )
    else:
        subject = f"Due soon: {equipment_set.identifier} at {table.number}, out by {when}"
        headline = (
            f"The {what} of set {equipment_set.identifier} at table {table.number} are due "
            f"soon: they must be out of play by {when}."
        )
    by = row.put_in_play_by.get_username() if row.put_in_play_by is not None else "nobody named"
    body = "\n".join(
        [
            headline,
            "",
            f"Limit: {limit}",
            f"In play since {_when(row.put_in_play_at)}, put in by {by}.",
            "",
            f"The set in the admin: {set_admin_url(row.pk)}",
            "",
            "-- ",
            "The casino floor's equipment schedule: sent once for this set and state to "
            "the compliance officers.",
        ]
    )
    return subject, body


def _when(moment: datetime) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M %Z")
