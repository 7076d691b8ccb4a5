"""The floor's template libraries: `{% load words %}` for money and labels."""
