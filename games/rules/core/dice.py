"""What every die is: six faces, 1 to 6 (§ 603a.12, the dice standard every chapter cites)."""

from collections.abc import Iterable

DIE_FACES = range(1, 7)


def die_face_refusal(faces: Iterable[int]) -> str | None:
    """The dealer's sentence for the first face no die has, or None when every face is real."""
    for face in faces:
        if face not in DIE_FACES:
            return f"A die shows 1 to 6; {face} is not a face of a die."
    return None
