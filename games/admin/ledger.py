"""The ledger, read-only: a correction is a new adjusting entry, posted from a settled
round's page (games.services.ledger.adjustment_post), never an edit."""

from django.contrib import admin
from django.utils.html import format_html_join
from django.utils.safestring import SafeString, mark_safe

from casino.admin.audit import AuditHistory
from games.admin.common import ReadOnlyAdmin, ReadOnlyInline
from games.models import LedgerEntry, LedgerLine

LINE_FIELDS = ("account", "player", "wager", "kind", "amount")


def lines_html(entry: LedgerEntry) -> SafeString:
    """The entry's lines, one a row: account, amount, kind and the wager it is for."""
    return format_html_join(
        mark_safe("<br>"),
        "{} {}",
        (
            (line, f"(wager {line.wager.ref})" if line.wager_id else "")
            for line in entry.lines.all()
        ),
    )


class LedgerLineInline(ReadOnlyInline):
    model = LedgerLine
    fields = LINE_FIELDS


@admin.register(LedgerEntry)
class LedgerEntryAdmin(AuditHistory, ReadOnlyAdmin):
    list_display = ("posted_at", "kind", "round", "table", "posted_by", "memo")
    list_filter = ("kind", "table")
    search_fields = ("round__table__number", "key", "memo")
    list_select_related = ("round__table", "table", "posted_by")
    fields = ("key", "kind", "table", "round", "posted_at", "posted_by", "memo")
    inlines = [LedgerLineInline]
