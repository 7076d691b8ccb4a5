"""A round waiting on a device: the Pai Gow generator's starting number, an automated Sic
Bo shaker's dice (devices/rules.py `WAITS` says which device gives which step, and the ways
out the rules allow when it does not).

From "no more bets" the round waits; CASINO_DEVICE_WAIT_SECONDS later it is an alert at its
table, naming the device and the ways out: on the floor page and in GET /api/v1/floor/
(`device_wait`, read with the round in progress, in no query of its own), on the round in
the API and the admin, and recorded once as the device's event `round_waiting`, raised by
beat's `monitoring.device_waits_check` (`device_waits_check`, `wait_alert_raise`). The alert
ends when the round moves on (the device's report, the dealer's step, a void): it is read
from the round as it stands, never cleared by hand.

Nothing here moves a round: the ways out are the round flow's (a void, gaming/rounds.py) and
the registry's (a device out of order, gaming/devices.py).
"""

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q

from devices import rules
from devices.gates import DevicesNow, devices_now
from devices.models import Device, DeviceEvent
from games import flow
from games.models import Round, RoundEvent
from games.services.round_state import round_locked_at
from webhooks.services import round_waiting_record

Status = Round.Status
_DEVICE_STATUS = dict(Device.Status.choices)


@dataclass(frozen=True)
class WaitedDevice:
    """The device a round waits on, as the alert names it."""

    id: int
    serial: str
    status: str

    @property
    def status_display(self) -> str:
        """Its status in words."""
        return _DEVICE_STATUS.get(self.status, self.status)


@dataclass(frozen=True)
class Waiting:
    """A round waiting on its device since "no more bets"; an alert from `alert_at`."""

    round_id: int
    round_number: int
    table_id: int
    table_number: str
    wait: rules.Wait
    device: WaitedDevice | None
    since: datetime
    seconds: int  # CASINO_DEVICE_WAIT_SECONDS when it was read
    ways_out: tuple[rules.WayOut, ...]

    @property
    def alert_at(self) -> datetime:
        """When the wait becomes an alert."""
        return self.since + timedelta(seconds=self.seconds)

    def alert(self, now: datetime) -> bool:
        """Whether it has waited long enough to be an alert at `now`."""
        return now >= self.alert_at

    @property
    def what(self) -> str:
        """The device, the step it has not given, and its status unless it is active."""
        device = self.device
        who = f"The {self.wait.label}" + (f" {device.serial}" if device else "")
        state = (
            ""
            if device is None or device.status == rules.ACTIVE
            else f" It is {device.status_display.lower()}."
        )
        return (
            f"{who} at {self.table_number} has not given {self.wait.step} of round "
            f"{self.round_number} ({self.wait.cite}).{state}"
        )

    @property
    def guidance(self) -> str:
        """The alert in words: what it waits for, and what the rules allow."""
        ways = " Or: ".join(way.text for way in self.ways_out)
        return f"{self.what} The rules allow: {ways}"


def wait_seconds() -> int:
    """CASINO_DEVICE_WAIT_SECONDS: how long a round waits on a device before the alert."""
    return settings.CASINO_DEVICE_WAIT_SECONDS


def waiting_of(
    *,
    round_id: int,
    round_number: int,
    table_id: int,
    table_number: str,
    game: str,
    options: Mapping[str, object],
    status: str,
    closed_at: datetime | None,
    ended: bool,
    device_of: Callable[[str], WaitedDevice | None],
) -> Waiting | None:
    """The round's wait on a device, from its values (the floor snapshot's and the round's):
    None unless wagering has closed, its options give the next step to a device, and neither
    that step (`ended`: one of the wait's events recorded) nor the dealer has taken it.
    `device_of(kind)`: the table's device of that kind."""
    if status != Status.CLOSED or closed_at is None:
        return None
    wait = rules.round_wait(game, options)
    if wait is None:
        return None
    device = device_of(wait.kind)
    if not rules.still_waiting(wait, options, device.status if device else None, ended=ended):
        return None
    return Waiting(
        round_id=round_id,
        round_number=round_number,
        table_id=table_id,
        table_number=table_number,
        wait=wait,
        device=device,
        since=closed_at,
        seconds=wait_seconds(),
        ways_out=rules.ways_out(wait, options),
    )


def round_waiting(
    round_: Round,
    devices: DevicesNow | None = None,
    recorded: Callable[[], Collection[str]] | None = None,
) -> Waiting | None:
    """What the round waits on now, if a device: nothing read unless wagering has closed and
    its options give the step to a device; then its table's devices (`devices`, read here
    unless given) and which of ENDS_IN_PLAY it has recorded (`recorded()`, else from its
    prefetched events or a query)."""
    if round_.status != Status.CLOSED:
        return None
    wait = rules.round_wait(round_.game, round_.options)
    if wait is None:
        return None
    if recorded is not None:
        events = recorded()
    else:
        prefetched = getattr(round_, "_prefetched_objects_cache", {}).get("events")
        if prefetched is not None:
            events = {event.event for event in prefetched}
        else:
            events = set(round_.events.filter(event__in=wait.ends).values_list("event", flat=True))
    if devices is None:
        devices = devices_now(round_)
    table = round_.table
    return waiting_of(
        round_id=round_.pk,
        round_number=round_.number,
        table_id=table.pk,
        table_number=table.number,
        game=round_.game,
        options=round_.options,
        status=round_.status,
        closed_at=round_.closed_at,
        ended=bool(wait.ends.intersection(events)),
        device_of=lambda kind: waited_device(devices, kind),
    )


def waited_device(devices: DevicesNow, kind: str) -> WaitedDevice | None:
    """The table's device of `kind` in service, else its last one retired (what the round
    waited on), else None."""
    found = devices.of(kind) or devices.retired.get(kind)
    return None if found is None else WaitedDevice(found.pk, found.serial_number, found.status)


# The events that end a wait but leave the round "no more bets" (the generator's number,
# the deal): the others end the round too, and its status says so. Event names are each
# game's own, so one list serves every game.
ENDS_IN_PLAY = tuple(
    sorted(set().union(*(wait.ends - flow.ENDS_ROUND[wait.game] for wait in rules.WAITS.values())))
)


@functools.cache
def ended_annotation() -> Exists:
    """Whether an event that ends its wait while the round stays "no more bets" is recorded,
    as an expression on a round: the floor snapshot reads it with the rounds in progress, in
    no query of its own, and beat's check filters on it. Built once a process (a query
    resolves a copy of it)."""
    return Exists(RoundEvent.objects.filter(round=OuterRef("pk"), event__in=ENDS_IN_PLAY))


def waits_q(before: datetime) -> Q:
    """The rounds that wait on a device since "no more bets" at `before` or earlier, in SQL:
    wagering closed by then, options that give the step to a device (each wait's `when`),
    none of ENDS_IN_PLAY recorded, and the device not one whose step the rules hand to the
    dealer (`rules.dealer_step`, asked of the table's device in service). What
    `round_waiting` decides for one round, for beat to find the few worth a lock."""
    applies = Q()
    for wait in rules.WAITS.values():
        name, value = wait.when
        device = Exists(
            Device.objects.filter(
                table=OuterRef("table"),
                kind=wait.kind,
                status__in=[s for s in rules.STATUSES if s not in wait.dealer_when],
            )
        )
        # The dealer's step needs a device in dealer_when (or none in service: retired) and,
        # where the wait names one, the Rules Submission's option.
        device_holds = device
        if wait.dealer_option:
            device_holds = device | ~Q(**{f"options__{wait.dealer_option}": True})
        applies |= Q(game=wait.game, **{f"options__{name}": value}) & device_holds
    return Q(status=Status.CLOSED, closed_at__lte=before) & applies & ~Q(ended_annotation())


def waiting_data(waiting: Waiting, now: datetime) -> dict[str, Any]:
    """The wait as the API, the floor snapshot and the alert's event show it (times as
    datetimes: each surface writes them its own way)."""
    device = waiting.device
    return {
        "round": {"id": waiting.round_id, "number": waiting.round_number},
        "kind": waiting.wait.kind,
        "kind_display": waiting.wait.label,
        "device": None
        if device is None
        else {
            "id": device.id,
            "serial": device.serial,
            "status": device.status,
            "status_display": device.status_display,
        },
        "report": waiting.wait.report,
        "step": waiting.wait.step,
        "cite": waiting.wait.cite,
        "since": waiting.since,
        "alert_at": waiting.alert_at,
        "alert": waiting.alert(now),
        "ways_out": [
            {"way": way.way, "section": way.section, "text": way.text} for way in waiting.ways_out
        ],
        "guidance": waiting.guidance,
    }


# --- the alert, raised once ------------------------------------------------------------------


def wait_alert_raise(round_id: int, now: datetime) -> Waiting | None:
    """Raise the alert of a round that has waited on its device too long, once: the device's
    event `round_waiting` (unique per round), under the round's lock so a report landing at
    the same moment either comes first (no alert) or after. The wait when this call raised
    it, else None.

    The one place the alert is raised: what else announces it (a webhook's
    `round.waiting_on_device`) is recorded here, in the same transaction."""
    with transaction.atomic():
        try:
            round_ = round_locked_at(round_id, None)
        except Round.DoesNotExist:
            return None
        waiting = round_waiting(round_)
        # A wait with no device to name does not arise: a round waits only where its options
        # give the step to a device, a table whose Rules Submission gives it to the generator
        # alone neither opens nor starts a round without it active (devices.rules `needs`,
        # blocks_rounds), a Sic Bo round uses the automated shaker only while it is in use as
        # it opens (devices.gates `round_shaker`), and a device is never deleted (its events
        # protect it; the admin only reads it): retired, it is still the one named.
        if waiting is None or not waiting.alert(now) or waiting.device is None:
            return None
        try:
            with transaction.atomic():
                DeviceEvent.objects.create(
                    device_id=waiting.device.id,
                    table_id=waiting.table_id,
                    kind=DeviceEvent.Kind.ROUND_WAITING,
                    at=now,
                    detail=waiting.guidance,
                    cite=waiting.wait.cite,
                    round_id=waiting.round_id,
                )
        except IntegrityError:
            return None  # raised already
        # Raised now, once: its webhook is written here, in this transaction.
        round_waiting_record(table=round_.table, wait=waiting_data(waiting, now), now=now)
        return waiting


def device_waits_check(now: datetime) -> list[int]:
    """Beat's look for rounds waiting on a device past CASINO_DEVICE_WAIT_SECONDS since "no
    more bets" with no alert yet: found in SQL (`waits_q`), so only those are locked, each
    raised once (`wait_alert_raise`, which decides again under the lock). The rounds raised."""
    alerted = DeviceEvent.objects.filter(round=OuterRef("pk"), kind=DeviceEvent.Kind.ROUND_WAITING)
    due = (
        Round.objects.filter(waits_q(now - timedelta(seconds=wait_seconds())))
        .exclude(Exists(alerted))
        .order_by("closed_at")
        .values_list("pk", flat=True)
    )
    return [pk for pk in due if wait_alert_raise(pk, now) is not None]
