"""Device events: what happened to each device and what the floor did about it, read-only
(devices.services appends them; nothing edits or removes one)."""

from django.contrib import admin
from django.utils.safestring import SafeString

from casino.admin.common import FitsTheWindow, ReadOnlyAdmin
from devices.admin.devices import round_link, when_text
from devices.models import DeviceEvent


@admin.register(DeviceEvent)
class DeviceEventAdmin(FitsTheWindow, ReadOnlyAdmin):
    list_display = ("when", "device", "table", "kind", "cite", "detail", "event_round", "by")
    list_filter = ("kind", "table")
    search_fields = ("device__serial_number", "table__number", "detail")
    list_select_related = ("device__table", "table", "round__table", "by")
    date_hierarchy = "at"
    fields = ("device", "table", "kind", "when", "detail", "cite", "event_round", "by")
    readonly_fields = ("when", "event_round")

    @admin.display(description="at", ordering="at")
    def when(self, event: DeviceEvent) -> str:
        return when_text(event.at)

    @admin.display(description="round", ordering="round")
    def event_round(self, event: DeviceEvent) -> SafeString | str:
        return round_link(event)
