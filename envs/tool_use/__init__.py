"""Built-in games of the tool_use domain."""
