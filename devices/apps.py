from django.apps import AppConfig


class DevicesConfig(AppConfig):
    name = "devices"
    verbose_name = "Devices"

    def ready(self) -> None:
        from casino import audit
        from devices.models import Device, DeviceCredential

        audit.connect((Device, DeviceCredential))
