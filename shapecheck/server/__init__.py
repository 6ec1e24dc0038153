"""``shapecheck server``: the analyzer in the editor, as a Language Server over stdio.

documents.py analyzes one document as ``lint`` does and answers, in plain
data, what a hover, an inlay hint or a fix shows; lsp.py speaks the protocol
(pygls, an optional dependency: ``pip install 'shapecheck[server]'``).
"""

from __future__ import annotations

import sys


def run() -> int:
    """Serves on stdin/stdout; without pygls, one line on stderr and exit code 2."""
    try:
        from .lsp import serve
    except ImportError as exc:
        missing = (getattr(exc, "name", None) or "pygls").split(".")[0]
        print(f"shapecheck: error: the language server needs {missing}: pip install 'shapecheck[server]'",
              file=sys.stderr)
        return 2
    return serve()


__all__ = ["run"]
