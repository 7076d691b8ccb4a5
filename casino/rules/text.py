"""Names a person can trust: a name shown on the floor carries no hidden code point.

A player's name reaches the ledger, the admin, the compliance report and the API's
answers; each shows it as text. A right-to-left override, a zero-width character or a
control character makes two names look alike, or one look like another, so a name that
holds one is refused, naming the field and the code point. The engines
(games/rules, games.scenario) take any string: the floor is where names come in.

Canonically equivalent spellings ("é" as one code point or as "e" and a combining accent)
draw the same and are one name: a name is kept in NFC, Unicode's composed form. Its
length is counted as sent, in code points, as the API's schema counts it (`maxLength`):
NFC may then lengthen it (U+0958 is kept as two code points), so the columns that keep
a name hold three times its limit.
"""

import unicodedata

# General categories that draw nothing, or change how what is around them draws:
# Cc control; Cf format (bidi embeddings, overrides and isolates U+202A-U+202E and
# U+2066-U+2069, zero-width U+200B-U+200D, U+2060, U+FEFF, the soft hyphen); Co private
# use (no agreed glyph); Cs a lone surrogate (not text; PostgreSQL refuses it); Zl and Zp
# line and paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Zl", "Zp"})
# Characters that draw as blank though their category is a letter, mark or symbol
# (Unicode's default-ignorable fillers and the blank Braille pattern).
BLANK_LOOKING = frozenset({0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0})
_UNNAMED = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Co": "a private-use character",
    "Cs": "a lone surrogate",
}
# At most this many code points are named in one refusal's reasons.
NAMED_AT_MOST = 5
# A player's name, as sent: the one limit, for the API's schema and every check of a name.
PLAYER_NAME_MAX_LENGTH = 64
# NFC makes a string at most three times as long (UAX #15's table of maximum expansion
# factors: x3 for NFC, e.g. U+FB2C kept as three code points): the columns that keep a
# name (the wagers' and the ledger lines', games/models) hold that.
NFC_EXPANSION = 3
PLAYER_NAME_KEPT_LENGTH = NFC_EXPANSION * PLAYER_NAME_MAX_LENGTH


def code_point_label(char: str) -> str:
    """e.g. "U+202E RIGHT-TO-LEFT OVERRIDE", "U+0007 (a control character)"."""
    name = unicodedata.name(char, "")
    if name:
        return f"U+{ord(char):04X} {name}"
    return f"U+{ord(char):04X} ({_UNNAMED.get(unicodedata.category(char), 'unnamed')})"


def hidden_code_points(value: str) -> list[str]:
    """Each distinct code point of `value` that a person cannot see, in order."""
    found: list[str] = []
    for char in value:
        hidden = unicodedata.category(char) in HIDDEN_CATEGORIES or ord(char) in BLANK_LOOKING
        if hidden and char not in found:
            found.append(char)
    return found


def length_refusal(value: str, max_length: int) -> str | None:
    """Why `value`, as sent, does not fit its field ("is 200 characters; at most 64"), or
    None. Characters are code points, as JSON Schema's `maxLength` counts them."""
    if not value:
        return "must not be empty"
    length = len(value)
    return f"is {length} characters; at most {max_length}" if length > max_length else None


def shown_name(value: str, where: str, max_length: int) -> tuple[str, list[str]]:
    """The name as kept (NFC) and the reasons it is refused (none: accepted).

    `where` names the field in each reason, e.g. "wagers[0].player". The length is the
    name's as sent; kept, it is at most NFC_EXPANSION times that.
    """
    too_long = length_refusal(value, max_length)
    if too_long:  # no scan of a name that cannot be taken
        return value, [f"{where} {too_long}"]
    hidden = hidden_code_points(value)
    reasons = [f"{where} contains {code_point_label(c)}" for c in hidden[:NAMED_AT_MOST]]
    if len(hidden) > NAMED_AT_MOST:
        reasons.append(f"{where} contains {len(hidden) - NAMED_AT_MOST} more such code points")
    # "p1" and "p1 " (or "J Chen" with a no-break space) look alike and are two players.
    spaces = {c for c in value if unicodedata.category(c) == "Zs" and c != " "}
    reasons += [
        f"{where} contains {code_point_label(c)}: use U+0020 SPACE"
        for c in sorted(spaces)[:NAMED_AT_MOST]
    ]
    if value != value.strip():
        reasons.append(f"{where} begins or ends with a space")
    if reasons:
        return value, reasons
    return unicodedata.normalize("NFC", value), []
