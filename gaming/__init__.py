"""The floor's gaming: every action that passes a gate, and what follows a device failing.

The top layer but for the entry points (docs/architecture.md): it composes the table's
compliance (casino), its devices (devices) and its rounds (games), and nothing below it
imports it. The API, the admin, the device views, the demo and the tasks call it.

- tables.py: open and close a table, start a round; the Sic Bo opening inspection.
- rounds.py: the round flow: open, wagers, events, "no more bets", the result, a no roll,
  a void; each action with its gates.
- devices.py: a device stops working: out of order, retired, faulted, stale; and what
  the regulations say happens then (§ 625a.7(b), (c)).
- reports.py: a device's report, into its table's round flow.
"""
