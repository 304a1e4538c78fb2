// JSON Schema, read for people: a type label for each parameter, and forms that build a tool
// call's arguments from the schema.

import { el } from "./dom.js";

// The schema of a value that may also be null: the non-null branch.
export function concrete(schema) {
  if (!schema || typeof schema !== "object") return {};
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== "null");
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[key])) {
      const branches = schema[key].filter((s) => s && s.type !== "null");
      if (branches.length === 1) return { ...schema, ...concrete(branches[0]), [key]: undefined };
    }
  }
  return schema;
}

export function typeLabel(raw) {
  const schema = concrete(raw);
  const parts = [];
  if (Array.isArray(schema.enum)) parts.push(`one of: ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`);
  else if (schema.type === "array") parts.push(`array of ${typeLabel(schema.items || {})}`);
  else if (Array.isArray(schema.anyOf || schema.oneOf)) parts.push((schema.anyOf || schema.oneOf).map(typeLabel).join(" | "));
  else parts.push(Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type || "any");
  if (schema.format) parts.push(`format ${schema.format}`);
  if (schema.pattern) parts.push(`pattern ${schema.pattern}`);
  const range = (lo, hi, unit) => {
    if (lo !== undefined && hi !== undefined) parts.push(`${lo}–${hi}${unit}`);
    else if (lo !== undefined) parts.push(`≥ ${lo}${unit}`);
    else if (hi !== undefined) parts.push(`≤ ${hi}${unit}`);
  };
  range(schema.minimum, schema.maximum, "");
  range(schema.minLength, schema.maxLength, " chars");
  range(schema.minItems, schema.maxItems, " items");
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(", ");
}

export function parameters(schema) {
  const props = (schema && schema.properties) || {};
  const required = new Set((schema && schema.required) || []);
  return Object.entries(props).map(([name, sub]) => ({ name, schema: sub, required: required.has(name) }));
}

function scalar(type) {
  return ["string", "integer", "number", "boolean"].includes(type);
}

// One input per parameter; read() returns {arguments} or {error}.
export function toolForm(tool) {
  const fields = parameters(tool.inputSchema).map(field);
  const form = el("div", { class: "tool-form", "data-tool": tool.name },
    fields.length ? fields.map((f) => f.node) : el("p", { class: "muted" }, "This tool takes no arguments."));
  const read = () => {
    const args = {};
    for (const f of fields) {
      const got = f.read();
      if (got.error) return { error: `${f.name}: ${got.error}` };
      if (got.value !== undefined) args[f.name] = got.value;
    }
    return { arguments: args };
  };
  return { node: form, read };
}

function field({ name, schema: raw, required }) {
  const schema = concrete(raw);
  const id = `arg-${name}`;
  let input;
  let read;
  if (Array.isArray(schema.enum)) {
    input = el("select", { id, "data-param": name },
      el("option", { value: "" }, required ? "(choose)" : "(leave out)"),
      schema.enum.map((v, i) => el("option", { value: String(i) }, String(v))));
    read = () => (input.value === "" ? {} : { value: schema.enum[Number(input.value)] });
  } else if (schema.type === "boolean") {
    input = el("select", { id, "data-param": name },
      el("option", { value: "" }, "(leave out)"), el("option", { value: "true" }, "true"),
      el("option", { value: "false" }, "false"));
    read = () => (input.value === "" ? {} : { value: input.value === "true" });
  } else if (schema.type === "integer" || schema.type === "number") {
    input = el("input", { id, type: "text", inputmode: "decimal", "data-param": name, autocomplete: "off" });
    read = () => {
      const text = input.value.trim();
      if (text === "") return {};
      const value = Number(text);
      if (!Number.isFinite(value)) return { error: "not a number" };
      if (schema.type === "integer" && !Number.isInteger(value)) return { error: "not an integer" };
      return { value };
    };
  } else if (schema.type === "array" && scalar(concrete(schema.items || {}).type)) {
    const itemType = concrete(schema.items).type;
    input = el("textarea", { id, rows: "2", "data-param": name, placeholder: "one value per line" });
    read = () => {
      const lines = input.value.split("\n").map((s) => s.trim()).filter(Boolean);
      if (!lines.length) return {};
      if (itemType === "string") return { value: lines };
      const values = lines.map((s) => (itemType === "boolean" ? s === "true" : Number(s)));
      return values.some((v) => typeof v === "number" && !Number.isFinite(v)) ? { error: "not a number" } : { value: values };
    };
  } else if (schema.type === "string") {
    const long = (schema.maxLength || 0) > 200;
    input = el(long ? "textarea" : "input", { id, "data-param": name, autocomplete: "off", ...(long ? { rows: "3" } : { type: "text" }) });
    read = () => (input.value === "" ? {} : { value: input.value });
  } else {
    input = el("textarea", { id, rows: "3", "data-param": name, placeholder: "JSON" });
    read = () => {
      if (input.value.trim() === "") return {};
      try { return { value: JSON.parse(input.value) }; } catch (err) { return { error: `not JSON (${err.message})` }; }
    };
  }
  const node = el("div", { class: "field" },
    el("label", { for: id }, el("code", null, name), required ? el("span", { class: "req", title: "required" }, " *") : null,
      el("span", { class: "muted small" }, ` ${typeLabel(raw)}`)),
    input,
    raw && raw.description ? el("p", { class: "muted small" }, raw.description) : null);
  return { name, node, read };
}
