"""Pai Gow (tiles), 58 Pa. Code chapter 621a: 32 tiles, a high and a low hand, the house way.

Modules: ``tiles`` (the set and each tile's rank, § 621a.3(h)), ``ranking`` (pairs,
Wongs, Gongs, values, copy hands and zero-zero, § 621a.3(c)-(i)), ``house_way`` (the
dealer's setting, § 621a.8(d)), ``dealing`` (the starting place and the ten styles of
delivery, § 621a.6, § 621a.7, the bank's cut § 621a.9(g)), ``deal`` (the deal event),
``settlement`` (win, tie, lose, the vigorish and the bank's centre, § 621a.8(g)-(k),
§ 621a.9(n)-(r)), ``table`` (the events), ``par``.

Wager kind ``pai_gow`` with ``"position": 1..6``. Events: ``wagers``, ``bank``,
``deal``, ``set``, ``surrender``, ``reveal``, ``irregularity`` (docs/scenarios.md).
Every reading of an ambiguous text is in docs/regulations.md.
"""

from games.rules.pai_gow.engine import PaiGowEngine

ENGINE = PaiGowEngine()

__all__ = ["ENGINE", "PaiGowEngine"]
