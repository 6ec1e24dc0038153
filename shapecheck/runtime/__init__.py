"""Pure semantics of NumPy and PyTorch ops: dims, shape rules, op table, engine."""
