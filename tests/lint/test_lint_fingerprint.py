"""Fingerprints: rule, enclosing function, the statement's tokens and an occurrence index; never a line number."""

from __future__ import annotations

from shapecheck.analysis.findings import Finding, Severity, Span
from shapecheck.lint.fingerprint import StatementIndex, fingerprints, normalized

SOURCE = """\
import numpy as np

@register(1)
def f(a,
      b):
    for i in range(3):  # loop
        c = a  +  b; d = (a +
            b)  # two
    if a: y = 1
    return c
class K:
    def g(self): z = "é" + np.ones(3)
"""


def at(line, column):
    return StatementIndex(SOURCE).at(line, column)


def test_a_simple_statement_is_found_among_several_on_its_line_and_over_its_lines():
    assert at(7, 9) == ("f", "c = a  +  b")
    assert at(7, 22) == ("f", "d = (a +\n            b)")
    assert at(8, 13) == ("f", "d = (a +\n            b)")


def test_a_compound_statement_is_its_header_only():
    function, text = at(6, 5)
    assert function == "f" and normalized(text) == "for i in range ( 3 ) :"
    assert normalized(at(9, 5)[1]) == "if a :" and at(9, 11) == ("f", "y = 1")


def test_a_def_header_includes_its_decorators_and_belongs_to_the_scope_around_it():
    function, text = at(4, 7)
    assert function == "" and normalized(text) == "@ register ( 1 ) def f ( a , b ) :"


def test_methods_are_qualified_by_their_class_and_columns_count_characters():
    assert at(12, 22) == ("K.g", 'z = "é" + np.ones(3)')


def test_normalizing_ignores_whitespace_line_breaks_and_comments_but_not_strings():
    assert normalized("d = (a +\n   b)  # two") == normalized("d=(a+b)") == "d = ( a + b )"
    assert normalized("s = 'a  b'") != normalized("s = 'a b'")


def test_a_source_python_cannot_parse_falls_back_to_the_findings_line():
    index = StatementIndex("x = (1,\ny = 2\n")
    assert index.at(2, 1) == ("", "y = 2")


def finding(line, code="SC101"):
    return Finding("m.py", Span(line, 5, line, 10), code, "n", Severity.ERROR, "m")


def test_identical_statements_in_one_function_count_in_source_order():
    source = "def f():\n    a + b\n    a + b\n    a - b\n"
    first, second, other = finding(2), finding(3), finding(4)
    prints = fingerprints([second, other, first], {("m.py", None): source})
    assert (prints[id(first)].occurrence, prints[id(second)].occurrence, prints[id(other)].occurrence) == (0, 1, 0)
    assert len({p.digest for p in prints.values()}) == 3


def test_the_digest_does_not_depend_on_the_line():
    above = fingerprints([finding(2)], {("m.py", None): "def f():\n    a + b\n"})
    below = fingerprints([finding(5)], {("m.py", None): "x = 1\n\n\ndef f():\n    a  +  b\n"})
    assert [p.digest for p in above.values()] == [p.digest for p in below.values()]


def test_lines_end_where_python_ends_them_a_lone_carriage_return_too():
    # Python (and so every finding's line) counts "\r" alone as a line break.
    index = StatementIndex("#\rx = 1\r\ny = 2\n")
    assert index.at(2, 1) == ("", "x = 1")
    assert index.at(3, 1) == ("", "y = 2")
