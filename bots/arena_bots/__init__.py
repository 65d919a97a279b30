"""arena's reference bots, a plugin distribution of their own (entry point ``arena``)."""
