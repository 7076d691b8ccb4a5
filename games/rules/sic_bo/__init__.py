"""Sic Bo, 58 Pa. Code chapter 625a: three dice, eight wagers, one paytable.

Wagers (§ 625a.3) and their scenario kinds:
    Three of a Kind ``triple:N``, Two of a Kind ``double:N``, Any Three of a Kind
    ``any_triple``, Total Value Bet ``total:T`` (T = 4..17), Two Dice Combination
    ``combo:A-B`` (A < B), Small Bet ``small``, Big Bet ``big``, One of a Kind
    ``single:N``; N, A, B are die faces 1..6.

Paytable: § 625a.6 (paytables.py), the only one chapter 625a has.

Events: ``{"wagers": [...]}`` (any number before a throw; each adds to the layout),
``{"throw": [d1, d2, d3]}`` (settles every wager on the layout), ``{"no_roll": true}``
(§ 625a.7(a): every wager returned), ``{"shaker_malfunction": true}`` (§ 625a.7(c): the
automated shaker failed when activated; the round is void and every wager returned).

Options (all optional):
    shaker     ``manual`` (default, § 625a.1(d)(1)) or ``automated`` (§ 625a.1(d)(2));
               only an automated shaker can void a round by malfunctioning.
    min_wager  the table minimum posted at the table, an amount; default none.
    max_wager  the table maximum posted at the table, an amount; default none.
Chapter 625a itself sets no wager limits; docs/regulations.md gives every reading.
"""

from games.rules.sic_bo.engine import SicBoEngine

ENGINE = SicBoEngine()

__all__ = ["ENGINE", "SicBoEngine"]
