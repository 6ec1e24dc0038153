"""The abstract interpreter: one walk over a module in program order.

Each file of this package holds one concern, and ``Interpreter`` composes
them: context (state and reporting), statements (flow and bindings),
expressions, opcalls (the only door to the runtime op table), any_rank (calls on
arrays of unknown rank: the rank every input the op takes gives), calls,
inplace (the writes of in-place ops and the shapes they change), creation,
functions (summaries and specialization), modules (classes and torch.nn) and
effects (alias facts of every array, and the write and read events
SC301-SC304, SC306 and SC307 fire from) and constraints
(symbols the code names, and SC112). Every op is evaluated by the runtime
(shapecheck.runtime), so the shape rules exist once; this package only turns source into
operands and runtime verdicts into findings. Anything it does not
understand evaluates to an unknown value, which never produces a finding.
"""

from __future__ import annotations

import os
from typing import Any

import libcst as cst

from ...runtime.dialects import Dialect, get_dialect
from ..findings import Finding
from ..values import AbstractArray, ModuleRef
from .any_rank import AnyRank
from .attributes import Attributes
from .builtins import Builtins
from .calls import Calls
from .classes import Classes
from .constraints import Constraints
from .containers import Containers
from .context import Context, Step
from .creation import Creation
from .dicts import Dicts
from .effects import Effects
from .env import Scope
from .expressions import Expressions
from .functions import Functions
from .imported import ImportSession, ProjectImports
from .inplace import InPlace
from .modules import Modules
from .opcalls import OpGateway
from .records import Records
from .recurrent import Recurrent
from .statements import Statements


class Interpreter(ProjectImports, Context, Statements, Expressions, Attributes, OpGateway, AnyRank,
                  Calls, Builtins, Containers, Creation, Functions, Modules, Classes, Recurrent, Effects,
                  Constraints, Dicts, InPlace, Records):
    """Runs one module abstractly and collects its findings."""

    def __init__(self, module: cst.Module, source: str, path: str, settings: Any,
                 force_dialect: Dialect | None = None):
        Context.__init__(self, module, source, path, settings, force_dialect)
        ProjectImports.__init__(self)


def analyze_module(module: cst.Module, source: str, path: str, settings: Any,
                   coverage: Any = None, imported: dict[str, str] | None = None) -> list[Finding]:
    """All shape, in-place and aliasing findings for one parsed module.

    ``coverage``, a CoverageRecorder, records every array-valued expression evaluated.
    When ``path`` is a file, imports of other files of the project are followed
    (interpret/imported.py); ``imported`` then receives each file loaded, as path ->
    content digest, for the cache to key on.
    """
    interp = Interpreter(module, source, path, settings)
    interp.coverage = interp.home_coverage = coverage
    if coverage is not None:
        coverage.attach(interp)
    try:
        if os.path.isfile(path):
            session = ImportSession(path, getattr(settings, "project_root", None))
            interp.start_imports(session)
            try:
                return interp.run()
            finally:
                if imported is not None:
                    imported.update(session.dependencies)
        return interp.run()
    finally:
        if coverage is not None:
            coverage.positions = interp.positions


def evaluate_snippet(source: str, env: dict[str, AbstractArray], dialect: str) -> list[Step]:
    """Evaluate array expressions over given shapes, step by step (for the calculator).

    The source is parsed, never executed; ``env`` binds names to arrays; every
    op is evaluated under ``dialect`` ("numpy", "torch", "torch-legacy",
    "numpy-1"). numpy and torch are importable as np/numpy and torch/F.
    """
    module = cst.parse_module(source)
    interp = Interpreter(module, source, "<snippet>", None, force_dialect=get_dialect(dialect))
    scope = interp.frame.scope
    scope.vars.update({"np": ModuleRef("numpy"), "numpy": ModuleRef("numpy"),
                       "torch": ModuleRef("torch"), "F": ModuleRef("torch.nn.functional")})
    scope.vars.update(env)
    interp.trace = []
    interp.exec_block(interp.module.body)
    return interp.trace


__all__ = ["Interpreter", "Scope", "Step", "analyze_module", "evaluate_snippet"]
