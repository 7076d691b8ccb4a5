"""The floor's admin, for operations and compliance staff (issue 6, item 6).

Each module registers its models; every action calls casino.services, never the models.
"""

from casino.admin import (
    api,
    audit,
    equipment,
    holders,
    layouts,
    statistics,
    submissions,
    tables,
)

__all__ = ["api", "audit", "equipment", "holders", "layouts", "statistics", "submissions", "tables"]
