"""Layouts: submitted to the Bureau of Gaming Operations and approved (§ 601a.10(a))."""

from datetime import datetime
from typing import Any

from django.db import transaction

from casino.models import Layout, Lifecycle
from casino.services.errors import FloorRefused, by_actor, permission_check


@by_actor
def layout_submit(layout: Layout, *, by: Any, now: datetime) -> Layout:
    """Send a draft layout that shows everything its chapter requires."""
    permission_check(by, "casino.submit_layout", "submit a layout")
    with transaction.atomic():
        layout = Layout.objects.select_for_update().get(pk=layout.pk)
        if layout.status != Lifecycle.DRAFT:
            raise FloorRefused("Submit", [f"{layout} is {layout.status}, not a draft"])
        refusals = layout.refusals()
        if refusals:
            raise FloorRefused("Submit", refusals)
        layout.status = Lifecycle.SUBMITTED
        layout.submitted_at, layout.submitted_by = now, by
        layout.save()
        return layout


@by_actor
def layout_decide(
    layout: Layout, *, approve: bool, by: Any, now: datetime, note: str = ""
) -> Layout:
    """Record the Bureau's approval or rejection of a submitted layout."""
    permission_check(by, "casino.approve_layout", "approve or reject a layout")
    with transaction.atomic():
        layout = Layout.objects.select_for_update().get(pk=layout.pk)
        reasons = []
        if layout.status != Lifecycle.SUBMITTED:
            reasons.append(f"{layout} is {layout.status}; only a submitted layout is decided")
        if not approve and not note.strip():
            reasons.append("a rejection says why")
        if approve and not reasons:
            reasons = layout.refusals()
        if reasons:
            raise FloorRefused("Approve" if approve else "Reject", reasons)
        layout.status = Lifecycle.APPROVED if approve else Lifecycle.REJECTED
        layout.decided_at, layout.decided_by = now, by
        layout.decision_note = note.strip()
        layout.save()
        return layout
