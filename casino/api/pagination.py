"""Pages of 50 by default; ``?page_size=`` up to 500."""

from typing import Any

from rest_framework.pagination import PageNumberPagination


class Pages(PageNumberPagination):
    """``{"count", "next", "previous", "results"}``, with ``?page=`` and ``?page_size=``."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """DRF's, with every key required: a page always has all four (null links at the ends)."""
        paginated = super().get_paginated_response_schema(schema)
        paginated["required"] = ["count", "next", "previous", "results"]
        return paginated
