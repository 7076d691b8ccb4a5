"""Three Dice Football, 58 Pa. Code chapter 661a.

The Quarterback throws two green Offensive Dice and one red Defensive Die each down
(§ 661a.1); the Yard Marker starts on the 20 and a touchdown is scored when the 0 yard
line is reached (§ 661a.1 "Touchdown"; our reading of "passed" and every other reading
is in docs/regulations.md).

Events (../shared/SCENARIOS.md): ``{"wagers": [...]}`` and
``{"throw": {"green": [g1, g2], "red": r}}``; the engine knows when a throw is the
extra point roll (§ 661a.6(f)(1)).

Wager kinds, full game (§ 661a.3(b)): ``touchdown``, ``defense``, ``extra_point``,
``quick_strike``, ``game_changer``, ``game_length:N`` (N = 1..6). Single play
(§ 661a.3(d)): ``trips_td``, ``penalty``, ``turnover``, ``cover_three``, ``no_gain``,
``big_play``, ``over_four``, ``under_four``.

Options (chapter 661a has one paytable, § 661a.8, so only the table limits remain):

- ``min_wager``: the posted minimum wager, a decimal amount; default none (no minimum).
- ``max_wager``: the posted maximum wager, a decimal amount; default none (no maximum).
"""

from games.rules.three_dice_football.engine import ThreeDiceFootballEngine

ENGINE = ThreeDiceFootballEngine()

__all__ = ["ENGINE", "ThreeDiceFootballEngine"]
