"""The answers built from one serializer a class (casino/api/represent.py) are what DRF's
own `Serializer(row).data` gives, field for field, through the API."""

import json

import pytest
from django.core.cache import cache

from casino.api.represent import represented, represented_all
from games.apis import RoundDetailSerializer, RoundSerializer, WagerSerializer
from games.models import Round
from tests.api.conftest import API, bearer, new_key, one_table_build, post

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_a_wager_answer_is_what_the_serializers_give(device_store_database):
    cache.clear()
    built = one_table_build()
    client = bearer(built.key)
    body = {
        "wagers": [
            {"player": "ann", "kind": "small", "amount": "10.00"},
            {"player": "bob", "kind": "triple:4", "amount": "5.50"},
        ]
    }
    answer = post(client, f"{API}/rounds/{built.round.pk}/wagers/", body, key=new_key())
    assert answer.status_code == 201, answer.content
    round_ = Round.objects.get(pk=built.round.pk)
    placed = list(round_.wagers.order_by("id"))
    expected = {
        "round": RoundSerializer(round_).data,
        "wagers": WagerSerializer(placed, many=True).data,
    }
    assert json.loads(answer.content) == json.loads(json.dumps(expected, default=str))
    assert [w["ref"] for w in answer.json()["wagers"]] == ["1.1", "1.2"]
    assert [w["amount"] for w in answer.json()["wagers"]] == ["10.00", "5.50"]


def test_one_serializer_a_class_shows_each_row_as_a_new_one_would(device_store_database):
    cache.clear()
    built = one_table_build()
    client = bearer(built.key)
    for player in ("ann", "bob"):
        body = {"wagers": [{"player": player, "kind": "big", "amount": "25.00"}]}
        post(client, f"{API}/rounds/{built.round.pk}/wagers/", body, key=new_key())
    round_ = Round.objects.get(pk=built.round.pk)
    wagers = list(round_.wagers.order_by("id"))
    assert represented_all(WagerSerializer, wagers) == WagerSerializer(wagers, many=True).data
    assert [w["player"] for w in represented_all(WagerSerializer, wagers)] == ["ann", "bob"]
    detail = represented(RoundDetailSerializer, round_)
    assert detail == RoundDetailSerializer(round_).data
    assert [e["seq"] for e in detail["events"]] == [1, 2]
