"""The roles as Django groups: operations runs the floor, compliance approves, an
integrator drives its certificate holder's tables through the API (its token bounds it to
that holder), a regulator reads everything and changes nothing. A device is no user: it
speaks only with its own credential at /devices/v1/ (devices/auth.py).

Kept in step with the code after every migrate (post_migrate), so a permission added
here reaches every database without a data migration.
"""

from typing import Any

VIEW_ALL = [
    f"casino.view_{model}"
    for model in (
        "certificateholder",
        "rulessubmission",
        "layout",
        "table",
        "locationapproval",
        "equipmentset",
        "setinplay",
        "tileinspection",
        "sicboopeninginspection",
        "auditentry",
        "apiwrite",
        "statisticsthresholds",
    )
] + ["casino.view_compliance_report"]
VIEW_ROUNDS = [
    f"games.view_{model}"
    for model in (
        "round",
        "roundevent",
        "wager",
        "resolution",
        "ledgerentry",
        "ledgerline",
        "settlementrequest",
    )
]
VIEW_DEVICES = [f"devices.view_{model}" for model in ("device", "devicecredential", "deviceevent")]
VIEW_WEBHOOKS = ["webhooks.view_endpoint", "webhooks.view_delivery"]
# Register, change and delete endpoints; send a delivery again (docs/api.md, Webhooks).
MANAGE_WEBHOOKS = [
    *VIEW_WEBHOOKS,
    "webhooks.add_endpoint",
    "webhooks.change_endpoint",
    "webhooks.delete_endpoint",
    "webhooks.change_delivery",
]

ROLES: dict[str, list[str]] = {
    "operations": [
        *VIEW_ALL,
        *VIEW_ROUNDS,
        *VIEW_DEVICES,
        "games.run_round",
        "devices.add_device",
        "devices.operate_device",
        "casino.add_table",
        "casino.change_table",
        "casino.operate_table",
        "casino.add_equipmentset",
        "casino.change_equipmentset",
        "casino.record_changeout",
        "casino.record_inspection",
        "casino.add_rulessubmission",
        "casino.change_rulessubmission",
        "casino.submit_rulessubmission",
        "casino.add_layout",
        "casino.change_layout",
        "casino.submit_layout",
        "casino.add_apitoken",
        "casino.view_apitoken",
        "casino.change_apitoken",
        # The alert thresholds of hold and dice fairness (docs/statistics.md).
        "casino.add_statisticsthresholds",
        "casino.change_statisticsthresholds",
        *MANAGE_WEBHOOKS,
    ],
    "compliance": [
        *VIEW_ALL,
        *VIEW_ROUNDS,
        *VIEW_DEVICES,
        *VIEW_WEBHOOKS,
        "games.adjust_ledger",
        "casino.add_rulessubmission",
        "casino.change_rulessubmission",
        "casino.submit_rulessubmission",
        "casino.approve_rulessubmission",
        "casino.approve_layout",
        "casino.add_locationapproval",
        "casino.record_locationapproval",
        "casino.add_statisticsthresholds",
        "casino.change_statisticsthresholds",
        # The equipment schedule's changeout, recorded from its row (issue 35).
        "casino.record_changeout",
    ],
    # Drives the floor through the API: everything a dealer's station does, none of the
    # compliance decisions, no registering of devices (that issues secrets).
    "integrator": [
        *[f"casino.view_{m}" for m in ("certificateholder", "rulessubmission", "layout", "table")],
        *[f"casino.view_{m}" for m in ("equipmentset", "setinplay", "apiwrite")],
        "casino.view_compliance_report",
        *VIEW_ROUNDS,
        "devices.view_device",
        "devices.view_deviceevent",
        "games.run_round",
        "casino.operate_table",
        "casino.record_changeout",
        "devices.operate_device",
        # Its holder's webhook endpoints (its token bounds it to that holder).
        *MANAGE_WEBHOOKS,
    ],
    # The Board's read-only view: every record, every trail, no action.
    "regulator": [*VIEW_ALL, *VIEW_ROUNDS, *VIEW_DEVICES, *VIEW_WEBHOOKS],
}


def roles_sync(app_config: Any = None, **_: Any) -> None:
    """Create the groups and give each exactly its permissions.

    After a migrate, once: when the last app's permissions exist (roles span apps).
    """
    from django.apps import apps
    from django.contrib.auth.models import Group, Permission

    if app_config is not None and app_config is not list(apps.get_app_configs())[-1]:
        return

    for name, codes in ROLES.items():
        group, _ = Group.objects.get_or_create(name=name)
        permissions = []
        for code in codes:
            app_label, codename = code.split(".")
            permissions.append(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
        group.permissions.set(permissions)
