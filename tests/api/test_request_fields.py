"""A request takes exactly what its schema says (casino/api/fields.py): a boolean is JSON's
true or false, and a closed body refuses any field it does not name, naming each. The
schema's generation warns (and so fails, tests/api_fuzz/test_schema_committed.py) where a
request would say one thing and take another."""

import pickle

import pytest
from django.urls import path
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.views import APIView

from casino.api.fields import ClosedSerializer, StrictBooleanField
from casino.api.schema import ApiSchema


class Change(ClosedSerializer):
    active = StrictBooleanField(required=False)
    note = serializers.CharField(required=False)
    id = serializers.IntegerField(read_only=True)


@pytest.mark.parametrize("given", [True, False])
def test_a_strict_boolean_takes_true_and_false(given):
    body = Change(data={"active": given})
    assert body.is_valid(), body.errors
    assert body.validated_data == {"active": given}


@pytest.mark.parametrize(
    ("given", "shown"),
    [("yes", '"yes"'), ("off", '"off"'), ("true", '"true"'), (1, "1"), (0, "0"), (1.0, "1.0"),
     ({}, "{}"), ("x" * 100, "a str of 102 characters")],
)  # fmt: skip
def test_a_strict_boolean_refuses_anything_else_naming_the_field(given, shown):
    body = Change(data={"active": given})
    assert not body.is_valid()
    assert body.errors == {"active": [f"must be true or false (a JSON boolean), not {shown}"]}


def test_a_closed_body_refuses_each_field_it_does_not_name_read_only_ones_too():
    body = Change(data={"note": "n", "id": 4, "holder": 2})
    assert not body.is_valid()
    why = "is not a field this body takes (it takes active, note)"
    assert body.errors == {"holder": [why], "id": [why]}
    assert Change(data={"note": "n"}).is_valid()


def test_the_refusal_survives_pickling():
    body = Change(data={"holder": 2})
    with pytest.raises(serializers.ValidationError) as refused:
        body.is_valid(raise_exception=True)
    again = pickle.loads(pickle.dumps(refused.value))
    assert again.detail == refused.value.detail


def _warnings(call) -> list[str]:
    GENERATOR_STATS.reset()
    GENERATOR_STATS.silent = True  # counted, not printed
    try:
        call()
        return list(GENERATOR_STATS._warn_cache)
    finally:
        GENERATOR_STATS.reset()
        GENERATOR_STATS.silent = False


def test_drf_s_boolean_in_a_request_is_a_warning_of_the_schema():
    loose = serializers.BooleanField()
    loose.bind("active", Change())
    strict = StrictBooleanField()
    strict.bind("active", Change())
    schema = ApiSchema()
    assert _warnings(lambda: schema._map_serializer_field(strict, "request")) == []
    assert _warnings(lambda: schema._map_serializer_field(loose, "response")) == []
    (warned,) = _warnings(lambda: schema._map_serializer_field(loose, "request"))
    assert "active: a request's boolean is a StrictBooleanField" in warned


class SaysClosed(serializers.Serializer):
    closed = True
    note = serializers.CharField()


def _view_taking(body: type[serializers.Serializer]) -> type[APIView]:
    class Taking(APIView):
        @extend_schema(request=body, responses={204: None})
        def post(self, request):  # pragma: no cover - only its schema is read
            raise NotImplementedError

    return Taking


def _generated(body: type[serializers.Serializer]) -> dict:
    generator = SchemaGenerator(patterns=[path("x/", _view_taking(body).as_view())])
    return generator.get_schema(request=None, public=True)


def test_a_body_that_says_closed_without_refusing_is_a_warning_of_the_schema():
    (warned,) = _warnings(lambda: _generated(SaysClosed))
    assert "SaysClosed says closed but is no ClosedSerializer" in warned
    assert _warnings(lambda: _generated(Change)) == []
    schema = _generated(Change)["components"]["schemas"]["ChangeRequest"]
    assert schema["additionalProperties"] is False
