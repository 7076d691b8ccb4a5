"""The floor and its compliance records (issue 6).

- holders: certificate holders.
- submissions: Rules Submissions (§ 601a.2) and their lifecycle.
- layouts: layouts and signage (§ 601a.10(a)).
- tables: tables and their drop and tip box location approvals (§ 601a.10(g)).
- equipment: dice and tile sets, their time in play, and the inspections.
- audit: the append-only history of every change to the records above.
- api: integrators' tokens and the record of every write through the API.
- statistics: the thresholds the hold and dice fairness statistics alert at.
- notices: the compliance officers' notices of a set due soon or overdue (email).
"""

from casino.models.api import ApiToken, ApiWrite
from casino.models.audit import AuditEntry
from casino.models.equipment import (
    EquipmentSet,
    SetInPlay,
    SicBoOpeningInspection,
    TileInspection,
)
from casino.models.holders import CertificateHolder
from casino.models.layouts import Layout
from casino.models.lifecycle import Lifecycle
from casino.models.notices import EquipmentNotice
from casino.models.statistics import StatisticsThresholds
from casino.models.submissions import RulesSubmission
from casino.models.tables import LocationApproval, Table

__all__ = [
    "ApiToken",
    "ApiWrite",
    "AuditEntry",
    "CertificateHolder",
    "EquipmentNotice",
    "EquipmentSet",
    "Layout",
    "Lifecycle",
    "LocationApproval",
    "RulesSubmission",
    "SetInPlay",
    "SicBoOpeningInspection",
    "StatisticsThresholds",
    "Table",
    "TileInspection",
]
