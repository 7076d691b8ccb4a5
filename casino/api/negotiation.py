"""Which renderer answers: DRF's content negotiation (`?format=`, then `Accept`), with two
rules so that an answer is always one the schema declares:

- OPTIONS describes the endpoint (DRF's metadata) and is JSON whatever was asked: a
  renderer of the endpoint's own figures (the hold's and the fairness' CSV) cannot write a
  description, and was handed one (a 500).
- `?format=` names a format: sent empty, it names none, and is a 404 as any format the
  endpoint does not render is (DRF took it as no format at all).
"""

from typing import Any

from rest_framework.exceptions import NotFound
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer


class Negotiation(DefaultContentNegotiation):
    """DRF's negotiation, with the module's two rules."""

    def select_renderer(
        self, request: Any, renderers: list[Any], format_suffix: str | None = None
    ) -> tuple[Any, str]:
        """The renderer and media type of the answer."""
        if request.method == "OPTIONS":
            json = next((r for r in renderers if isinstance(r, JSONRenderer)), JSONRenderer())
            return json, json.media_type
        if not format_suffix and request.query_params.get(self.settings.URL_FORMAT_OVERRIDE) == "":
            formats = ", ".join(sorted({r.format for r in renderers}))
            raise NotFound(f"?format= names no format: this endpoint renders {formats}")
        return super().select_renderer(request, renderers, format_suffix)
