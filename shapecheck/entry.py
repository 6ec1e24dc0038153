"""The console entry point: ``eval`` goes straight to the calculator, the rest to the typer app.

The calculator parses its own options, so sending it there before typer is
even imported keeps its start-up short (benchmarks/eval_startup.py).
"""

from __future__ import annotations

import gc
import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["eval"]:
        # The calculator's arrays are tiny: starting OpenBLAS's thread pool
        # would cost more start-up (about 70 ms here) than it could ever save.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        # A one-shot answer is imports and a few milliseconds of work. The imports
        # (libcst's hundreds of node classes above all) make only long-lived objects,
        # which the cyclic collector would walk again and again to free nothing:
        # about a tenth of the start-up. An interactive session turns it back on.
        collecting = gc.isenabled()
        gc.disable()
        from .calc.arguments import main as eval_main

        try:
            code = eval_main(args[1:])
        finally:
            if collecting:
                gc.enable()
    else:
        from .cli import main as cli_main

        code = cli_main(args)
    if argv is None:
        sys.exit(code)
    return code
