"""The floor's admin, for operations and compliance staff (issue 6, item 6).

Each module registers its models; every action calls casino.services, never the models.
"""

from django.contrib import admin

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

# The home page leads with the pages of the day's work (the equipment schedule).
admin.site.index_template = "admin/casino/index.html"

__all__ = ["api", "audit", "equipment", "holders", "layouts", "statistics", "submissions", "tables"]
