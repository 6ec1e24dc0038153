"""Compatibility name for the interpreter package (shapecheck.analysis.interpret)."""

from .interpret import Interpreter, Scope, Step, analyze_module, evaluate_snippet

__all__ = ["Interpreter", "Scope", "Step", "analyze_module", "evaluate_snippet"]
