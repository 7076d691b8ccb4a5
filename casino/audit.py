"""Who changed a compliance record: the actor of the current request or service call,
and the signal handlers that write an AuditEntry for every save and delete.

Signals catch every path (admin forms, admin actions, services, the shell), so no
change escapes the trail; `acting_as` (casino/actors.py) names the actor outside a web
request.
"""

import json
from collections.abc import Callable
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models.signals import post_delete, post_save, pre_save
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from casino.actors import acting_as, actor_current
from casino.models import (
    ApiToken,
    AuditEntry,
    CertificateHolder,
    EquipmentSet,
    Layout,
    LocationApproval,
    RulesSubmission,
    SetInPlay,
    SicBoOpeningInspection,
    StatisticsThresholds,
    Table,
    TileInspection,
)

AUDITED: tuple[type[models.Model], ...] = (
    CertificateHolder,
    RulesSubmission,
    Layout,
    Table,
    LocationApproval,
    EquipmentSet,
    SetInPlay,
    TileInspection,
    SicBoOpeningInspection,
    ApiToken,
    StatisticsThresholds,
)


class AuditActorMiddleware:
    """Every change made while serving a request is attributed to its signed-in user."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        with acting_as(user if user is not None and user.is_authenticated else None):
            return self.get_response(request)


def snapshot(instance: models.Model) -> dict[str, Any]:
    """The record's own fields as JSON values (foreign keys by id)."""
    values = {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}
    return json.loads(json.dumps(values, cls=DjangoJSONEncoder))


def _write(instance: models.Model, action: str, before: dict | None, after: dict | None) -> None:
    actor = actor_current()
    AuditEntry.objects.create(
        content_type=ContentType.objects.get_for_model(type(instance)),
        object_id=str(instance.pk),
        object_repr=str(instance)[:200],
        action=action,
        actor=actor,
        actor_name=actor.get_username() if actor is not None else "system",
        at=timezone.now(),
        before=before,
        after=after,
    )


def audit_created(instance: models.Model, **more: Any) -> None:
    """An entry for a record outside AUDITED (a ledger adjustment), with more to say."""
    after = snapshot(instance)
    after.update(json.loads(json.dumps(more, cls=DjangoJSONEncoder)))
    _write(instance, AuditEntry.Action.CREATED, None, after)


def _before_save(sender: type[models.Model], instance: models.Model, **kwargs: Any) -> None:
    if kwargs.get("raw"):
        return
    old = sender._default_manager.filter(pk=instance.pk).first() if instance.pk else None
    instance._audit_before = snapshot(old) if old is not None else None  # type: ignore[attr-defined]


def _after_save(
    sender: type[models.Model], instance: models.Model, created: bool, **kwargs: Any
) -> None:
    if kwargs.get("raw"):
        return
    # Read back, as `before` was: the database's own form of an amount ("10.00") and a
    # moment (UTC), so a value written differently but equal is not a change.
    stored = sender._default_manager.filter(pk=instance.pk).first()
    after = snapshot(stored if stored is not None else instance)
    before = getattr(instance, "_audit_before", None)
    if created or before is None:
        _write(instance, AuditEntry.Action.CREATED, None, after)
        return
    changed = [name for name in after if before.get(name) != after[name]]
    if changed:
        _write(
            instance,
            AuditEntry.Action.CHANGED,
            {name: before.get(name) for name in changed},
            {name: after[name] for name in changed},
        )


def _after_delete(sender: type[models.Model], instance: models.Model, **kwargs: Any) -> None:
    _write(instance, AuditEntry.Action.DELETED, snapshot(instance), None)


def connect(models_: tuple[type[models.Model], ...] = AUDITED) -> None:
    """Hook every audited model (called once from each app's ready())."""
    for model in models_:
        uid = f"casino-audit-{model._meta.label_lower}"
        pre_save.connect(_before_save, sender=model, dispatch_uid=uid + "-pre")
        post_save.connect(_after_save, sender=model, dispatch_uid=uid + "-post")
        post_delete.connect(_after_delete, sender=model, dispatch_uid=uid + "-delete")
