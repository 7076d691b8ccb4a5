"""Read-only bases: the rows of a round are history, written by the services alone.

A record's rows are listed a page at a time (`PagedInline`): a round of 5,000 wagers, or
a settlement of 20,000 ledger lines, answers as fast as a round of five.
"""

from dataclasses import dataclass
from typing import Any

from django.contrib import admin
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.http import HttpRequest

from casino.admin.common import ReadOnlyAdmin
from casino.rules.words import money_text

__all__ = ["PagedInline", "ReadOnlyAdmin", "ReadOnlyInline", "money_column"]


def money_column(field: str, description: str = "") -> Any:
    """A column showing a row's amount as money (-$2,200.00; "-" when it has none)."""

    @admin.display(description=description or field.replace("_", " "), ordering=field)
    def shown(self: Any, row: Any) -> str:
        amount = getattr(row, field)
        return "-" if amount is None else money_text(amount)

    shown.__name__ = f"{field}_money"
    return shown


class ReadOnlyInline(admin.TabularInline):
    """The rows of a record, listed under it and shown only."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@dataclass(frozen=True)
class Pager:
    """Where a page of rows sits among them all, with the links to its neighbours."""

    page: Page
    previous_url: str
    next_url: str

    @property
    def shown(self) -> str:
        """e.g. "101 to 200 of 5,000"."""
        count = self.page.paginator.count
        return f"{self.page.start_index():,} to {self.page.end_index():,} of {count:,}"


def page_of(request: HttpRequest, rows: QuerySet, key: str, per_page: int) -> Pager:
    """The page of `rows` that `?<key>=N` names (the first, for anything else), its
    neighbours' links keeping the rest of the query (another list's page)."""
    page = Paginator(rows, per_page).get_page(request.GET.get(key))

    def url(number: int | None) -> str:
        if number is None:
            return ""
        query = request.GET.copy()
        query[key] = str(number)
        return f"?{query.urlencode()}"

    previous = page.previous_page_number() if page.has_previous() else None
    following = page.next_page_number() if page.has_next() else None
    return Pager(page, url(previous), url(following))


class PagedInline(ReadOnlyInline):
    """A record's rows a page at a time (`per_page`, `?<prefix>-page=N`), with the count
    of them all and links to the pages either side; a page is read whole, never the rest."""

    per_page = 50
    template = "admin/games/paged_tabular.html"

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        formset = super().get_formset(request, obj, **kwargs)
        per_page = self.per_page

        class PagedFormSet(formset):  # type: ignore[misc, valid-type]
            def get_queryset(self) -> Any:
                if not hasattr(self, "pager"):
                    rows = super().get_queryset()  # the record's rows, ordered
                    self.pager = page_of(request, rows, f"{self.prefix}-page", per_page)
                return self.pager.page.object_list

        return PagedFormSet
