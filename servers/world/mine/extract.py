"""Static extraction of an MCP server's tools from its Python sources.

Sources are parsed with ``ast`` and never imported or run. Two forms are read:

- functions registered by a decorator ``@<server>.tool``, ``@<server>.tool()``,
  ``@<server>.tool("name")`` or ``@<server>.tool(name=..., description=...)``, and the call
  forms ``<server>.tool()(fn)`` / ``<server>.add_tool(fn)``: the name comes from ``name=``, the
  first positional argument or the function; parameters from the signature (type hints,
  defaults, ``Literal`` enums, ``Annotated``/``Field`` descriptions); the docstring describes;
- low-level ``Tool(name=..., description=..., inputSchema={...})`` literals (also ``types.Tool``).

A file that does not parse is reported (``syntax-error``) and the rest is still read; a schema
too deep, too large or recursive drops that tool with a problem recorded.
"""

from __future__ import annotations

import ast
import json
from typing import Any

from ._annotations import NonLiteral, TooDeep, literal, read_annotation, read_default
from .archive import ArchiveContents
from .surface import MinedTool, Param, Problem, Surface

__all__ = ["extract_sources", "extract_contents", "schema_params", "MAX_SCHEMA_BYTES"]

MAX_SCHEMA_BYTES = 1024 * 1024
_SKIPPED_PARAMS = {"self", "cls"}
_ENUM_BASES = {"Enum", "StrEnum", "IntEnum"}
_MARKERS = ("tool", "Tool(", "inputSchema", "input_schema")


def _local_enums(tree: ast.Module) -> dict[str, list]:
    """Module-level Enum classes and their member values, so ``status: Status`` gets an enum."""
    found: dict[str, list] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
        if not bases & _ENUM_BASES:
            continue
        values = []
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                values.append(stmt.value.value)
        if values:
            found[node.name] = values
    return found


def _is_context(annotation: ast.AST | None) -> bool:
    text = ast.unparse(annotation) if annotation is not None else ""
    return "Context" in text


def _signature(fn: ast.FunctionDef | ast.AsyncFunctionDef, enums: dict[str, list]) -> list[Param]:
    args = fn.args
    positional = args.posonlyargs + args.args
    missing = len(positional) - len(args.defaults)
    defaults: list[ast.AST | None] = [None] * missing + list(args.defaults)
    pairs = list(zip(positional, defaults, strict=True))
    pairs += list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    params = []
    for arg, default in pairs:
        if arg.arg in _SKIPPED_PARAMS or _is_context(arg.annotation):
            continue
        info = read_annotation(arg.annotation, enums)
        has_default, value, field_text = read_default(default)
        params.append(Param(arg.arg, info.type, not has_default, info.enum, info.items,
                            value if _jsonable(value) else None,
                            info.description or field_text))
    return params


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _tool_decorator(node: ast.AST) -> tuple[bool, str | None, str | None]:
    """``(is_tool, name, description)`` for one decorator expression."""
    call = node if isinstance(node, ast.Call) else None
    target = call.func if call else node
    if not _is_tool_registrar(_callee_name(target)):
        return False, None, None
    if call is None:
        return True, None, None
    name = _const_str(call.args[0]) if call.args else None
    description = None
    for kw in call.keywords:
        if kw.arg == "name":
            name = _const_str(kw.value) or name
        elif kw.arg == "description":
            description = _const_str(kw.value)
    return True, name, description


class _ModuleReader:
    """Finds the tools of one parsed module."""

    def __init__(self, member: str, tree: ast.Module):
        self.member, self.tree = member, tree
        self.enums = _local_enums(tree)
        self.tools: list[MinedTool] = []
        self.problems: list[Problem] = []
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def read(self) -> None:
        calls = []
        for node in ast.walk(self.tree):       # one walk: walking is most of the cost
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(node.name, node)
                self._decorated(node)
            elif isinstance(node, ast.Call):
                calls.append(node)
            elif isinstance(node, ast.Dict):
                self._dict_literal(node)
        for node in calls:                      # after the walk: calls refer to any function
            self._call(node)

    def _add_function(self, fn, name: str | None, description: str | None,
                      keywords: list[ast.keyword]) -> None:
        self.tools.append(MinedTool(name or fn.name, _signature(fn, self.enums), "decorator",
                                    self.member, description or ast.get_docstring(fn),
                                    _hints({k.arg: k.value for k in keywords if k.arg})))

    def _decorated(self, fn) -> None:
        for decorator in fn.decorator_list:
            is_tool, name, description = _tool_decorator(decorator)
            if is_tool:
                keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
                self._add_function(fn, name, description, keywords)
                return

    def _call(self, node: ast.Call) -> None:
        func = node.func
        if _callee_name(func) == "Tool" and any(k.arg == "name" for k in node.keywords):
            self._tool_literal(node)
            return
        # mcp.add_tool(fn, name=...) and mcp.tool(...)(fn) register a function by reference
        registering = isinstance(func, ast.Attribute) and func.attr == "add_tool"
        is_tool, name, description = _tool_decorator(func) if isinstance(func, ast.Call) else (
            False, None, None)
        if (registering or is_tool) and node.args and isinstance(node.args[0], ast.Name):
            fn = self.functions.get(node.args[0].id)
            if fn is not None and not any(_tool_decorator(d)[0] for d in fn.decorator_list):
                for kw in node.keywords:
                    if kw.arg == "name":
                        name = _const_str(kw.value) or name
                    elif kw.arg == "description":
                        description = _const_str(kw.value) or description
                self._add_function(fn, name, description, node.keywords)

    def _dict_literal(self, node: ast.Dict) -> None:
        """``{"name": ..., "inputSchema": {...}}``: a tool declared as data, then ``Tool(**t)``."""
        keys = {_const_str(k): v for k, v in zip(node.keys, node.values, strict=True) if k}
        if "name" in keys and ("inputSchema" in keys or "input_schema" in keys):
            self._add_literal(keys)

    def _tool_literal(self, node: ast.Call) -> None:
        self._add_literal({k.arg: k.value for k in node.keywords if k.arg})

    def _add_literal(self, keywords: dict) -> None:
        name = _const_str(keywords.get("name"))
        if not name:
            return        # a name computed at run time cannot be read statically
        schema_node = keywords.get("inputSchema") or keywords.get("input_schema")
        params, problem = _schema_from_node(schema_node)
        if problem is not None:
            self.problems.append(Problem(self.member, problem, name))
            return
        self.tools.append(MinedTool(name, params, "tool-literal", self.member,
                                    _const_str(keywords.get("description")), _hints(keywords)))


def _hints(keywords: dict) -> dict[str, bool]:
    """The boolean behaviour hints of ``annotations=ToolAnnotations(...)`` or ``{...}``."""
    node = keywords.get("annotations")
    if isinstance(node, ast.Call):
        pairs = [(k.arg, k.value) for k in node.keywords if k.arg]
    elif isinstance(node, ast.Dict):
        pairs = [(_const_str(k), v) for k, v in zip(node.keys, node.values, strict=True) if k]
    else:
        return {}
    return {key: value.value for key, value in pairs
            if key and key.endswith("Hint") and isinstance(value, ast.Constant)
            and isinstance(value.value, bool)}


_HANDLERS = frozenset({"call_tool", "handle_call_tool"})   # the low-level dispatcher, not a tool


def _is_tool_registrar(name: str) -> bool:
    # @mcp.tool, @tool, and a server's own wrappers: @register_tool, @write_tool, @mcp_tool
    return name == "tool" or (name.endswith("_tool") and name not in _HANDLERS)


def _callee_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def _schema_from_node(node: ast.AST | None) -> tuple[list[Param] | None, str | None]:
    if node is None:
        return None, None
    try:
        schema = literal(node)
    except NonLiteral:
        return None, None             # built at run time: the tool is kept, its params unknown
    except (TooDeep, RecursionError):
        return None, "deep-schema"
    if len(json.dumps(schema, default=str)) > MAX_SCHEMA_BYTES:
        return None, "too-large"
    if not isinstance(schema, dict):
        return None, None
    if _recursive(schema):
        return None, "recursive-schema"
    return schema_params(schema), None


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _recursive(schema: dict) -> bool:
    """True when a ``$ref`` leads back to the root or around a cycle of definitions."""
    defs = {}
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            defs.update({f"#/{key}/{name}": body for name, body in schema[key].items()})
    graph = {ref: _refs(body) for ref, body in defs.items()}
    graph["#"] = _refs({k: v for k, v in schema.items() if k not in ("$defs", "definitions")})
    visiting, done = set(), set()

    def cyclic(ref: str) -> bool:
        if ref in visiting:
            return True
        if ref in done or ref not in graph:
            return False
        visiting.add(ref)
        hit = any(cyclic(nxt) for nxt in graph[ref])
        visiting.discard(ref)
        done.add(ref)
        return hit

    return any(cyclic(ref) for ref in graph)


def _prop_type(prop: dict) -> tuple[str, bool]:
    kind = prop.get("type")
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(kind, list):
        real = [k for k in kind if k != "null"]
        return (real[0] if len(real) == 1 else "any"), len(real) < len(kind)
    if isinstance(kind, str):
        return kind, False
    if isinstance(options, list):
        kinds = [o.get("type") for o in options if isinstance(o, dict)]
        real = [k for k in kinds if k != "null"]
        return (real[0] if len(real) == 1 and isinstance(real[0], str) else "any"), "null" in kinds
    if "$ref" in prop or "properties" in prop:
        return "object", False
    return "any", False


def schema_params(schema: dict) -> list[Param]:
    """Parameters of a JSON schema's top-level ``properties``."""
    properties = schema.get("properties")
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    if not isinstance(properties, dict):
        return []
    params = []
    for name, prop in properties.items():
        prop = prop if isinstance(prop, dict) else {}
        kind, _ = _prop_type(prop)
        enum = prop.get("enum") if isinstance(prop.get("enum"), list) else None
        items = prop.get("items", {}).get("type") if isinstance(prop.get("items"), dict) else None
        description = prop.get("description") if isinstance(prop.get("description"), str) else None
        params.append(Param(str(name), kind, name in required, enum,
                            items if isinstance(items, str) else None, prop.get("default"),
                            description))
    return params


def extract_sources(sources: list[tuple[str, str]]) -> Surface:
    """Read the tools out of ``(member, source text)`` pairs; the first tool of a name wins."""
    surface, seen = Surface(), set()
    for member, text in sorted(sources):
        if not any(marker in text for marker in _MARKERS):
            continue                  # no tool can be declared here: not worth parsing
        try:
            tree = ast.parse(text, filename=member)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            surface.problems.append(Problem(member, "syntax-error", type(exc).__name__))
            continue
        reader = _ModuleReader(member, tree)
        try:
            reader.read()
        except RecursionError:
            surface.problems.append(Problem(member, "deep-schema", "nesting"))
        surface.problems.extend(reader.problems)
        for tool in reader.tools:
            if tool.name not in seen:
                seen.add(tool.name)
                surface.tools.append(tool)
    return surface


def extract_contents(contents: ArchiveContents) -> Surface:
    """The surface of a package whose archive has been read; skipped members become problems."""
    surface = extract_sources(contents.sources)
    surface.problems[:0] = [Problem(member, code) for member, code in contents.skipped]
    return surface
