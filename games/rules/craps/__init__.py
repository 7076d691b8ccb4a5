"""Craps and Mini-Craps, 58 Pa. Code chapter 623a, with the side wagers of chapter 623b.

Wagers: the 42 of § 623a.3(a), odds (§ 623a.6), and Hot Roller (§ 623b.1), Lucky Shooter
(§ 623b.2), Bonus Craps All Small / All Tall / Make 'em All (§ 623b.3, § 623a.12), Hot
Shooter Jackpot (§ 623b.4); Power Odds (§ 623b.5) increase eligible payouts for one throw.
Kinds are listed in bets.py; paytables in paytables.py; how a throw decides each wager in
settlement.py; when a wager may be made or taken down in placement.py; the table's
events in table.py; the exact PAR sheet in par.py.

Events: ``{"wagers": [...]}``, ``{"throw": [d1, d2]}``, ``{"remove": [ids or {"id",
"reduce_to"}]}``, ``{"working": {"id": true|false}}``, ``{"power_odds": {...}}``,
``{"pass_dice": true}``.

Options and their defaults: options.py and docs/scenarios.md; every reading of the text
we chose: docs/regulations.md.
"""

from games.rules.craps.engine import CrapsEngine

ENGINE = CrapsEngine()

__all__ = ["ENGINE", "CrapsEngine"]
