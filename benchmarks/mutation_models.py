"""Injects one-line shape bugs into real model files and reports the share shapecheck finds.

Usage::

    python benchmarks/mutation_models.py [--corpus DIR] [--env DIR] [--models NAMES|all]
                                         [--kinds KINDS] [--show] [--json FILE]

What it does, for each model file (``--models``; the default is a sample that runs
in a few minutes on two cores, ``--models all`` takes every file listed in
``TARGETS``, ``--list`` prints them):

1. The file's own code is parsed with libcst and every site of a kind below gets
   one mutant, mechanically (no site is picked by hand):

   - ``linear_in``: a ``Linear``'s in_features ``E`` becomes ``E * 2``;
   - ``conv_in`` / ``conv_out``: a ``ConvNd`` / ``ConvTransposeNd``'s in / out
     channels ``E`` become ``E * 2``;
   - ``pool``: a pooling layer's kernel or output size, or an ``F.*pool*``
     call's, grows by one (each element of a tuple);
   - ``reshape``: the last size of a ``view`` / ``reshape`` that is not ``-1``
     doubles; a ``flatten``'s start_dim grows by one;
   - ``permute``: the last two dims of a ``permute`` / ``Permute`` swap;
   - ``norm``: a norm layer's width (``BatchNormNd``, ``InstanceNormNd``,
     ``LayerNorm``'s normalized_shape, ``GroupNorm``'s num_channels, any
     ``...Norm...`` class, and the ``norm_layer(...)`` parameter the torchvision
     and timm models build their norms with) doubles.

2. Each mutant is CONFIRMED on real torch: its file is imported in place of the
   original (same module name, so its relative imports resolve), each builder of
   the file (e.g. ``resnet18``, ``resnet50``) builds the model with its default
   config (num_classes=10) and runs ``forward`` in eval mode on a small random
   image (2, 3, 64, 64). A mutant counts when some builder raises (at
   construction or in forward), unless:

   - it raises only on the small image: it must also raise on a (1, 3, 224, 224)
     one when the original runs on that (a pool kernel too large for 64x64 is no
     bug of the model: "small input");
   - the layer that refused was handed the model's input itself, as torch's
     message shows by printing the input's shape (the stem conv made to take 6
     channels: the mutant changed what input the model takes, and no two of its
     layers disagree: "input width").

   The unmutated file must build and run on the small image, or the file is skipped.

3. shapecheck lints the mutated source as if it stood at the original path (so
   imports between the package's files resolve as for the original). The
   original must give no finding. A confirmed mutant is FOUND when the mutant
   gives an error or warning; the report also says how many of those have a
   finding on the mutated line itself ("at line"): the stricter criterion.

The model packages are not dependencies of shapecheck: they are a
benchmark-only fetch into a directory of their own, put on ``sys.path`` only
inside the subprocess that runs torch (never install or upgrade torch)::

    pip install --no-deps --target /tmp/mutenv torchvision==0.28.0 timm==1.0.31 pillow==12.0.0

torchvision 0.28 pairs with torch 2.13. Its wheel on the package registry is a
CUDA build whose C extension (detection ops such as nms) does not load beside a
CPU torch; the classification models never call those ops, so the subprocess
skips the extension's fake-kernel registrations while importing torchvision.
Sources to mutate come from ``--corpus`` (the wheels unzipped,
``DIR/<package>/<package>/models``, as ``benchmarks/real_models.py
--download`` makes them); the versions must match those of ``--env``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Target:
    """One model file, the builders that exercise it, and the input they take."""

    name: str
    package: str
    module: str  # dotted name the file is imported under
    builders: tuple[tuple[str, dict], ...]
    input_shape: tuple[int, ...] = (2, 3, 64, 64)
    # A mutant must also fail on this input (when the original runs on it): a bug of the
    # model, not of a small image (a pool left with no output for 64x64 but not for 224x224).
    large_shape: tuple[int, ...] = (1, 3, 224, 224)

    def source_path(self, corpus: Path) -> Path:
        return corpus / self.package / (self.module.replace(".", "/") + ".py")


def _tv(name: str, *builders: str, size: int = 64, large: int = 224) -> Target:
    return Target(f"torchvision.{name}", "torchvision", f"torchvision.models.{name}",
                  tuple((b, {"num_classes": 10}) for b in builders), (2, 3, size, size),
                  (1, 3, large, large))


def _timm(name: str, *builders: str, size: int = 64, **kwargs) -> Target:
    return Target(f"timm.{name}", "timm", f"timm.models.{name}",
                  tuple((b, {"num_classes": 10, **kwargs}) for b in builders), (2, 3, size, size))


TARGETS = (
    _tv("resnet", "resnet18", "resnet50"),
    _tv("vgg", "vgg11", "vgg11_bn", size=32),
    _tv("alexnet", "alexnet"),
    _tv("squeezenet", "squeezenet1_0", "squeezenet1_1"),
    _tv("mobilenetv2", "mobilenet_v2"),
    _tv("mobilenetv3", "mobilenet_v3_small"),
    _tv("shufflenetv2", "shufflenet_v2_x0_5"),
    _tv("mnasnet", "mnasnet0_5"),
    _tv("densenet", "densenet121"),
    _tv("efficientnet", "efficientnet_b0", "efficientnet_v2_s"),
    _tv("convnext", "convnext_tiny"),
    _tv("regnet", "regnet_x_400mf", "regnet_y_400mf"),
    _tv("googlenet", "googlenet"),
    _tv("inception", "inception_v3", size=80, large=299),
    _timm("resnet", "resnet18", "resnet50"),
    _timm("vgg", "vgg11", size=32),
    _timm("convnext", "convnext_atto"),
    _timm("mlp_mixer", "mixer_s16_224", img_size=64),
    _timm("vision_transformer", "vit_tiny_patch16_224", img_size=64),
    _timm("densenet", "densenet121"),
    _timm("ghostnet", "ghostnet_050"),
    _timm("regnet", "regnetx_002"),
    _timm("levit", "levit_128s", img_size=64),
    _timm("pit", "pit_ti_224", img_size=64),
)
DEFAULT = ("torchvision.resnet", "torchvision.alexnet", "torchvision.squeezenet", "torchvision.mobilenetv2",
           "torchvision.convnext", "timm.convnext")

KINDS = ("linear_in", "conv_in", "conv_out", "pool", "reshape", "permute", "norm")


# ---------------------------------------------------------------- generating mutants

@dataclass
class Site:
    kind: str
    line: int
    end_line: int
    node: object  # the libcst node replaced
    replacement: object
    before: str = ""
    after: str = ""


@dataclass
class Mutant:
    index: int
    kind: str
    line: int
    end_line: int
    before: str
    after: str
    source: str
    raised: str | None = None  # torch's exception on the small input, one line
    raised_large: bool = True  # it raised on the large input too (or that input was not run)
    findings: list[str] = field(default_factory=list)
    at_line: bool = False

    def verdict(self, target: Target) -> str:
        """confirmed; runs (torch accepts it); small input (it fails only on the small
        image); input width (the layer that refused was handed the model's input itself:
        the mutant changed what input the model takes, no two of its layers disagree)."""
        if self.raised is None:
            return "runs"
        if not self.raised_large:
            return "small input"
        if any(_torch_size(shape) in self.raised for shape in (target.input_shape, target.large_shape)):
            return "input width"
        return "confirmed"


def _torch_size(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


_CONV = re.compile(r"^Conv(Transpose)?[123]d$")
_POOL = re.compile(r"^(Adaptive)?(Max|Avg|LP)Pool[123]d$")
_POOL_FN = re.compile(r"^(adaptive_)?(max|avg|lp)_pool[123]d$")
_NORM = re.compile(r"^(norm_layer|[A-Za-z]*Norm[A-Za-z]*?([123]d)?)$")


def _callee(call) -> str | None:
    import libcst as cst

    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _argument(call, position: int, keywords: tuple[str, ...]):
    """The argument at ``position`` (positional, before any star) or named by one of ``keywords``."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in keywords:
            return arg
    positional = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            break
        positional.append(arg)
    return positional[position] if position < len(positional) else None


def _int_value(node) -> int | None:
    import libcst as cst

    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value, 0)
    return None


def _times_two(node):
    import libcst as cst

    value = _int_value(node)
    if value is not None and value >= 0:
        return cst.Integer(str(value * 2))
    return cst.BinaryOperation(_parenthesized(node), cst.Multiply(), cst.Integer("2"))


def _plus_one(node):
    """An int or each int of a tuple/list grown by one; any other expression ``E + 1``."""
    import libcst as cst

    if isinstance(node, (cst.Tuple, cst.List)):
        return node.with_changes(elements=[e.with_changes(value=_plus_one(e.value)) for e in node.elements])
    value = _int_value(node)
    if value is not None and value >= 0:
        return cst.Integer(str(value + 1))
    return cst.BinaryOperation(_parenthesized(node), cst.Add(), cst.Integer("1"))


def _parenthesized(node):
    import libcst as cst

    simple = (cst.Name, cst.Attribute, cst.Integer, cst.Call, cst.Subscript)
    if isinstance(node, simple) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _swap_last_two(elements: list):
    """The same element list with the last two values swapped, or None when they read the same."""
    import libcst as cst

    if len(elements) < 2:
        return None
    first, second = elements[-2], elements[-1]
    empty = cst.Module([])
    if empty.code_for_node(first.value) == empty.code_for_node(second.value):
        return None
    return [*elements[:-2], first.with_changes(value=second.value), second.with_changes(value=first.value)]


def _sites_of_call(call, is_method: bool) -> list[tuple[str, object, object]]:
    """(kind, node to replace, replacement) for each mutation this call offers."""
    import libcst as cst

    name = _callee(call)
    if name is None:
        return []
    out = []

    def mutate_arg(kind: str, position: int, keywords: tuple[str, ...], how) -> None:
        arg = _argument(call, position, keywords)
        if arg is not None and not arg.star:
            out.append((kind, arg.value, how(arg.value)))

    if name == "Linear":
        mutate_arg("linear_in", 0, ("in_features",), _times_two)
    elif _CONV.match(name):
        mutate_arg("conv_in", 0, ("in_channels",), _times_two)
        mutate_arg("conv_out", 1, ("out_channels",), _times_two)
    elif _POOL.match(name):
        mutate_arg("pool", 0, ("kernel_size", "output_size"), _plus_one)
    elif _POOL_FN.match(name):
        mutate_arg("pool", 1, ("kernel_size", "output_size"), _plus_one)
    elif name in ("view", "reshape") and call.args:
        args = [a for a in call.args if a.keyword is None and not a.star]
        if name == "reshape" and not is_method:
            args = args[1:]  # torch.reshape(x, shape)
        if len(args) == 1 and isinstance(args[0].value, (cst.Tuple, cst.List)):
            sizes = [e.value for e in args[0].value.elements if not isinstance(e, cst.StarredElement)]
        else:
            sizes = [a.value for a in args]
        sizes = [s for s in sizes if _int_value(s) != -1]
        if sizes and not (len(args) == 1 and sizes[-1] is args[0].value):  # x.view(shape): no size to change
            out.append(("reshape", sizes[-1], _times_two(sizes[-1])))
    elif name == "flatten":
        mutate_arg("reshape", 0 if is_method else 1, ("start_dim",), _plus_one)
    elif name in ("permute", "Permute"):
        args = [a for a in call.args if a.keyword is None and not a.star]
        if name == "permute" and not is_method:
            args = args[1:]
        if len(args) == 1 and isinstance(args[0].value, (cst.Tuple, cst.List)):
            swapped = _swap_last_two(list(args[0].value.elements))
            if swapped is not None:
                out.append(("permute", args[0].value, args[0].value.with_changes(elements=swapped)))
        elif len(args) >= 2:
            swapped = _swap_last_two(args)
            if swapped is not None:
                out.append(("permute", call, call.with_changes(
                    args=[*call.args[:len(call.args) - len(args)], *swapped])))
    elif _NORM.match(name) and name not in ("clip_grad_norm", "batch_norm", "layer_norm"):
        if name == "GroupNorm":
            mutate_arg("norm", 1, ("num_channels",), _times_two)
        else:
            mutate_arg("norm", 0, ("num_features", "normalized_shape", "dim", "num_channels"), _times_two)
    return out


def generate(source: str, kinds: tuple[str, ...] = KINDS) -> list[Mutant]:
    """One mutant per mutation site of the file, in source order."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(cst.parse_module(source))
    module = wrapper.module
    positions = wrapper.resolve(PositionProvider)
    sites: list[Site] = []

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            is_method = isinstance(node.func, cst.Attribute) and not (
                isinstance(node.func.value, cst.Name) and node.func.value.value in ("torch", "nn", "F"))
            for kind, target, replacement in _sites_of_call(node, is_method):
                if kind in kinds:
                    where = positions[node]
                    sites.append(Site(kind, where.start.line, where.end.line, target, replacement,
                                      module.code_for_node(target), module.code_for_node(replacement)))

    module.visit(Finder())

    class Replace(cst.CSTTransformer):
        def __init__(self, site: Site) -> None:
            self.site = site

        def on_leave(self, original, updated):
            return self.site.replacement if original is self.site.node else updated

    mutants = []
    for i, site in enumerate(sites):
        mutated = module.visit(Replace(site)).code
        if mutated != source:
            mutants.append(Mutant(i, site.kind, site.line, site.end_line, site.before, site.after, mutated))
    return mutants


# ---------------------------------------------------------------- confirming on torch

_RUNNER_FLAG = "--run-torch"


def confirm_on_torch(target: Target, original: str, mutants: list[Mutant], env: Path,
                     timeout: float) -> str | None:
    """Runs the original and each mutant in a subprocess; sets ``raised``. Returns why the
    original failed to run, or None."""
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.json"
        sources = [original] + [m.source for m in mutants]
        files = []
        for i, text in enumerate(sources):
            path = Path(tmp) / f"m{i}" / (target.module.rsplit(".", 1)[-1] + ".py")
            path.parent.mkdir()
            path.write_text(text)
            files.append(str(path))
        job.write_text(json.dumps({"module": target.module, "files": files,
                                   "builders": target.builders,
                                   "inputs": [target.input_shape, target.large_shape]}))
        try:
            done = subprocess.run([sys.executable, __file__, _RUNNER_FLAG, str(job), str(env)],
                                  check=False, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"torch run took over {timeout:.0f}s"
        if done.returncode != 0:
            return (done.stderr.strip().splitlines() or ["no output"])[-1]
        results = json.loads(done.stdout.strip().splitlines()[-1])
    small, large = results[0]
    if small is not None:
        return f"original raised: {small}"
    for mutant, (raised, raised_large) in zip(mutants, results[1:]):
        mutant.raised = raised
        if large is None:  # the original runs on the large input: so must a mutant that is no bug
            mutant.raised_large = raised_large is not None
    return None


def _run_torch_job(job_file: str, env: str) -> None:
    """In the subprocess: import each file as the target module, build and run every builder."""
    sys.path.insert(0, env)
    import contextlib
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    register_fake = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)  # see the docstring: CUDA torchvision wheel
    try:
        import torchvision  # noqa: F401
    except ImportError:
        pass
    finally:
        torch.library.register_fake = register_fake
    job = json.loads(Path(job_file).read_text())
    name = job["module"]
    importlib.import_module(name)  # the package and the original, so relative imports are bound
    original = sys.modules[name]

    @contextlib.contextmanager
    def fresh_registries():
        api = sys.modules.get("torchvision.models._api")
        saved = getattr(api, "BUILTIN_MODELS", None)
        if api is not None:
            api.BUILTIN_MODELS = {}  # torchvision refuses a builder name registered twice
        try:
            yield
        finally:
            if api is not None:
                api.BUILTIN_MODELS = saved

    def first_raise(step) -> str | None:
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - any raise is the mutant's bug being confirmed
            text = f"{type(exc).__name__}: {exc}".splitlines()
            return text[0][:300] if text else type(exc).__name__
        return None

    def build(file: str, models: list) -> None:
        spec = importlib.util.spec_from_file_location(name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        with fresh_registries():
            spec.loader.exec_module(module)
        for builder, kwargs in job["builders"]:
            torch.manual_seed(0)
            models.append(getattr(module, builder)(**kwargs).eval())

    def run(models: list, shape: list) -> None:
        with torch.no_grad():
            for model in models:
                model(torch.randn(*shape))

    results = []
    for i, file in enumerate(job["files"]):
        models: list = []
        try:
            raised = first_raise(lambda: build(file, models))  # noqa: B023 - called at once
            small = raised or first_raise(lambda: run(models, job["inputs"][0]))  # noqa: B023
            # The large input is for a mutant that fails the small one in forward, and the original.
            large = raised or (first_raise(lambda: run(models, job["inputs"][1]))  # noqa: B023
                               if small or i == 0 else None)
        finally:
            sys.modules[name] = original
        results.append((small, large))
    print(json.dumps(results))


# ---------------------------------------------------------------- linting

def lint_source(path: Path, source: str) -> list[tuple[int, str]]:
    """(line, rendered finding) of the errors and warnings shapecheck reports on ``source`` at ``path``."""
    from shapecheck.lint.config import ConfigResolver
    from shapecheck.lint.runner import FileJob, kind_of, known_codes, lint_job

    config = ConfigResolver(known_codes()).for_file(path)
    result = lint_job(FileJob(str(path), source.encode(), kind_of(str(path)), config, None, None))
    return [(f.span.line, f"{f.span.line}: {f.code} [{f.severity.value}] {f.message}")
            for f in result.findings if f.severity.value in ("error", "warning")]


# ---------------------------------------------------------------- the run

def run_target(target: Target, corpus: Path, env: Path, kinds: tuple[str, ...], timeout: float) -> dict:
    path = target.source_path(corpus)
    original = path.read_text()
    mutants = generate(original, kinds)
    outcome = {"target": target, "name": target.name, "generated": len(mutants), "mutants": mutants, "skipped": None,
               "original_findings": lint_source(path, original)}
    why = confirm_on_torch(target, original, mutants, env, timeout)
    if why is not None:
        outcome["skipped"] = why
        return outcome
    for mutant in mutants:
        if mutant.verdict(target) != "confirmed":
            continue
        found = lint_source(path, mutant.source)
        mutant.findings = [text for _, text in found]
        mutant.at_line = any(mutant.line <= line <= mutant.end_line for line, _ in found)
    return outcome


def report(outcomes: list[dict], show: bool) -> dict:
    totals = Counter()
    by_kind: dict[str, Counter] = {}
    for outcome in outcomes:
        name, target = outcome["name"], outcome["target"]
        if outcome["original_findings"]:
            print(f"{name}: the ORIGINAL has findings (its mutants are not counted):")
            for text in outcome["original_findings"]:
                print(f"    {text[1]}")
        if outcome["skipped"]:
            print(f"{name}: skipped, {outcome['skipped']}")
        counted = not outcome["skipped"] and not outcome["original_findings"]
        verdicts = Counter(m.verdict(target) for m in outcome["mutants"]) if counted else Counter()
        confirmed = [m for m in outcome["mutants"] if m.verdict(target) == "confirmed"] if counted else []
        found = [m for m in confirmed if m.findings]
        at_line = [m for m in confirmed if m.at_line]
        totals.update(generated=outcome["generated"], confirmed=len(confirmed), found=len(found),
                      at_line=len(at_line))
        totals.update({f"not counted: {v}": n for v, n in verdicts.items() if v != "confirmed"})
        for m in outcome["mutants"]:
            c = by_kind.setdefault(m.kind, Counter())
            c["generated"] += 1
            if m in confirmed:
                c.update(confirmed=1, found=bool(m.findings), at_line=m.at_line)
        others = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items()) if v != "confirmed")
        print(f"{name}: {outcome['generated']} generated ({others or 'all confirmed'}), "
              f"{len(confirmed)} confirmed, {len(found)} found ({len(at_line)} at the line)")
        for m in confirmed:
            if show or not m.findings:
                mark = "FOUND" if m.findings else "MISSED"
                print(f"    {mark} {m.kind} line {m.line}: {m.before} -> {m.after}   torch: {m.raised}")
                for text in m.findings[:3]:
                    print(f"        {text}")

    def share(n: int, d: int) -> str:
        return f"{100 * n / d:.1f}%" if d else "-"

    print()
    print(f"{'kind':<10} {'generated':>9} {'confirmed':>9} {'found':>6} {'share':>7} {'at line':>8}")
    for kind in KINDS:
        c = by_kind.get(kind)
        if c:
            print(f"{kind:<10} {c['generated']:>9} {c['confirmed']:>9} {c['found']:>6} "
                  f"{share(c['found'], c['confirmed']):>7} {share(c['at_line'], c['confirmed']):>8}")
    print(f"{'all':<10} {totals['generated']:>9} {totals['confirmed']:>9} {totals['found']:>6} "
          f"{share(totals['found'], totals['confirmed']):>7} {share(totals['at_line'], totals['confirmed']):>8}")
    print("not counted: " + ", ".join(f"{n} {k[13:]}" for k, n in sorted(totals.items())
                                      if k.startswith("not counted: ")))
    print(f"\nfound: {totals['found']} of {totals['confirmed']} confirmed mutants "
          f"({share(totals['found'], totals['confirmed'])}; goal 80%); "
          f"with a finding on the mutated line: {share(totals['at_line'], totals['confirmed'])}")
    return {"totals": dict(totals), "by_kind": {k: dict(v) for k, v in by_kind.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus/src"),
                        help="folder holding <package>/<package>/models, the wheels unzipped")
    parser.add_argument("--env", type=Path, default=Path("/tmp/mutenv"),
                        help="the benchmark-only pip --target directory with the model packages")
    parser.add_argument("--models", default=",".join(DEFAULT), help="comma list of target names, or all")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma list of mutation kinds")
    parser.add_argument("--timeout", type=float, default=600, help="seconds for one file's torch runs")
    parser.add_argument("--show", action="store_true", help="also list the found mutants and their findings")
    parser.add_argument("--list", action="store_true", help="print the target names and exit")
    parser.add_argument("--json", type=Path, default=None, help="also write the counts here")
    args = parser.parse_args()
    if args.list:
        print("\n".join(t.name for t in TARGETS))
        return 0
    names = [t.name for t in TARGETS] if args.models == "all" else [n.strip() for n in args.models.split(",")]
    by_name = {t.name: t for t in TARGETS}
    unknown = [n for n in names if n not in by_name]
    kinds = tuple(k.strip() for k in args.kinds.split(","))
    if unknown or not set(kinds) <= set(KINDS):
        parser.error(f"unknown model(s) or kind(s): {', '.join(unknown + sorted(set(kinds) - set(KINDS)))}")
    if not args.env.is_dir():
        parser.error(f"no package directory {args.env}: see the docstring for the pip --target line")
    outcomes = []
    start = time.perf_counter()
    for name in names:
        print(f"... {name}", file=sys.stderr, flush=True)
        outcomes.append(run_target(by_name[name], args.corpus, args.env, kinds, args.timeout))
    counts = report(outcomes, args.show)
    print(f"wall time {time.perf_counter() - start:.0f}s for {len(names)} model files")
    if args.json is not None:
        args.json.write_text(json.dumps(counts, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == _RUNNER_FLAG:
        try:
            _run_torch_job(sys.argv[2], sys.argv[3])
        except Exception:  # noqa: BLE001 - the parent reads the traceback
            traceback.print_exc()
            sys.exit(1)
        sys.exit(0)
    sys.exit(main())
