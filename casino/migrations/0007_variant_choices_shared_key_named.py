"""A variant key several games share ("standard") is named for all of them.

Its choice was named for the first game that has it, "Pai Gow", so a Sic Bo table's page
said "Variant: Pai Gow". Only the choices' names change: no column, no row.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("casino", "0006_equipment_notices"),
    ]

    operations = [
        migrations.AlterField(
            model_name="layout",
            name="variant",
            field=models.CharField(
                choices=[
                    ("craps", "Craps"),
                    ("mini_craps", "Mini-Craps"),
                    ("10_dice", "10 dice"),
                    ("6_dice", "6-dice variation (§ 675a.6)"),
                    ("standard", "Standard: Pai Gow (tiles), Sic Bo, Three Dice Football"),
                ],
                max_length=32,
            ),
        ),
        migrations.AlterField(
            model_name="table",
            name="variant",
            field=models.CharField(
                choices=[
                    ("craps", "Craps"),
                    ("mini_craps", "Mini-Craps"),
                    ("10_dice", "10 dice"),
                    ("6_dice", "6-dice variation (§ 675a.6)"),
                    ("standard", "Standard: Pai Gow (tiles), Sic Bo, Three Dice Football"),
                ],
                max_length=32,
            ),
        ),
    ]
