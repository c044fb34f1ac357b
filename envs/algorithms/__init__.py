"""Built-in games of the algorithms domain."""
