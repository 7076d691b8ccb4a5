"""The statistics' alert thresholds: defaults, one row per holder, who may set them."""

from decimal import Decimal

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction

from casino.models import AuditEntry, StatisticsThresholds
from casino.services.statistics import thresholds_for
from tests.casino.floor_fixtures import holder_get, operations, staff
from tests.casino.test_admin import audit_inline_management

pytestmark = pytest.mark.django_db


def test_a_holder_without_a_row_has_z_3_and_p_0_001():
    assert thresholds_for(holder_get()) == (Decimal("3"), Decimal("0.001"))


def test_the_holders_row_is_read_and_its_change_audited():
    holder = holder_get()
    row = StatisticsThresholds.objects.create(
        holder=holder, hold_z_threshold=Decimal("2.5"), fairness_p_threshold=Decimal("0.0001")
    )
    assert thresholds_for(holder.pk) == (Decimal("2.50"), Decimal("0.000100"))
    assert thresholds_for(holder_get("Another")) == (Decimal("3"), Decimal("0.001"))
    kind = ContentType.objects.get_for_model(StatisticsThresholds)
    assert AuditEntry.objects.filter(content_type=kind, object_id=str(row.pk)).count() == 1


@pytest.mark.parametrize(
    "fields", [{"hold_z_threshold": Decimal("0.5")}, {"fairness_p_threshold": Decimal("0.5")}]
)
def test_a_threshold_out_of_range_is_refused_by_the_database(fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        StatisticsThresholds.objects.create(holder=holder_get(), **fields)
    assert not StatisticsThresholds.objects.exists()


def test_operations_set_them_and_the_regulator_only_reads(client):
    holder = holder_get()
    user = operations()
    user.is_staff = True
    user.save()
    client.force_login(user)
    answer = client.post(
        "/admin/casino/statisticsthresholds/add/",
        {"holder": holder.pk, "hold_z_threshold": "2.75", "fairness_p_threshold": "0.001"}
        | audit_inline_management(),
    )
    assert answer.status_code == 302, answer.content[:2000]
    assert thresholds_for(holder)[0] == Decimal("2.75")

    regulator = staff("rita_regulator", "regulator")
    regulator.is_staff = True
    regulator.save()
    client.force_login(regulator)
    row = StatisticsThresholds.objects.get()
    assert client.get(f"/admin/casino/statisticsthresholds/{row.pk}/change/").status_code == 200
    refused = client.post(
        f"/admin/casino/statisticsthresholds/{row.pk}/change/",
        {"holder": holder.pk, "hold_z_threshold": "9", "fairness_p_threshold": "0.001"}
        | audit_inline_management(),
    )
    assert refused.status_code == 403
    assert thresholds_for(holder)[0] == Decimal("2.75")
