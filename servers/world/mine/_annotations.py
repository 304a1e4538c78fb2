"""Read a parameter's type from its Python annotation and default, statically.

The result is JSON-schema vocabulary (``string``, ``integer``, ``array`` ...), so tools read from
decorated functions and tools read from ``inputSchema`` literals compare alike.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

__all__ = ["TypeInfo", "read_annotation", "read_default", "literal", "NonLiteral", "TooDeep",
           "MAX_LITERAL_DEPTH"]

MAX_LITERAL_DEPTH = 32
_SCALARS = {"str": "string", "bytes": "string", "int": "integer", "float": "number",
            "Decimal": "number", "bool": "boolean", "None": "null", "NoneType": "null",
            "Any": "any", "object": "any", "datetime": "string", "date": "string",
            "time": "string", "UUID": "string", "Path": "string", "EmailStr": "string",
            "HttpUrl": "string", "AnyUrl": "string", "SecretStr": "string"}
_ARRAYS = {"list", "List", "Sequence", "Iterable", "set", "Set", "tuple", "Tuple", "frozenset",
           "FrozenSet", "MutableSequence", "Collection"}
_OBJECTS = {"dict", "Dict", "Mapping", "MutableMapping", "TypedDict", "BaseModel", "JSONObject"}
_FIELD_CALLS = {"Field", "Query", "Body", "Path", "Param"}


class NonLiteral(Exception):
    """The expression is not made of literals only."""


class TooDeep(Exception):
    """A literal nests deeper than MAX_LITERAL_DEPTH (a schema built to exhaust a reader)."""


def literal(node: ast.AST, depth: int = 0) -> Any:
    """Evaluate a literal expression (constants, dicts, lists, tuples) without running anything."""
    if depth > MAX_LITERAL_DEPTH:
        raise TooDeep()
    if isinstance(node, ast.Constant):
        return node.value if not isinstance(node.value, bytes) else node.value.decode("latin-1")
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):          # {**other}: not a literal
            raise NonLiteral()
        pairs = zip(node.keys, node.values, strict=True)
        return {_key(k, depth): literal(v, depth + 1) for k, v in pairs}
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [literal(e, depth + 1) for e in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = literal(node.operand, depth + 1)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    raise NonLiteral()


def _key(node: ast.AST | None, depth: int) -> str:
    value = literal(node, depth + 1) if node is not None else None
    if not isinstance(value, (str, int, float, bool)):
        raise NonLiteral()
    return str(value)


@dataclass
class TypeInfo:
    type: str = "any"
    items: str | None = None
    enum: list[Any] | None = None
    nullable: bool = False
    description: str | None = None


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return ""


def _enum_type(values: list[Any]) -> str:
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {str}:
        return "string"
    if kinds <= {bool}:
        return "boolean"
    if kinds <= {int}:
        return "integer"
    return "number" if kinds <= {int, float} else "any"


def _union(members: list[ast.AST], enums: dict[str, list], depth: int) -> TypeInfo:
    infos = [read_annotation(m, enums, depth + 1) for m in members]
    real = [i for i in infos if i.type != "null"]
    out = real[0] if len(real) == 1 else TypeInfo("any")
    out.nullable = len(real) < len(infos) or any(i.nullable for i in infos)
    return out


def _flatten_bitor(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _flatten_bitor(node.left) + _flatten_bitor(node.right)
    return [node]


def _field_description(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and _name(node.func) in _FIELD_CALLS:
        for kw in node.keywords:
            if kw.arg == "description" and isinstance(kw.value, ast.Constant):
                return kw.value.value if isinstance(kw.value.value, str) else None
    return None


def _subscript(node: ast.Subscript, enums: dict[str, list], depth: int) -> TypeInfo:
    base = _name(node.value)
    args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if base == "Optional":
        info = read_annotation(args[0], enums, depth + 1)
        info.nullable = True
        return info
    if base == "Union":
        return _union(args, enums, depth)
    if base == "Literal":
        try:
            values = [literal(a) for a in args]
        except (NonLiteral, TooDeep):
            return TypeInfo("any")
        return TypeInfo(_enum_type(values), enum=values)
    if base == "Annotated":
        info = read_annotation(args[0], enums, depth + 1)
        for meta in args[1:]:
            info.description = info.description or _field_description(meta)
        return info
    if base in _ARRAYS:
        return TypeInfo("array", items=read_annotation(args[0], enums, depth + 1).type)
    if base in _OBJECTS:
        return TypeInfo("object")
    return read_annotation(node.value, enums, depth + 1)


def read_annotation(node: ast.AST | None, enums: dict[str, list], depth: int = 0) -> TypeInfo:
    """The JSON-schema type an annotation declares; ``enums`` maps local Enum classes to values."""
    if node is None or depth > MAX_LITERAL_DEPTH:
        return TypeInfo("any")
    if isinstance(node, ast.Constant) and isinstance(node.value, str):   # "from __future__" style
        try:
            return read_annotation(ast.parse(node.value, mode="eval").body, enums, depth + 1)
        except (SyntaxError, ValueError, RecursionError):
            return TypeInfo("any")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(_flatten_bitor(node), enums, depth)
    if isinstance(node, ast.Subscript):
        return _subscript(node, enums, depth)
    name = _name(node)
    if name in enums:
        return TypeInfo(_enum_type(enums[name]), enum=list(enums[name]))
    if name in _SCALARS:
        return TypeInfo(_SCALARS[name])
    if name in _ARRAYS:
        return TypeInfo("array")
    if name in _OBJECTS:
        return TypeInfo("object")
    return TypeInfo("object" if name[:1].isupper() else "any")


def read_default(node: ast.AST | None) -> tuple[bool, Any, str | None]:
    """``(has_default, default, description)`` for a parameter's default expression.

    ``Field(...)``/``Field(default=...)`` and their kin carry a default and a description;
    ``Field(...)`` with Ellipsis or no default means the parameter stays required.
    """
    if node is None:
        return False, None, None
    if isinstance(node, ast.Call) and _name(node.func) in _FIELD_CALLS:
        description = _field_description(node)
        given = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "default"), None)
        if any(k.arg == "default_factory" for k in node.keywords):
            return True, None, description
        if given is None or (isinstance(given, ast.Constant) and given.value is Ellipsis):
            return False, None, description
        return True, _safe_literal(given), description
    return True, _safe_literal(node), None


def _safe_literal(node: ast.AST) -> Any:
    try:
        return literal(node)
    except (NonLiteral, TooDeep):
        return None
