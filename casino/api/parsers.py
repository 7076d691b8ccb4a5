"""JSON as the API takes it: numbers a double cannot hold (1e400, NaN, Infinity) and
nesting past Python's recursion limit are a 400, never a value stored or a 500."""

import json
import math
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


def _finite(text: str) -> float:
    # A JSON number is a float, as everywhere in DRF: money never comes as one (amounts are
    # decimal strings, and games.rules.core.money.parse_amount refuses a float; ADR 0002).
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range for a number")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


class StrictJSONParser(JSONParser):
    """DRF's JSON parser, refusing what JSON itself does not allow."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        """The body as Python values, or ParseError naming what is wrong."""
        encoding = (parser_context or {}).get("encoding", "utf-8")
        try:
            text = stream.read().decode(encoding)
            return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        except (ValueError, UnicodeDecodeError) as error:
            raise ParseError(f"JSON parse error - {error}") from None
