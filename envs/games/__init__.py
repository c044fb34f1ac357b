"""Built-in games of the games domain."""
