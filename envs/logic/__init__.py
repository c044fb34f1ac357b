"""Built-in games of the logic domain."""
