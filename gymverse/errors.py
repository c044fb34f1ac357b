"""The one error for bad input: a request gymverse cannot serve, with a message that says what to fix.

Command lines print it as one line and exit with status 2; library callers catch it like any ValueError.
"""


class BadInput(ValueError):
    """Bad input from a user (a flag value, an id, a path, a file): the message names it and says why."""
