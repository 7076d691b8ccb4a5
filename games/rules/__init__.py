"""The regulated maths: one pure package per game, no Django, Celery or Redis import.

Everything that decides what a wager pays lives here, next to the section of
58 Pa. Code it comes from. Django calls these engines and stores what they decide.
"""
