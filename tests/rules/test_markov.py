"""The exact absorbing-chain solver every multi-roll PAR record rests on
(games/rules/core/markov.py), checked on chains solved by hand."""

from fractions import Fraction

from games.rules.core.markov import Absorbed, absorption

HALF = Fraction(1, 2)


def test_one_step_chain_is_its_own_distribution() -> None:
    def moves(state):
        return [(Fraction(1, 3), Absorbed("a")), (Fraction(2, 3), Absorbed("b"))]

    assert absorption("s", moves) == {"a": Fraction(1, 3), "b": Fraction(2, 3)}


def test_self_loop_is_divided_out() -> None:
    # Stay with 1/2, else a or b evenly: each ends with 1/2 (the loop only delays).
    def moves(state):
        return [(HALF, "s"), (Fraction(1, 4), Absorbed("a")), (Fraction(1, 4), Absorbed("b"))]

    assert absorption("s", moves) == {"a": HALF, "b": HALF}


def test_gamblers_ruin_with_a_cycle() -> None:
    # A fair walk on 0..4 from 1: reaches 4 with probability 1/4 (states 1, 2, 3 form one cycle).
    def moves(n):
        for step in (-1, 1):
            after = n + step
            yield HALF, Absorbed(after) if after in (0, 4) else after

    assert absorption(1, moves) == {0: Fraction(3, 4), 4: Fraction(1, 4)}


def test_pass_line_by_hand() -> None:
    # 58 Pa. Code § 623a.3(a)(1): 7 or 11 win, 2, 3, 12 lose, else the point against the 7.
    ways = {t: 6 - abs(t - 7) for t in range(2, 13)}

    def moves(point):
        for total, count in ways.items():
            chance = Fraction(count, 36)
            if point is None:
                if total in (7, 11):
                    yield chance, Absorbed("win")
                elif total in (2, 3, 12):
                    yield chance, Absorbed("lose")
                else:
                    yield chance, total
            elif total == point:
                yield chance, Absorbed("win")
            elif total == 7:
                yield chance, Absorbed("lose")
            else:
                yield chance, point

    assert absorption(None, moves) == {"win": Fraction(244, 495), "lose": Fraction(251, 495)}
