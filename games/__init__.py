"""Games: the pure rule engines (games.rules), the scenario runner and PAR sheets; and
the rounds' records, the ledger and settlement.

Its place in the layers (docs/architecture.md): rules, par, flow, replay and scenario are
the engines, at the bottom (no Django). models, services and recall are the `games` layer,
beside devices (neither imports the other), above casino. apis, admin, the commands and
the stand-in dealer (demo_rounds) are entry points. The round flow that gates these is
gaming/rounds.py.
"""
