from django.apps import AppConfig


class DevicesConfig(AppConfig):
    name = "devices"
    verbose_name = "Devices"

    def ready(self) -> None:
        # Here, not at the top: models are importable only once the registry is ready.
        from casino import audit
        from devices.models import Device, DeviceCredential

        audit.connect((Device, DeviceCredential))
