"""``shapecheck eval`` input: empty dims, int64 sizes, Unicode names, and verdicts that depend on symbols."""

import json

import numpy as np
import pytest
from eval_cli import run


@pytest.mark.parametrize("binding, fragment", [
    ("x=", "no dimensions for 'x' (write x=() for a 0-d array)"),
    ("x= ", "no dimensions for 'x' (write x=() for a 0-d array)"),
    ("x=:int64", "no dimensions for 'x' (write x=():int64 for a 0-d array)"),
    ("x=9223372036854775808", "dimension 9223372036854775808 is beyond int64"),
    ("x=3,99999999999999999999999", "is beyond int64"),
    ("if=3", "'if' is not a name"),
])
def test_bad_bindings_are_one_line_with_exit_code_2(binding, fragment):
    result = run("x + 1", "-s", binding)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], result.stderr
    assert result.stdout == ""


def test_an_explicit_empty_tuple_is_still_0_d():
    result = run("x + y", "-s", "x=()", "-s", "y=3", "-d", "numpy", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["numpy"]["shape"] == [3]


def test_the_largest_int64_size_is_accepted():
    result = run("x.sum(0)", "-s", "x=9223372036854775807", "-d", "numpy", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["numpy"]["shape"] == []


def test_an_empty_definition_in_a_session_is_an_error():
    result = run(stdin="x:\nx = ()\nx + 1\n")
    assert "no dimensions for 'x'" in result.stderr
    assert "= ()" in result.stdout


@pytest.mark.parametrize("args", [
    ("δ + y", "-s", "δ=3", "-s", "y=3"),
    ("größe * 2", "-s", "größe=3"),
    ("x + y", "-s", "x=3,Länge", "-s", "y=Länge"),
    # Python reads identifiers NFKC-normalized: the ligature ﬁ is the name fi.
    ("ﬁ + 1", "-s", "fi=3"),
    ("fi + 1", "-s", "ﬁ=3"),
])
def test_unicode_identifiers_python_allows_are_accepted(args):
    result = run(*args, "-d", "numpy", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["numpy"]["ok"] is True


def test_unicode_names_work_in_a_session():
    result = run(stdin="δ = (5, 1)\nδ + 1\n:shapes\n", *("-d", "numpy"))
    assert result.exit_code == 0, result.output
    assert "= (5, 1)" in result.stdout
    assert "δ: (5, 1)" in result.stdout


def _summary(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith("  = "))


def test_a_legacy_fallback_on_a_symbol_is_not_printed_as_a_plain_shape():
    # (B, 3) and (4,) never broadcast; old torch's fallback needed 3*B == 4.
    result = run("x + y", "-s", "x=B,3", "-s", "y=4", "-d", "torch-legacy")
    summary = _summary(result.stdout)
    assert "depends on B" in summary, result.stdout
    assert "fails for every size tried" in summary
    as_json = json.loads(run("x + y", "-s", "x=B,3", "-s", "y=4", "-d", "torch-legacy",
                             "-f", "json").stdout)["torch-legacy"]
    assert as_json["depends_on"]["symbols"] == ["B"]
    assert as_json["depends_on"]["holds_for"] == []
    assert {"B": 1} in as_json["depends_on"]["fails_for"]


def test_a_dependence_names_the_sizes_for_which_the_fallback_holds():
    result = run("x + y", "-s", "x=B,3", "-s", "y=6", "-d", "torch-legacy", "-f", "json")
    depends = json.loads(result.stdout)["torch-legacy"]["depends_on"]
    assert depends["holds_for"] == [{"B": 2}]  # 3 * 2 == 6: the 1-D fallback
    text = run("x + y", "-s", "x=B,3", "-s", "y=6", "-d", "torch-legacy").stdout
    assert "holds for B=2; fails for B=1" in _summary(text)


def test_sizes_said_to_hold_or_fail_agree_with_real_numpy():
    result = run("x + y", "-s", "x=B", "-s", "y=3", "-d", "numpy", "-f", "json")
    depends = json.loads(result.stdout)["numpy"]["depends_on"]
    assert depends["symbols"] == ["B"] and depends["holds_for"] and depends["fails_for"]
    for sizes in depends["holds_for"]:
        np.broadcast_shapes((sizes["B"],), (3,))
    for sizes in depends["fails_for"]:
        with pytest.raises(ValueError):
            np.broadcast_shapes((sizes["B"],), (3,))


def test_a_verdict_that_holds_for_every_size_stays_plain():
    result = run("x + y", "-s", "x=B,3", "-s", "y=3", "-d", "all")
    assert _summary(result.stdout) .startswith("  = (B, 3)")
    assert "depends" not in result.stdout
    as_json = json.loads(run("x + y", "-s", "x=B,3", "-s", "y=3", "-f", "json").stdout)
    assert all(v["depends_on"] is None for v in as_json.values())


def test_a_dependence_shows_in_a_session_too():
    result = run(stdin="x = (B,)\ny = (3,)\nx + y\n", *("-d", "numpy"))
    assert "depends on B: holds for B=1, 3" in result.stdout


def test_a_matmul_whose_inner_sizes_are_different_symbols_depends_on_them():
    torch = pytest.importorskip("torch")
    args = ("q @ k.transpose(-2, -1)", "-s", "q=B,H,T,D k=B,H,S,E", "-d", "torch")
    summary = _summary(run(*args).stdout)
    assert summary.startswith("  = (B, H, T, S) depends on B, H, T, D, S, E: holds for B=H=T=D=S=E=1")
    depends = json.loads(run(*args, "-f", "json").stdout)["torch"]["depends_on"]
    for sizes in depends["holds_for"]:
        q = torch.zeros(sizes["B"], sizes["H"], sizes["T"], sizes["D"])
        k = torch.zeros(sizes["B"], sizes["H"], sizes["S"], sizes["E"])
        assert tuple((q @ k.transpose(-2, -1)).shape) == (sizes["B"], sizes["H"], sizes["T"],
                                                           sizes["S"])
    for sizes in depends["fails_for"][:3]:
        q = torch.zeros(sizes["B"], sizes["H"], sizes["T"], sizes["D"])
        k = torch.zeros(sizes["B"], sizes["H"], sizes["S"], sizes["E"])
        with pytest.raises(RuntimeError):
            q @ k.transpose(-2, -1)


def test_operand_labels_with_brackets_are_shown_as_written():
    # rich markup would read "[b]" as a bold tag and print the label as "x".
    result = run("x[b] + y", "-s", "x=5,3", "-s", "b=3:int64", "-s", "y=3,3", "-d", "numpy")
    assert result.exit_code == 0, result.output
    assert any(line.split()[:2] == ["x[b]", "3"] for line in result.stdout.splitlines()), \
        result.stdout
