"""Rules Submissions: draft, submit, approve or reject, supersede (§ 601a.2)."""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Max

from casino.models import CertificateHolder, Lifecycle, RulesSubmission
from casino.services.errors import FloorRefused, by_actor, permission_check
from casino.services.par import submission_par_sheets


@by_actor
def submission_draft(
    holder: CertificateHolder,
    game: str,
    *,
    variants: Sequence[str],
    table_types: Sequence[str],
    options: Mapping[str, object],
    by: Any,
    now: datetime,
    supersedes: RulesSubmission | None = None,
) -> RulesSubmission:
    """A new draft version for `holder` and `game`, numbered after the last one."""
    permission_check(by, "casino.add_rulessubmission", "draft a Rules Submission")
    shape = [
        f"{name} must be a list of names"
        for name, value in (("variants", variants), ("table_types", table_types))
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value)
    ]
    if not isinstance(options, Mapping):
        shape.append("options must be a JSON object of option names and values")
    if shape:
        raise FloorRefused("Draft", shape)
    with transaction.atomic():
        last = RulesSubmission.objects.select_for_update().filter(holder=holder, game=game)
        version = (last.aggregate(v=Max("version"))["v"] or 0) + 1
        return RulesSubmission.objects.create(
            holder=holder,
            game=game,
            version=version,
            variants=list(variants),
            table_types=list(table_types),
            options=dict(options),
            supersedes=supersedes,
            created_at=now,
            created_by=by,
        )


@by_actor
def submission_new_version(
    submission: RulesSubmission, *, by: Any, now: datetime
) -> RulesSubmission:
    """A draft copying `submission`, to supersede it once approved."""
    return submission_draft(
        submission.holder,
        submission.game,
        variants=submission.variants,
        table_types=submission.table_types,
        options=submission.options,
        by=by,
        now=now,
        supersedes=submission,
    )


@by_actor
def submission_submit(submission: RulesSubmission, *, by: Any, now: datetime) -> RulesSubmission:
    """Send a valid draft for approval, with its house edges computed for the reviewer."""
    permission_check(by, "casino.submit_rulessubmission", "submit a Rules Submission")
    with transaction.atomic():
        submission = RulesSubmission.objects.select_for_update().get(pk=submission.pk)
        if submission.status != Lifecycle.DRAFT:
            raise FloorRefused("Submit", [f"{submission} is {submission.status}, not a draft"])
        refusals = submission.refusals()
        if refusals:
            raise FloorRefused("Submit", refusals)
        submission.par_sheets = submission_par_sheets(submission)
        submission.status = Lifecycle.SUBMITTED
        submission.submitted_at, submission.submitted_by = now, by
        submission.save()
        return submission


@by_actor
def submission_approve(
    submission: RulesSubmission,
    *,
    by: Any,
    now: datetime,
    effective_at: datetime | None = None,
    note: str = "",
) -> RulesSubmission:
    """Approve a submitted version, in force from `effective_at` (default: now).

    The date may not be in the past: approving never changes which rules were in force
    at a moment already gone.
    """
    permission_check(by, "casino.approve_rulessubmission", "approve a Rules Submission")
    effective_at = effective_at or now
    with transaction.atomic():
        submission = RulesSubmission.objects.select_for_update().get(pk=submission.pk)
        reasons = []
        if submission.status != Lifecycle.SUBMITTED:
            reasons.append(f"{submission} is {submission.status}; only a submitted one is approved")
        if effective_at < now:
            reasons.append(
                f"the effective date {effective_at:%Y-%m-%d %H:%M} is in the past; it would "
                "rewrite which rules were in force"
            )
        clash = RulesSubmission.objects.filter(
            holder=submission.holder,
            game=submission.game,
            status=Lifecycle.APPROVED,
            effective_at=effective_at,
        ).first()
        if clash is not None:
            reasons.append(f"{clash} already takes force at that moment")
        reasons += _superseding_refusals(submission, effective_at)
        if not reasons:
            reasons = submission.refusals()
        if reasons:
            raise FloorRefused("Approve", reasons)
        submission.status = Lifecycle.APPROVED
        submission.effective_at = effective_at
        submission.decided_at, submission.decided_by = now, by
        submission.decision_note = note
        submission.save()
        return submission


@by_actor
def _superseding_refusals(submission: RulesSubmission, effective_at: datetime) -> list[str]:
    """A version takes force after the one it supersedes, and never after its successor:
    so a superseded version never comes back into force."""
    reasons = []
    older = submission.supersedes
    if (
        older is not None
        and older.status == Lifecycle.APPROVED
        and older.effective_at is not None
        and effective_at <= older.effective_at
    ):
        reasons.append(
            f"it supersedes {older}, which takes force at {older.effective_at:%Y-%m-%d %H:%M} "
            "UTC; it must take force after that"
        )
    newer = RulesSubmission.objects.filter(supersedes=submission, status=Lifecycle.APPROVED)
    reasons += [f"it is already superseded by {successor}" for successor in newer]
    return reasons


def submission_reject(
    submission: RulesSubmission, *, by: Any, now: datetime, reason: str
) -> RulesSubmission:
    """Reject a submitted version, saying why."""
    permission_check(by, "casino.approve_rulessubmission", "reject a Rules Submission")
    with transaction.atomic():
        submission = RulesSubmission.objects.select_for_update().get(pk=submission.pk)
        reasons = []
        if submission.status != Lifecycle.SUBMITTED:
            reasons.append(f"{submission} is {submission.status}; only a submitted one is rejected")
        if not reason.strip():
            reasons.append("a rejection says why")
        if reasons:
            raise FloorRefused("Reject", reasons)
        submission.status = Lifecycle.REJECTED
        submission.decided_at, submission.decided_by = now, by
        submission.decision_note = reason.strip()
        submission.save()
        return submission
