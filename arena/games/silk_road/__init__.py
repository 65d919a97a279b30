"""Maritime Silk Road (海上丝路), Reiner Knizia's *Merchants*: cards, setups, rules, views, narration.

Read in rulebook order: ``cards`` (the material), ``setup`` (dealing and
checking setups), ``state`` (the turn: loading, phase 1, phase 2, the end) with
``actions`` (checking a bot's action) and ``events`` (the events it notes,
built when read), ``views`` and ``determinize`` (what a seat knows),
``narrate`` (the readable account), ``game`` (the registered game).
"""
