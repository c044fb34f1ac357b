"""Text a game wrote, made safe to print: its control characters written out, not obeyed by a terminal.

Error messages, file and class names and observations reach terminals, tables and reports. An escape sequence
in them could erase a row and forge another, set a window's title or write the clipboard (OSC 0, OSC 52); a
new line in a name forges a row. As git and ls do for names they print, :func:`visible` writes such characters
out (ESC as ``\\x1b``). The console applies it to everything it prints (:mod:`gymverse.console`); the writers
of plain files and the ids of a folder's games apply it themselves.
"""

import re

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")  # C0, DEL, C1 and lone surrogates
_CONTROL_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _shown(match: re.Match) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def visible(text: str, lines: bool = False) -> str:
    """``text`` with its control characters written out (ESC as ``\\x1b``): one line, or with ``lines`` its
    newlines and tabs kept (an observation's layout). For anything a game wrote that is printed or reported."""
    return (_CONTROL_BUT_LINES if lines else _CONTROL).sub(_shown, text)
