from django.contrib import admin

from casino.models import CertificateHolder, Table


class TableInline(admin.TabularInline):
    model = Table
    extra = 0
    fields = ("number", "game", "variant", "status")


@admin.register(CertificateHolder)
class CertificateHolderAdmin(admin.ModelAdmin):
    list_display = ("name", "table_count")
    search_fields = ("name",)
    inlines = [TableInline]

    @admin.display(description="tables")
    def table_count(self, holder: CertificateHolder) -> int:
        return holder.tables.count()


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("number", "holder", "game", "variant", "status")
    list_filter = ("game", "status", "holder")
    search_fields = ("number", "holder__name")
    list_select_related = ("holder",)
