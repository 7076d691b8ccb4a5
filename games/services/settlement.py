"""Settling a round: the worker's one transaction.

The request row is locked with SKIP LOCKED, so a second worker handed the same round at
once passes it by, and a request already settled is a no-op: a task delivered twice
settles once. Resolutions (one per wager: a one-to-one), the ledger entry (a unique key),
the round's status and the request's `settled_at` are written together or not at all.

A settlement that fails is recorded on its request in a transaction of its own
(`request_failure_record`): the request is then an alert, and neither the worker nor the
sweep takes it again until a person sends it again from the admin.
"""

import logging
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.db.models import Sum
from django.utils import timezone

from games import flow
from games.models import LedgerEntry, LedgerLine, Resolution, Round, SettlementRequest, Wager
from games.models.outbox import ERROR_LENGTH
from games.replay import Played, rules_hash, state_dumps
from games.services.ledger import Posting, decision_postings, entry_post, house_side
from games.services.round_state import in_play

Account = LedgerLine.Account
Kind = SettlementRequest.FailureKind
ZERO = Decimal("0.00")
log = logging.getLogger(__name__)


class SettlementError(Exception):
    """The round cannot be settled as recorded (never retried: a person looks at it)."""


def round_settle(request_id: int, *, worker: str = "", now: datetime | None = None) -> str:
    """Settle the round of this request once; say what happened."""
    with transaction.atomic():
        # One query: the request locked, its round and the round it continues read with it
        # (only the request is locked: once a result is entered, nothing but its settlement
        # writes the round, and that is behind the request's lock).
        request = (
            SettlementRequest.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("round__previous")
            .filter(pk=request_id)
            .first()
        )
        if request is None:
            exists = SettlementRequest.objects.filter(pk=request_id).exists()
            return "busy: another worker holds it" if exists else "no such request"
        if request.settled_at is not None:
            return "already settled"
        if request.failures:
            # An alert: settling it again would fail again. A person sends it again.
            return "failed before: waiting for a person to send it again"
        round_ = request.round
        if round_.status != Round.Status.RESULT_ENTERED:
            raise SettlementError(f"{round_} is {round_.status}, not awaiting settlement")
        now = now or timezone.now()
        _settle(round_, now)
        request.settled_at, request.settled_by = now, worker[:200]
        request.save(update_fields=["settled_at", "settled_by"])
        return "settled"


def failure_kind(error: BaseException) -> str:
    """What kind of failure this error is, for the operator's guidance."""
    if isinstance(error, SettlementError):
        return Kind.REFUSED
    if isinstance(error, IntegrityError):
        return Kind.INTEGRITY
    if isinstance(error, (OperationalError, InterfaceError)):
        return Kind.SERVICES
    return Kind.OTHER


def error_text(error: BaseException) -> str:
    """The error's class and message, within SettlementRequest.error's length."""
    text = f"{type(error).__name__}: {error}".strip()
    return text if len(text) <= ERROR_LENGTH else text[: ERROR_LENGTH - 1] + "\u2026"


def request_failure_record(
    request_id: int,
    error: BaseException,
    *,
    kind: str | None = None,
    now: datetime | None = None,
) -> SettlementRequest | None:
    """Record that settling this request failed, in a transaction of its own (the
    settlement's has rolled back); None if it is settled meanwhile or does not exist.
    `kind` is the error's own (`failure_kind`) unless the caller knows better."""
    now = now or timezone.now()
    with transaction.atomic():
        request = (
            SettlementRequest.objects.select_for_update()
            .filter(pk=request_id, settled_at__isnull=True)
            .first()
        )
        if request is None:
            return None
        request.failures += 1
        request.failure_kind = kind or failure_kind(error)
        request.error = error_text(error)
        request.first_failed_at = request.first_failed_at or now
        request.last_failed_at = now
        request.save(
            update_fields=["failures", "failure_kind", "error", "first_failed_at", "last_failed_at"]
        )
    log.error("settlement request %s failed (an alert now): %s", request_id, request.error)
    return request


def _settle(round_: Round, now: datetime) -> None:
    current = in_play(round_)
    played = current.played
    _no_rejection_check(round_, played)
    event_by_seq = {e.seq: e for e in current.events}
    decided = [(p, r) for p in played for r in p.outcome.resolutions]
    reduced = [(p, item) for p in played for item in p.outcome.extra.get("reduced", ())]
    refs = {r.wager for _, r in decided} | {item["wager"] for _, item in reduced}
    wagers = {w.ref: w for w in Wager.objects.filter(table_id=round_.table_id, ref__in=refs)}
    on_layout = (
        _on_layout(wagers.values())
        if round_.game in flow.STAKES_REDUCED
        else {w.pk: w.amount for w in wagers.values()}
    )

    postings: list[Posting] = []
    for _, item in reduced:  # § 623a.4(d): a don't bet reduced; the difference comes back
        wager, amount = wagers[item["wager"]], Decimal(item["amount"])
        postings.append(
            Posting(
                Account.LAYOUT,
                Account.PLAYER,
                on_layout[wager.pk] - amount,
                LedgerLine.Kind.STAKE_REDUCED,
                wager.player,
                wager,
            )
        )
        on_layout[wager.pk] = amount
    resolutions = []
    for step, decision in decided:
        wager = wagers[decision.wager]
        stake = on_layout[wager.pk]
        vigorish = _money(decision.extra.get("vig"))
        reduction = _money(decision.extra.get("payout_limit_reduction"))
        winnings = max(house_side(decision.net, vigorish, reduction), ZERO)
        resolutions.append(
            Resolution(
                wager=wager,
                round=round_,
                event=event_by_seq[step.seq],
                result=decision.result,
                net=decision.net,
                stake=stake,
                winnings=winnings,
                payout_limit_reduction=reduction,
                vigorish=vigorish,
                cite=decision.cite,
                extra=dict(decision.extra),
            )
        )
        postings += decision_postings(
            wager,
            decision.net,
            stake,
            vigorish,
            reduction,
            wager.kind in flow.FEE_KINDS,
        )
    Resolution.objects.bulk_create(resolutions)
    entry_post(
        key=f"settlement:{round_.pk}",
        kind=LedgerEntry.Kind.SETTLEMENT,
        round_=round_,
        postings=postings,
        by=None,
        now=now,
    )
    round_.status, round_.settled_at = Round.Status.SETTLED, now
    round_.rules_hash = rules_hash(round_.game)
    round_.state_after = state_dumps(current.state)
    round_.save(update_fields=["status", "settled_at", "rules_hash", "state_after"])


def _no_rejection_check(round_: Round, played: Sequence[Played]) -> None:
    for p in played:
        if p.outcome.rejected:
            first = p.outcome.rejected[0]
            raise SettlementError(
                f"{round_} event #{p.seq} ({p.event}) is refused on replay: {first.error}"
            )


def _on_layout(wagers) -> dict[int, Decimal]:
    """Each wager's stake on the layout now: placed, less what earlier reductions returned."""
    ids = [w.pk for w in wagers]
    sums = (
        LedgerLine.objects.filter(wager_id__in=ids, account=Account.LAYOUT)
        .values("wager_id")
        .annotate(total=Sum("amount"))
    )
    found = {row["wager_id"]: row["total"] for row in sums}
    return {pk: found.get(pk, ZERO) for pk in ids}


def _money(value: object) -> Decimal:
    return Decimal(str(value)) if value not in (None, "") else ZERO
