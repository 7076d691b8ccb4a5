"""List filters that take exactly what the schema says of them.

django-filter reads a query parameter leniently: an empty value (`?at_after=`,
`?status=`) means "no filter" whatever the parameter's type, a boolean it cannot read
(`?in_play=maybe`) is ignored, and a number filter on an integer column takes `1.5`. The
schema (drf-spectacular, from the same filters) says a date-time, an enum value, a
boolean or an integer: such a request is schema-invalid, and is refused here, 400
`invalid` naming the parameter, as any other bad value is. A free-text filter takes any
string, the empty one included. A filter that names a record (`?round=`) looks it up among
the records the caller sees: another certificate holder's is refused as one that exists
nowhere is. Every list gets this: it is the project's filter backend.
"""

import re
from typing import Any

from django import forms
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django_filters import filters
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError

from casino.api.permissions import seen

# What the schema's "integer" reads from a query: ASCII digits, a sign at most.
INTEGER = re.compile(r"[+-]?[0-9]+")
# A free-text filter takes any string but one holding U+0000 (Django's forms refuse it: the
# database cannot store or compare it): the schema's pattern for such a parameter.
FREE_TEXT_PATTERN = r"^[^\x00]*$"
EMPTY = "may not be empty: leave the parameter out not to filter by it"


def names_a_record(filter_: filters.Filter) -> str | None:
    """The kind of record the filter's value names ("table"), refused when it names none;
    None for a filter of any other value."""
    if isinstance(filter_, filters.ModelChoiceFilter | filters.ModelMultipleChoiceFilter):
        model = getattr(filter_.queryset, "model", None)  # None: a queryset made per request
        return str(model._meta.verbose_name) if model else filter_.field_name.split("__")[-1]
    return getattr(filter_, "names_a_record", None)


def free_text(filter_: filters.Filter) -> bool:
    """True for a filter of any string (an empty one included)."""
    return filter_.field_class is forms.CharField


def _integer_column(filterset: Any, filter_: filters.Filter) -> bool:
    model = filterset._meta.model
    try:
        field = model._meta.get_field(filter_.field_name)
    except FieldDoesNotExist:
        return False
    return isinstance(field, models.IntegerField | models.AutoField)


def value_errors(filterset: Any) -> dict[str, list[str]]:
    """What the form took but the schema does not: {parameter: [why]}."""
    errors: dict[str, list[str]] = {}
    cleaned = getattr(filterset.form, "cleaned_data", {})
    for name, field in filterset.form.fields.items():
        raw = filterset.data.get(name)  # the last value, as the form reads it
        if raw is None:
            continue
        filter_ = filterset.filters[name]
        if raw == "" and type(field) is not forms.CharField:
            errors[name] = [EMPTY]
        elif isinstance(field, forms.NullBooleanField) and cleaned.get(name) is None:
            errors[name] = ["must be true or false"]
        elif (
            isinstance(filter_, filters.NumberFilter)
            and _integer_column(filterset, filter_)
            and not INTEGER.fullmatch(raw)
        ):
            errors[name] = ["must be an integer"]
    return errors


class FilterBackend(DjangoFilterBackend):
    """django-filter's backend, refusing a value the parameter's schema does not take."""

    def filter_queryset(self, request: Any, queryset: Any, view: Any) -> Any:
        """The rows the filters keep, or a 400 naming each parameter in error."""
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        for filter_ in filterset.filters.values():
            if isinstance(filter_, filters.ModelChoiceFilter | filters.ModelMultipleChoiceFilter):
                # Another holder's record is refused as one that exists nowhere is.
                filter_.queryset = seen(filter_.get_queryset(request), request)
        valid = filterset.is_valid()
        errors = value_errors(filterset)
        if not valid:
            errors.update({name: list(texts) for name, texts in filterset.errors.items()})
        if errors:
            raise ValidationError(errors)
        return filterset.qs
