"""Pages of 50 by default; ``?page_size=`` up to 500."""

from typing import Any

from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination

from casino.api.filtering import INTEGER

PAGE_SIZE_RULE = (
    "an integer: the rows a page holds, 1 to 500 (a larger one gives 500; zero or less, "
    "the default 50)"
)


class Pages(PageNumberPagination):
    """``{"count", "next", "previous", "results"}``, with ``?page=`` and ``?page_size=``."""

    page_size = 50
    page_size_query_param = "page_size"
    page_size_query_description = PAGE_SIZE_RULE[0].upper() + PAGE_SIZE_RULE[1:] + "."
    page_query_description = (
        "A page number, from 1: one past the last, or one that is no positive integer, is a 404."
    )
    max_page_size = 500
    last_page_strings = ()  # DRF's ?page=last: the schema says a page is an integer

    def get_page_number(self, request: Any, paginator: Any) -> Any:
        """The page asked for; `?page=` sent empty is no page (404), where DRF gave page 1."""
        if request.query_params.get(self.page_query_param) == "":
            raise NotFound("no page number: ?page= takes a page number, from 1")
        return super().get_page_number(request, paginator)

    def get_page_size(self, request: Any) -> int | None:
        """The page size asked for; one that is no integer is refused (the schema's type),
        where DRF would give the default page."""
        text = request.query_params.get(self.page_size_query_param)
        if text is not None and not INTEGER.fullmatch(text):
            raise ValidationError({self.page_size_query_param: [f"must be {PAGE_SIZE_RULE}"]})
        return super().get_page_size(request)

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """DRF's, with every key required: a page always has all four (null links at the ends)."""
        paginated = super().get_paginated_response_schema(schema)
        paginated["required"] = ["count", "next", "previous", "results"]
        return paginated
