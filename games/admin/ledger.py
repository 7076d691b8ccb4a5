"""The ledger, read-only: a correction is a new adjusting entry, posted from a settled
round's page (games.services.ledger.adjustment_post), never an edit."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from casino.admin.audit import AuditHistory
from games.admin.common import PagedInline, ReadOnlyAdmin
from games.models import LedgerEntry, LedgerLine

LINE_FIELDS = ("account", "player", "wager", "kind", "amount")
# Lines shown beside an entry on its round's page; the entry's own page lists them all.
LINES_SHOWN = 20


def lines_html(entry: LedgerEntry) -> SafeString:
    """The entry's first LINES_SHOWN lines, one a row (account, amount, kind and the wager
    it is for), and a link to the entry's page for the rest."""
    lines = list(entry.lines.select_related("wager").order_by("id")[: LINES_SHOWN + 1])
    shown = format_html_join(
        mark_safe("<br>"),
        "{} {}",
        (
            (line, f"(wager {line.wager.ref})" if line.wager_id else "")
            for line in lines[:LINES_SHOWN]
        ),
    )
    if len(lines) <= LINES_SHOWN:
        return shown
    url = reverse("admin:games_ledgerentry_change", args=[entry.pk])
    more = entry.lines.count() - LINES_SHOWN
    return format_html(
        '{}<br><a href="{}">and {} more: the entry\'s page</a>', shown, url, f"{more:,}"
    )


class LedgerLineInline(PagedInline):
    model = LedgerLine
    fields = LINE_FIELDS
    per_page = 100

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("wager")


@admin.register(LedgerEntry)
class LedgerEntryAdmin(AuditHistory, ReadOnlyAdmin):
    list_display = ("posted_at", "kind", "round", "table", "posted_by", "memo")
    list_filter = ("kind", "table")
    search_fields = ("round__table__number", "key", "memo")
    list_select_related = ("round__table", "table", "posted_by")
    fields = ("key", "kind", "table", "round", "posted_at", "posted_by", "memo")
    inlines = [LedgerLineInline]
