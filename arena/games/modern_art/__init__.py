"""Modern Art (Reiner Knizia): the rules engine, views, determinization and account.

Modules read like the rulebook: ``cards`` (the material), ``setup`` (deals and
setup checks), ``state`` (the rules) with ``events`` (the events it notes,
built when read), ``views`` (what a seat sees),
``determinize`` (a full state from a view), ``narrate`` (the readable
account), ``game`` (the game object), ``plugin``. Imports go one way: cards
<- setup, views and events <- state <- determinize <- game.
"""
