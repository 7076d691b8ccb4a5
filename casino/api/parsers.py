"""JSON as the API takes it: numbers a double cannot hold (1e400, NaN, Infinity),
nesting past Python's recursion limit, and strings the database cannot store (U+0000, a
lone surrogate) are a 400, never a value stored or a 500."""

import json
import math
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from casino.rules.text import code_point_label


def _finite(text: str) -> float:
    # A JSON number is a float, as everywhere in DRF: money never comes as one (amounts are
    # decimal strings, and games.rules.core.money.parse_amount refuses a float; ADR 0002).
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range for a number")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _unstorable(value: Any, where: str = "") -> str | None:
    """The first string PostgreSQL cannot store (text nor jsonb), named by its place."""
    # Iterative: the body may nest as deep as the parser allowed.
    pending = [(value, where)]
    while pending:
        item, at = pending.pop()
        if isinstance(item, str):
            for char in item:
                if char == "\x00" or "\ud800" <= char <= "\udfff":
                    return f"{at or 'the body'} contains {code_point_label(char)}"
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                pending.append((child, f"{at}.{key}" if at else str(key)))
                pending.append((key, f"a name in {at or 'the body'}"))
        elif isinstance(item, list):
            pending.extend((child, f"{at}[{i}]") for i, child in reversed(list(enumerate(item))))
    return None


class StrictJSONParser(JSONParser):
    """DRF's JSON parser, refusing what JSON itself does not allow."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        """The body as Python values, or ParseError naming what is wrong."""
        encoding = (parser_context or {}).get("encoding", "utf-8")
        try:
            text = stream.read().decode(encoding)
            data = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        except (ValueError, UnicodeDecodeError) as error:
            raise ParseError(f"JSON parse error - {error}") from None
        # Only through an escape (\u0000, \ud800): refused here, named, before any record.
        if "\\u" in text and (problem := _unstorable(data)):
            raise ParseError(f"JSON parse error - {problem}")
        return data
