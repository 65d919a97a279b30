"""The bot author's kit: ``arena new-bot`` (a ready plugin distribution) and ``arena check-bot``.

``scaffold`` writes a new distribution from the templates in ``templates``;
``conformance`` plays a bot against ``random`` and measures what an author
must know before entering a tournament (faults, decision times, determinism);
``commands`` adds both commands to the CLI. ``arena.testing`` exposes the same
check to pytest.
"""
