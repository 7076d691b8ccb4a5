"""Pages of 50 by default; ``?page_size=`` up to 500."""

from rest_framework.pagination import PageNumberPagination


class Pages(PageNumberPagination):
    """``{"count", "next", "previous", "results"}``, with ``?page=`` and ``?page_size=``."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
