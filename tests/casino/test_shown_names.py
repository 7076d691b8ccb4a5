"""Issue 19, point 6: the one rule for names shown to people (casino/rules/text.py), pure."""

import re
from pathlib import Path

import pytest

from casino.rules.text import (
    PLAYER_NAME_KEPT_LENGTH,
    PLAYER_NAME_MAX_LENGTH,
    code_point_label,
    hidden_code_points,
    shown_name,
)

W = "wagers[0].player"


@pytest.mark.parametrize(
    ("char", "label"),
    [
        # The bidi embeddings, overrides and isolates (Unicode's Bidi_Control, all Cf).
        *((chr(c), f"U+{c:04X}") for c in range(0x202A, 0x202F)),
        *((chr(c), f"U+{c:04X}") for c in range(0x2066, 0x206A)),
        ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("\u2067", "U+2067 RIGHT-TO-LEFT ISOLATE"),
        # Zero width.
        ("\u200b", "U+200B ZERO WIDTH SPACE"),
        ("\u200c", "U+200C ZERO WIDTH NON-JOINER"),
        ("\u200d", "U+200D ZERO WIDTH JOINER"),
        ("\u2060", "U+2060 WORD JOINER"),
        ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        # Controls (Cc have no name: the category says what they are).
        ("\x00", "U+0000 (a control character)"),
        ("\x1b", "U+001B (a control character)"),
        ("\n", "U+000A (a control character)"),
        ("\x85", "U+0085 (a control character)"),
        # Other format, private use, surrogate, separators, blank-looking letters.
        ("\u00ad", "U+00AD SOFT HYPHEN"),
        ("\ue000", "U+E000 (a private-use character)"),
        ("\ud800", "U+D800 (a lone surrogate)"),
        ("\u2028", "U+2028 LINE SEPARATOR"),
        ("\u2029", "U+2029 PARAGRAPH SEPARATOR"),
        ("\u3164", "U+3164 HANGUL FILLER"),
        ("\u2800", "U+2800 BRAILLE PATTERN BLANK"),
    ],
)
def test_each_hidden_code_point_is_refused_by_field_and_name(char, label):
    kept, reasons = shown_name(f"p{char}1", W, 64)
    assert len(reasons) == 1 and reasons[0].startswith(f"{W} contains {label}"), reasons
    assert kept == f"p{char}1"  # refused as sent, nothing changed


def test_the_issues_name_is_refused_naming_the_override():
    # "p1\u202egpj.exe" shows as "p1exe.jpg": a name that lies on screen.
    assert shown_name("p1\u202egpj.exe", W, 64)[1] == [
        f"{W} contains U+202E RIGHT-TO-LEFT OVERRIDE"
    ]


@pytest.mark.parametrize(
    "name", ["p1", "ann", "M. Chen", "Zoë", "陈伟", "محمد", "Ωmega-7", "O'Brien", "🎲 lucky"]
)
def test_visible_names_in_any_script_are_taken_as_sent(name):
    assert shown_name(name, W, 64) == (name, [])


def test_a_decomposed_name_is_kept_composed_so_two_spellings_are_one_player():
    decomposed = "Zoe\u0308"  # e + COMBINING DIAERESIS: draws as "Zoë"
    assert shown_name(decomposed, W, 64) == ("Zo\u00eb", [])


@pytest.mark.parametrize(
    ("name", "reasons"),
    [
        ("p1 ", [f"{W} begins or ends with a space"]),
        (" p1", [f"{W} begins or ends with a space"]),
        ("J\u00a0Chen", [f"{W} contains U+00A0 NO-BREAK SPACE: use U+0020 SPACE"]),
        ("J\u3000Chen", [f"{W} contains U+3000 IDEOGRAPHIC SPACE: use U+0020 SPACE"]),
    ],
)
def test_names_that_look_like_another_by_their_spaces_are_refused(name, reasons):
    assert shown_name(name, W, 64)[1] == reasons


def test_every_distinct_code_point_is_named_once_up_to_five():
    name = "a\u200b\u200b\u202e\x07\ufeff\u2066\u2069b"
    assert hidden_code_points(name) == ["\u200b", "\u202e", "\x07", "\ufeff", "\u2066", "\u2069"]
    assert shown_name(name, W, 64)[1] == [
        f"{W} contains U+200B ZERO WIDTH SPACE",
        f"{W} contains U+202E RIGHT-TO-LEFT OVERRIDE",
        f"{W} contains U+0007 (a control character)",
        f"{W} contains U+FEFF ZERO WIDTH NO-BREAK SPACE",
        f"{W} contains U+2066 LEFT-TO-RIGHT ISOLATE",
        f"{W} contains 1 more such code points",
    ]


def test_the_length_is_counted_on_the_name_as_sent_as_the_schema_counts_it():
    """Code points as sent, JSON Schema's `maxLength`: the schema and the server agree."""
    assert shown_name("x" * 64, W, 64) == ("x" * 64, [])
    assert shown_name("x" * 65, W, 64)[1] == [f"{W} is 65 characters; at most 64"]
    # 64 code points sent, 63 kept: "e" and its accent compose into one.
    assert shown_name("x" * 62 + "e\u0301", W, 64) == ("x" * 62 + "\u00e9", [])
    # 128 code points sent (schema-invalid): refused, though NFC would keep 64.
    assert shown_name("e\u0301" * 64, W, 64)[1] == [f"{W} is 128 characters; at most 64"]
    # A name of megabytes is refused by its length before any code point is looked at.
    huge = "\u202e" * (10 * 1024 * 1024)
    assert shown_name(huge, W, 64) == (huge, [f"{W} is 10485760 characters; at most 64"])
    assert shown_name("", W, 64)[1] == [f"{W} must not be empty"]


def test_a_name_nfc_lengthens_is_taken_and_kept_whole():
    """U+0958 DEVANAGARI LETTER QA is kept as two code points (a composition exclusion: NFC
    never composes it): 64 sent (schema-valid) are taken and kept as 128, which the columns
    hold (NFC makes a string at most three times as long, UAX #15)."""
    kept, refused = shown_name("\u0958" * 64, W, 64)
    assert (refused, kept) == ([], "\u0915\u093c" * 64)
    assert len(kept) == 128 <= PLAYER_NAME_KEPT_LENGTH == 3 * PLAYER_NAME_MAX_LENGTH
    # U+FB2C HEBREW LETTER SHIN WITH DAGESH AND SHIN DOT: NFC's largest growth, x3.
    assert len(shown_name("\ufb2c" * 64, W, 64)[0]) == 192 == PLAYER_NAME_KEPT_LENGTH


def test_code_point_label_names_a_named_character():
    assert code_point_label("\u200d") == "U+200D ZERO WIDTH JOINER"


ROOT = Path(__file__).resolve().parents[2]
# Text the code itself wrote (a form's help text), never a value someone sent.
TRUSTED_SAFE = {"{{ field.help_text|safe }}"}


def test_no_page_turns_autoescape_off_for_a_value_sent_to_the_floor():
    templates = [
        p for app in ("casino", "games", "devices", "workers") for p in (ROOT / app).rglob("*.html")
    ]
    assert templates
    for path in templates:
        text = path.read_text()
        assert "autoescape off" not in text, path
        unsafe = set(re.findall(r"\{\{[^}]*\|\s*safe[^}]*\}\}", text)) - TRUSTED_SAFE
        assert not unsafe, (path, unsafe)


def test_floor_js_inserts_every_value_as_text():
    """The live floor page draws names with textContent and text nodes, never as HTML."""
    script = (ROOT / "casino" / "static" / "floor" / "floor.js").read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert sink not in script, sink
    assert "document.createTextNode(String(child))" in script
