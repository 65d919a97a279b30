"""The built-in games, each a package registered through ``register_games`` like any plugin."""
