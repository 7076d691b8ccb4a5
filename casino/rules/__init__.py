"""The floor's rules as data and pure functions: no Django here, like games/rules.

Each module holds the equipment, layout, table and Rules Submission requirements of the
chapters, with the section beside each value, so the models and services only apply them.
"""
