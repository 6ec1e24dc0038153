"""Static analysis: source text in, findings out."""
