"""The one die rule every engine shares: faces 1 to 6 (§ 603a.12)."""

from games.rules.core import die_face_refusal


def test_every_real_face_passes():
    assert die_face_refusal([1, 2, 3, 4, 5, 6]) is None


def test_the_first_impossible_face_is_named():
    assert die_face_refusal([3, 0, 7]) == "A die shows 1 to 6; 0 is not a face of a die."
    assert die_face_refusal([6, 7]) == "A die shows 1 to 6; 7 is not a face of a die."
