"""Regenerate shapecheck/runtime/autograd_saved.py from torch's own derivatives facts.

torch ships ``derivatives.yaml`` in torchgen (``torchgen/packaged/autograd``): for each op, the
formula of each input's gradient. A formula that names ``result`` reads the op's output, so
autograd saves the output; one that names an input tensor (other than through its metadata:
sizes, dtype, options) saves that input. An in-place write into a saved tensor before
``backward()`` makes torch raise "one of the variables needed for gradient computation has been
modified by an inplace operation" (tests/runtime/test_autograd_saved.py checks a sample).

Usage: ``python tools/autograd_saved.py`` (writes the module; ``--check`` only compares).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import torchgen
import yaml

TARGET = Path(__file__).resolve().parent.parent / "shapecheck" / "runtime" / "autograd_saved.py"
# Reads of a tensor that keep only its metadata, not its values.
_METADATA = re.compile(r"\b(\w+)\s*\.\s*(sym_sizes|sizes|sym_strides|strides|scalar_type|options|"
                       r"layout|device|dim|sym_numel|numel|is_conj|is_neg|dtype|size|sym_size|"
                       r"is_complex|is_floating_point|requires_grad|defined|sym_storage_offset)"
                       r"\s*\(\s*[^()]*\)")
_ARG = re.compile(r"^\s*(?P<type>[\w\[\]?()!|. ]+?)\s+(?P<name>\w+)(\s*=.*)?$")


def _arguments(signature: str) -> list[tuple[str, str]]:
    """(type, name) of each argument of ``op(Tensor self, Scalar other, *, ...)``."""
    inside = signature[signature.index("(") + 1:signature.rindex(") ->")]
    out = []
    for part in _split(inside):
        part = part.strip()
        if not part or part == "*":
            continue
        match = _ARG.match(part)
        if match:
            out.append((match["type"].strip(), match["name"]))
    return out


def _split(text: str) -> list[str]:
    depth, start, parts = 0, 0, []
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def derive(path: Path) -> dict[str, tuple[bool, tuple[int, ...], tuple[int, ...], tuple]]:
    """Per overload (``mul.Tensor``): whether backward reads the output, the positions of the
    tensor inputs it reads, the positions of its tensor arguments, and per input whose
    gradient it computes, the positions that gradient's formula reads."""
    table: dict[str, tuple[bool, tuple[int, ...], tuple[int, ...], tuple]] = {}
    for entry in yaml.safe_load(path.read_text()):
        signature = entry["name"]
        name = signature[:signature.index("(")]
        if "->" not in signature or name.endswith("_") or name.startswith("_foreach"):
            continue  # in-place and foreach ops save nothing a user spells
        arguments = _arguments(signature)
        tensors = {arg: i for i, (kind, arg) in enumerate(arguments) if kind.startswith("Tensor")
                   and "[]" not in kind and "(a!" not in kind}
        formulas = [str(v) for k, v in entry.items() if k not in (
            "name", "result", "dispatch", "output_differentiability") and not k.startswith("#")]
        if not formulas:
            continue
        text = _METADATA.sub(" ", " ".join(formulas))
        tokens = set(re.findall(r"\b\w+\b", text))
        saves_output = bool(tokens & {"result", "result0", "result1", "result2"})
        saved = tuple(sorted(i for arg, i in tensors.items() if arg in tokens))
        by_gradient = []
        for key, formula in entry.items():
            if key in ("name", "result", "dispatch", "output_differentiability") or \
                    key.startswith("#"):
                continue
            # "self, other: f(...)": one formula for several inputs' gradients.
            inputs = tuple(sorted(tensors[n.strip()] for n in key.split(",")
                                  if n.strip() in tensors))
            reads = set(re.findall(r"\b\w+\b", _METADATA.sub(" ", str(formula))))
            read = tuple(sorted(i for arg, i in tensors.items() if arg in reads))
            if read:
                by_gradient.append((inputs, read))
        table[name] = (saves_output, saved, tuple(sorted(tensors.values())),
                       tuple(by_gradient))
    return table


def render(table: dict[str, tuple[bool, tuple[int, ...], tuple[int, ...], tuple]],
           source: str) -> str:
    outputs = sorted(name for name, (out, *_) in table.items() if out)
    lines = [
        '"""What autograd saves for backward, per torch op overload (generated; do not edit).',
        "",
        f"Derived from torch {source}'s derivatives.yaml by tools/autograd_saved.py: an op in",
        "SAVES_OUTPUT has a backward that reads its output; SAVED_INPUTS gives the positions of",
        "the tensor arguments its backward reads when every input requires grad (torch saves an",
        "input only for the gradients it computes: x * w saves x only when w requires grad).",
        "An in-place write into a saved tensor before backward() makes torch raise.",
        '"""',
        "",
        "SAVES_OUTPUT = frozenset({",
    ]
    lines += [f"    {name!r}," for name in outputs]
    others = sorted(name for name, (out, saved, *_) in table.items() if not out and not saved)
    lines += ["})", "", "# Ops with a backward that reads neither its output nor a tensor input."]
    lines += ["_OTHERS = frozenset({"] + [f"    {name!r}," for name in others] + ["})", ""]
    lines += ["# Per overload that saves an input: the positions of its tensor arguments, and for",
              "# the inputs of each gradient formula, the positions of the inputs that formula reads",
              "# (torch saves an input when some gradient that reads it is computed).",
              "SAVED_FOR_GRADIENT = {"]
    for name, (_, saved, tensors, by_gradient) in sorted(table.items()):
        if saved:
            assert set().union(*(read for _, read in by_gradient)) == set(saved), name
            lines.append(f"    {name!r}: ({tensors!r}, {by_gradient!r}),")
    lines += ["}", "",
              "SAVED_INPUTS = {name: tuple(sorted(set().union(*(read for _, read in by_gradient))))",
              "                for name, (_, by_gradient) in SAVED_FOR_GRADIENT.items()}",
              "", "", "def saves_output(name: str) -> bool:",
              '    """Every overload of op ``name`` (or of ``_name``, as softmax is _softmax) saves its',
              '    output."""',
              "    for key in (name, '_' + name):",
              "        found = _OVERLOADS.get(key)",
              "        if found:",
              "            return all(k in SAVES_OUTPUT for k in found)",
              "    return False", "", "",
              "def saved_inputs(name: str, tensors: tuple[bool, ...],",
              "                 needs_grad: tuple[bool, ...]) -> tuple[int, ...] | None:",
              '    """The positions of the inputs a call of op ``name`` saves for backward, given which',
              "    leading arguments are tensors and which of them need grad; None when the overloads",
              '    that take tensors at exactly those positions disagree, or none does."""',
              "    positions = tuple(i for i, t in enumerate(tensors) if t)",
              "    answers = set()",
              "    for key in _OVERLOADS.get(name, ()):",
              "        if key in SAVED_FOR_GRADIENT and SAVED_FOR_GRADIENT[key][0] == positions:",
              "            saved: set[int] = set()",
              "            for inputs, reads in SAVED_FOR_GRADIENT[key][1]:",
              "                # One formula for several gradients (matmul, linear) is often a composite",
              "                # op's: what its parts save is certain only when all of them are computed.",
              "                if inputs and all(i < len(needs_grad) and needs_grad[i] for i in inputs):",
              "                    saved.update(reads)",
              "            answers.add(tuple(sorted(saved)))",
              "    return answers.pop() if len(answers) == 1 else None", "", "",
              "_OVERLOADS: dict[str, list[str]] = {}",
              "for _key in sorted(SAVES_OUTPUT | set(SAVED_INPUTS) | set(_OTHERS)):",
              '    _OVERLOADS.setdefault(_key.split(".")[0], []).append(_key)', ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare with the module")
    options = parser.parse_args()
    import torch

    path = Path(torchgen.__file__).parent / "packaged" / "autograd" / "derivatives.yaml"
    text = render(derive(path), torch.__version__.split("+")[0])
    if options.check:
        same = TARGET.read_text() == text
        print("up to date" if same else f"{TARGET} differs from torch {torch.__version__}")
        return 0 if same else 1
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
