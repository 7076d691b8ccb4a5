"""The integrators' API over the floor (read-only until the round and table operations land)."""

from rest_framework import serializers, viewsets
from rest_framework.exceptions import ValidationError

from casino.models import CertificateHolder, Table


class CertificateHolderSerializer(serializers.ModelSerializer):
    class Meta:
        model = CertificateHolder
        fields = ["id", "name"]


class TableSerializer(serializers.ModelSerializer):
    holder = serializers.PrimaryKeyRelatedField(read_only=True)

    class Meta:
        model = Table
        fields = [
            "id",
            "holder",
            "number",
            "game",
            "variant",
            "seats",
            "min_wager",
            "max_wager",
            "operation",
            "automated_shaker",
            "layout",
            "status",
        ]


class CertificateHolderViewSet(viewsets.ReadOnlyModelViewSet):
    """Certificate holders."""

    queryset = CertificateHolder.objects.all()
    serializer_class = CertificateHolderSerializer


class TableViewSet(viewsets.ReadOnlyModelViewSet):
    """Tables, filterable by ``?game=``, ``?status=`` and ``?holder=``."""

    serializer_class = TableSerializer
    choice_filters = ("game", "status")

    def get_queryset(self):
        tables = Table.objects.select_related("holder")
        params = self.request.query_params
        for name in self.choice_filters:
            value = params.get(name)
            if value is None:
                continue
            choices = dict(Table._meta.get_field(name).choices)
            if value not in choices:
                allowed = ", ".join(choices)
                raise ValidationError({name: f"unknown {name} {value!r}; choose one of: {allowed}"})
            tables = tables.filter(**{name: value})
        holder = params.get("holder")
        if holder is not None:
            if not holder.isdigit():
                raise ValidationError({"holder": "must be a certificate holder id"})
            tables = tables.filter(holder_id=int(holder))
        return tables
