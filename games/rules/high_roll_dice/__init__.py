"""High Roll Dice, 58 Pa. Code ch. 675a, and its six-dice variation (§ 675a.6).

Options (Rules Submission choices and table limits; JSON values or strings):

- ``dice``: ``10`` (the game of § 675a.1-675a.5) or ``6`` (the variation of § 675a.6).
  Default ``10``.
- ``payout_limit``: the aggregate payout limit per player per round of § 675a.5(e) and
  § 675a.6(l), an amount, or ``"none"`` when the certificate holder established none.
  Default ``"none"``: the limit exists only "if specified in its Rules Submission". An
  amount below the lowest limit the text allows ($50,000 or the most one patron could
  win in a round betting the minimum wager, whichever is greater) is refused.
  Millionaire Row winnings are never limited.
- ``min_wager``: the table minimum for every wager but Millionaire Row. Default ``"5"``.
- ``max_wager``: the table maximum for every wager but Millionaire Row. Default ``"500"``.

Events: ``wagers``, ``throw`` (ten or six faces), ``extra_roll`` (the faces of the
re-thrown dice). Wager kinds: ``pip:F``, ``like_kind:K``, ``no_match``, ``extra_roll``,
``millionaire:9``, ``millionaire:10`` (see ``wagers.py``). Our readings of what the text
leaves open are in docs/regulations.md.
"""

from games.rules.high_roll_dice.engine import HighRollDiceEngine

ENGINE = HighRollDiceEngine()

__all__ = ["ENGINE", "HighRollDiceEngine"]
