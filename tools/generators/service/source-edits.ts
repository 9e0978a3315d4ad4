// Edits of the workspace's TypeScript sources, located by the TypeScript AST (not by line
// numbers or regular expressions), so they survive reformatting and a second generated service.
import ts from 'typescript';

const parse = (path: string, text: string): ts.SourceFile =>
  ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** `x as const`, `x satisfies T`, `(x)`, `Object.freeze(x)` → x. */
function unwrap(node: ts.Expression): ts.Expression {
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node)) {
    return unwrap(node.expression);
  }
  if (ts.isCallExpression(node) && node.expression.getText() === 'Object.freeze' && node.arguments[0]) {
    return unwrap(node.arguments[0]);
  }
  return node;
}

function initializerOf(source: ts.SourceFile, name: string): ts.Expression {
  let found: ts.Expression | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name) {
      found = node.initializer && unwrap(node.initializer);
    }
    if (found === undefined) ts.forEachChild(node, visit);
  };
  visit(source);
  if (found === undefined) throw new Error(`${source.fileName}: no initialised const ${name}`);
  return found;
}

/** The indentation of the line `pos` is on. */
function indentAt(text: string, pos: number): string {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
}

function insertElement(
  text: string,
  literal: ts.ArrayLiteralExpression | ts.ObjectLiteralExpression,
  elements: readonly ts.Node[],
  code: string,
  before?: ts.Node,
): string {
  const multiline = text.slice(literal.getStart(), literal.getEnd()).includes('\n');
  if (before !== undefined) {
    const at = before.getStart();
    return `${text.slice(0, at)}${code},\n${indentAt(text, at)}${text.slice(at)}`;
  }
  const last = elements[elements.length - 1];
  if (last === undefined) {
    const at = literal.getStart() + 1;
    return `${text.slice(0, at)}${multiline ? '\n  ' : ' '}${code}${multiline ? ',\n' : ' '}${text.slice(at)}`;
  }
  const hasTrailingComma =
    (literal as { elements?: ts.NodeArray<ts.Node> }).elements?.hasTrailingComma ??
    (literal as ts.ObjectLiteralExpression).properties.hasTrailingComma;
  const at = last.getEnd() + (hasTrailingComma ? 1 : 0);
  const separator = multiline ? `\n${indentAt(text, last.getStart())}` : ' ';
  return `${text.slice(0, at)}${hasTrailingComma ? '' : ','}${separator}${code}${hasTrailingComma ? ',' : ''}${text.slice(at)}`;
}

/** Appends `code` to the array literal `const <name> = [...]` (before the element matching `before`). */
export function addArrayElement(
  path: string,
  text: string,
  name: string,
  code: string,
  before?: (element: ts.Expression) => boolean,
): string {
  const source = parse(path, text);
  const literal = initializerOf(source, name);
  if (!ts.isArrayLiteralExpression(literal)) throw new Error(`${path}: ${name} is not an array literal`);
  const anchor = before ? literal.elements.find(before) : undefined;
  return insertElement(text, literal, literal.elements, code, anchor);
}

/** Adds `key: value` to the object literal `const <name> = {...}`; refuses a key already there. */
export function addObjectProperty(
  path: string,
  text: string,
  name: string,
  key: string,
  value: string,
): string {
  const source = parse(path, text);
  const literal = initializerOf(source, name);
  if (!ts.isObjectLiteralExpression(literal)) throw new Error(`${path}: ${name} is not an object literal`);
  const taken = literal.properties.some(
    (p) => p.name !== undefined && p.name.getText(source).replace(/['"]/g, '') === key,
  );
  if (taken) throw new Error(`${path}: ${name} already has ${key}`);
  return insertElement(text, literal, literal.properties, `${key}: ${value}`);
}

/** The string elements of the array literal `const <name> = [...]`. */
export function arrayStrings(path: string, text: string, name: string): string[] {
  const literal = initializerOf(parse(path, text), name);
  if (!ts.isArrayLiteralExpression(literal)) throw new Error(`${path}: ${name} is not an array literal`);
  return literal.elements.filter(ts.isStringLiteral).map((element) => element.text);
}

/** `key → numeric value` of the object literal `const <name> = {...}`. */
export function objectNumbers(path: string, text: string, name: string): Record<string, number> {
  const literal = initializerOf(parse(path, text), name);
  if (!ts.isObjectLiteralExpression(literal)) throw new Error(`${path}: ${name} is not an object literal`);
  const entries = literal.properties.flatMap((p) =>
    ts.isPropertyAssignment(p) && ts.isNumericLiteral(p.initializer)
      ? [[p.name.getText().replace(/['"]/g, ''), Number(p.initializer.text)] as const]
      : [],
  );
  return Object.fromEntries(entries);
}

/** Inserts `line` after the last top-level import (or export-from) statement. */
export function addStatementAfterLast(
  path: string,
  text: string,
  line: string,
  matches: (statement: ts.Statement) => boolean,
): string {
  const source = parse(path, text);
  const last = [...source.statements].reverse().find(matches);
  const at = last === undefined ? 0 : last.getEnd();
  return `${text.slice(0, at)}\n${line}${text.slice(at)}`;
}

export const isImport = (statement: ts.Statement): boolean => ts.isImportDeclaration(statement);
export const isExportFrom = (statement: ts.Statement): boolean =>
  ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined;

/** Adds `| 'name'` to `type <alias> = 'a' | 'b'`. */
export function addToStringUnion(path: string, text: string, alias: string, member: string): string {
  const source = parse(path, text);
  const declaration = source.statements.find(
    (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === alias,
  );
  if (declaration === undefined) throw new Error(`${path}: no type ${alias}`);
  const at = declaration.type.getEnd();
  return `${text.slice(0, at)} | '${member}'${text.slice(at)}`;
}
