"""Dataclasses: the fields a ``@dataclass`` class declares, the ``__init__`` the decorator
generates from them, and ``dataclasses.replace``. Config objects of real model code are
dataclasses (timm's ``NfCfg(depths=(1, 2, 6, 3), channels=...)``): without their generated
constructor, every width read from one was unknown."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..imports import canonical
from ..values import UNKNOWN_VALUE, FunctionValue, InstanceValue, ModuleRef, Value
from .names import MORE_KEYWORDS

_DECORATOR = "dataclasses.dataclass"
_FIELD = "dataclasses.field"
_NOT_FIELDS = ("typing.ClassVar", "dataclasses.KW_ONLY")


@dataclass(frozen=True)
class Field:
    """One parameter of a dataclass's generated ``__init__``. ``default`` is None when the
    caller must give it; ``stored`` is False for an ``InitVar`` (handed to __post_init__)."""

    name: str
    default: Value | None
    kw_only: bool = False
    stored: bool = True
    init: bool = True  # False: field(init=False), set by its default or __post_init__


def _keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name),
                None)


def _constant_true(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _constant_false(node: cst.BaseExpression | None) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


@dataclass(frozen=True, eq=False)
class GeneratedInit:
    """The ``__init__`` (and ``__dataclass_fields__``) the decorator puts on the class: its
    subclasses inherit it as any member, unless they define their own."""

    fields: tuple[Field, ...]


def _declared(members: dict) -> tuple[Field, ...]:
    generated = members.get("__dataclass_fields__")
    return generated.fields if isinstance(generated, GeneratedInit) else ()


class Records:
    def declare_dataclass(self, node: cst.ClassDef, bases: list) -> None:
        """A ``@dataclass`` class's fields and generated ``__init__``, as its members: its
        bases' fields first, then its own annotated names in order (run in the class's
        frame, after its body: defaults are its names)."""
        options = None
        for decorator in node.decorators:
            expr = decorator.decorator
            func = self.eval(expr.func) if isinstance(expr, cst.Call) else self.eval(expr)
            if isinstance(func, ModuleRef) and canonical(func.qualname) == _DECORATOR:
                options = expr if isinstance(expr, cst.Call) else None
                break
        else:
            return
        if options is not None and _constant_false(_keyword(options, "init")):
            return
        all_kw_only = options is not None and _constant_true(_keyword(options, "kw_only"))
        fields: dict[str, Field] = {}
        for base in reversed(bases):  # the MRO's order: the first base's fields last
            for inherited in _declared(getattr(base, "members", {})):
                fields[inherited.name] = inherited
        kw_only_from_here = all_kw_only
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        for statement in body:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                    continue
                annotation = small.annotation.annotation
                kind = self.eval(annotation.value if isinstance(annotation, cst.Subscript)
                                 else annotation)
                qualname = canonical(kind.qualname) if isinstance(kind, ModuleRef) else ""
                if qualname == "dataclasses.KW_ONLY":
                    kw_only_from_here = True
                if qualname in _NOT_FIELDS:
                    continue
                fields[small.target.value] = self.declared_field(
                    small, kw_only_from_here, qualname != "dataclasses.InitVar")
        generated = GeneratedInit(tuple(fields.values()))
        members = self.frame.scope.vars
        members["__dataclass_fields__"] = generated
        if not isinstance(members.get("__init__"), FunctionValue) or \
                members["__init__"].owner is not members.get("__class__"):
            members["__init__"] = generated  # a class's own __init__ is kept

    def declared_field(self, node: cst.AnnAssign, kw_only: bool, stored: bool) -> Field:
        name = node.target.value
        value = node.value
        if isinstance(value, cst.Call):
            func = self.eval(value.func)
            if isinstance(func, ModuleRef) and canonical(func.qualname) == _FIELD:
                default = _keyword(value, "default")
                given = _keyword(value, "kw_only")
                if given is not None:
                    kw_only = _constant_true(given)
                if _constant_false(_keyword(value, "init")):
                    return Field(name, UNKNOWN_VALUE if default is None else self.eval(default),
                                 kw_only, stored, init=False)
                if default is not None:
                    return Field(name, self.eval(default), kw_only, stored)
                # default_factory: a new object each call, nobody knows which here.
                return Field(name, UNKNOWN_VALUE if _keyword(value, "default_factory") else None,
                             kw_only, stored)
        if value is None:
            return Field(name, None, kw_only, stored)
        return Field(name, self.frame.scope.vars.get(name, UNKNOWN_VALUE), kw_only, stored)

    def dataclass_init(self, instance: InstanceValue, generated: GeneratedInit, args: list,
                       kwargs: dict) -> None:
        """The generated ``__init__``: each field the argument given for it, or its default.
        Too many positional arguments (Python's TypeError) leave every field unknown. A
        keyword no field has is left out: it is often one a caller's options only may hold
        (timm's builders may add ``img_size`` to what ``replace(cfg, **kwargs)`` gets), and
        the analyzer reports no TypeError either way."""
        fields = generated.fields
        more = MORE_KEYWORDS in kwargs  # **options nobody knows: any field may be in them
        parameters = [f for f in fields if f.init]
        names = {f.name for f in parameters}
        given = {k: v for k, v in kwargs.items() if k in names}
        positional = [f for f in parameters if not f.kw_only]
        if len(args) > len(positional):
            for f in fields:
                instance.attrs[f.name] = UNKNOWN_VALUE
            return
        bound = dict(zip((f.name for f in positional), args))
        bound.update(given)
        init_vars = []
        for f in fields:
            if f.name in bound:
                value = bound[f.name]
            elif (more and f.init) or f.default is None:
                value = UNKNOWN_VALUE
            else:
                value = f.default
            if f.stored:
                instance.attrs[f.name] = value
            else:
                init_vars.append(value)
        post_init = instance.cls.members.get("__post_init__")
        if isinstance(post_init, FunctionValue) and id(post_init) not in self.active:
            self.analyze_function(post_init, [instance] + init_vars, {}, by_call=True)

    def dataclass_replace(self, args: list, kwargs: dict) -> Value:
        """``dataclasses.replace(cfg, width=64)``: a new instance of cfg's class, with its
        fields and these changed, through the generated __init__ again."""
        original = args[0] if len(args) == 1 else None
        generated = original.cls.members.get("__init__") if isinstance(original, InstanceValue) else None
        if not isinstance(generated, GeneratedInit):
            return UNKNOWN_VALUE
        changes = {k: v for k, v in kwargs.items() if k != MORE_KEYWORDS}
        keywords = {f.name: original.attrs.get(f.name, UNKNOWN_VALUE)
                    for f in generated.fields if f.stored and f.init}
        keywords.update(changes)
        if MORE_KEYWORDS in kwargs:
            keywords[MORE_KEYWORDS] = UNKNOWN_VALUE
        instance = InstanceValue(original.cls)
        self.dataclass_init(instance, generated, [], keywords)
        return instance

