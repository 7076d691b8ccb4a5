"""Corrections and the append-only ledger (issue 7).

A round once settled is never settled again, and a correction is a new, audited
adjusting entry, never an edit: compliance posts (account, player, amount) lines that sum
to zero, with a memo saying why. Ledger lines and entries, resolutions, wagers and round
events cannot be changed or deleted, one by one or in bulk.
"""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db.models import Sum

from casino.models import AuditEntry
from casino.services import FloorRefused
from games.models import LedgerEntry, LedgerLine, Resolution, RoundEvent, Wager
from games.services.ledger import adjustment_post
from tests.casino.floor_fixtures import T0, compliance, operations
from tests.games.round_fixtures import (
    D,
    M,
    balance,
    books_balance_check,
    fresh,
    open_table,
    opened,
    place,
    result,
    settle,
    wager,
)

pytestmark = pytest.mark.django_db

Account = LedgerLine.Account
H = 60 * M
MEMO = "Surveillance review: the dealer underpaid ann's Small Bet by $5"
# A $5 underpayment made good: $5 from the table inventory to ann.
MAKE_GOOD = [(Account.INVENTORY, "", D("-5.00")), (Account.PLAYER, "ann", D("5.00"))]


def settled_round():
    """A Sic Bo round: ann's $10 Small Bet wins $10 on 1, 2, 3 (§ 625a.3(6), § 625a.6(a))."""
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    result(round_, "throw", [1, 2, 3])
    settle(round_)
    return table, fresh(round_)


def test_compliance_posts_an_audited_adjusting_entry_that_sums_to_zero():
    table, round_ = settled_round()
    settlement_lines_before = list(
        LedgerLine.objects.filter(entry__kind="settlement").values_list("id", "amount")
    )
    entry = adjustment_post(round_, MAKE_GOOD, memo=f"  {MEMO} ", by=compliance(), now=T0 + H)
    entry = LedgerEntry.objects.get(pk=entry.pk)
    assert (entry.kind, entry.round, entry.table) == ("adjustment", round_, table)
    assert entry.key.startswith(f"adjustment:{round_.pk}:")
    assert (entry.memo, entry.posted_by, entry.posted_at) == (MEMO, compliance(), T0 + H)
    lines = list(entry.lines.values_list("account", "player", "kind", "amount"))
    assert lines == [
        (Account.INVENTORY, "", "adjustment", D("-5.00")),
        (Account.PLAYER, "ann", "adjustment", D("5.00")),
    ]
    assert entry.lines.aggregate(total=Sum("amount"))["total"] == 0
    # What was posted before is as it was: a correction never edits.
    assert settlement_lines_before == list(
        LedgerLine.objects.filter(entry__kind="settlement").values_list("id", "amount")
    )
    # Ann: -10 placed, +10 back, +10 won, +5 made good.
    assert balance(table, Account.PLAYER, "ann") == D("15.00")

    audit = AuditEntry.objects.get(
        content_type=ContentType.objects.get_for_model(LedgerEntry), object_id=str(entry.pk)
    )
    assert (audit.action, audit.actor, audit.actor_name) == (
        "created",
        compliance(),
        "carl_compliance",
    )
    assert audit.after["memo"] == MEMO
    assert audit.after["lines"] == ["inventory -5.00", "player:ann +5.00"]
    books_balance_check(table)


def test_operations_may_not_adjust_the_ledger():
    _, round_ = settled_round()
    before = (LedgerEntry.objects.count(), AuditEntry.objects.count())
    with pytest.raises(PermissionDenied) as denied:
        adjustment_post(round_, MAKE_GOOD, memo=MEMO, by=operations(), now=T0 + H)
    assert str(denied.value) == (
        "olive_ops may not post an adjusting entry (needs games.adjust_ledger)"
    )
    assert (LedgerEntry.objects.count(), AuditEntry.objects.count()) == before


def test_a_round_not_yet_settled_is_not_adjusted():
    table = open_table("sic_bo")
    round_ = opened(table)
    place(round_, wager("ann", "small", "10"))
    with pytest.raises(FloorRefused) as refused:
        adjustment_post(round_, MAKE_GOOD, memo=MEMO, by=compliance(), now=T0 + H)
    assert refused.value.reasons == ["SB-01 round 1 is wagering open, not settled"]
    result(round_, "throw", [1, 2, 3])
    with pytest.raises(FloorRefused) as refused:
        adjustment_post(fresh(round_), MAKE_GOOD, memo=MEMO, by=compliance(), now=T0 + H)
    assert refused.value.reasons == ["SB-01 round 1 is result entered, settling, not settled"]
    assert not LedgerEntry.objects.filter(kind="adjustment").exists()


@pytest.mark.parametrize(
    ("lines", "memo", "reasons"),
    [
        (
            [(Account.INVENTORY, "", D("-5.00")), (Account.PLAYER, "ann", D("6.00"))],
            MEMO,
            ["the lines sum to 1.00, not zero"],
        ),
        (MAKE_GOOD, "   ", ["an adjusting entry says why (memo)"]),
        (
            [(Account.PLAYER, "ann", D("5.00"))],
            MEMO,
            ["an adjusting entry has at least two lines"],
        ),
        (
            [("bank", "", D("-5.00")), (Account.PLAYER, "ann", D("5.00"))],
            MEMO,
            ["lines[0]: 'bank' is not an account: ['player', 'layout', 'inventory', 'fees']"],
        ),
        (
            [(Account.INVENTORY, "", D("-5.00")), (Account.PLAYER, "", D("5.00"))],
            MEMO,
            ["lines[1]: a player line, and only a player line, names one"],
        ),
        (
            [(Account.INVENTORY, "", D("-5.005")), (Account.PLAYER, "ann", D("5.005"))],
            MEMO,
            [
                "lines[0]: -5.005 is not a non-zero amount in cents",
                "lines[1]: 5.005 is not a non-zero amount in cents",
            ],
        ),
    ],
    ids=["not summing to zero", "empty memo", "one line", "unknown account", "no player", "cents"],
)
def test_a_wrong_adjusting_entry_is_refused_and_nothing_is_written(lines, memo, reasons):
    _, round_ = settled_round()
    before = (LedgerEntry.objects.count(), LedgerLine.objects.count(), AuditEntry.objects.count())
    with pytest.raises(FloorRefused) as refused:
        adjustment_post(round_, lines, memo=memo, by=compliance(), now=T0 + H)
    assert refused.value.action == "Adjusting SB-01 round 1"
    assert refused.value.reasons == reasons
    after = (LedgerEntry.objects.count(), LedgerLine.objects.count(), AuditEntry.objects.count())
    assert after == before


# --- append-only ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "field", "value"),
    [
        (LedgerLine, "amount", D("999.00")),
        (LedgerEntry, "memo", "rewritten"),
        (Resolution, "net", D("999.00")),
        (Wager, "amount", D("999.00")),
        (RoundEvent, "payload", [4, 5, 6]),
    ],
)
def test_rows_of_the_record_are_never_changed_or_deleted(model, field, value):
    settled_round()
    row = model.objects.order_by("id").last()
    original = getattr(row, field)
    setattr(row, field, value)
    with pytest.raises(PermissionError, match="append-only"):
        row.save()
    with pytest.raises(PermissionError, match="append-only"):
        row.delete()
    with pytest.raises(PermissionError, match="append-only"):
        model.objects.filter(pk=row.pk).update(**{field: value})
    with pytest.raises(PermissionError, match="append-only"):
        model.objects.all().delete()
    assert getattr(model.objects.get(pk=row.pk), field) == original


def test_a_settled_round_is_corrected_by_a_second_adjustment_not_by_editing_the_first():
    table, round_ = settled_round()
    first = adjustment_post(round_, MAKE_GOOD, memo=MEMO, by=compliance(), now=T0 + H)
    undo = [(Account.PLAYER, "ann", D("-5.00")), (Account.INVENTORY, "", D("5.00"))]
    second = adjustment_post(
        round_,
        undo,
        memo="The first adjustment was posted in error",
        by=compliance(),
        now=T0 + 2 * H,
    )
    assert first.key != second.key
    assert LedgerEntry.objects.filter(round=round_, kind="adjustment").count() == 2
    assert balance(table, Account.PLAYER, "ann") == D("10.00")
    books_balance_check(table)


def test_an_adjustment_reads_the_round_as_it_is_now_not_as_the_caller_last_saw_it():
    table = open_table("sic_bo")
    seen = opened(table)  # the admin page loaded before the worker settled the round
    place(seen, wager("ann", "small", "10"))
    result(seen, "throw", [1, 2, 3])
    settle(seen)
    entry = adjustment_post(seen, MAKE_GOOD, memo=MEMO, by=compliance(), now=T0 + H)
    assert entry.kind == "adjustment"
