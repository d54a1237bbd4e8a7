import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/**
 * The npm packages the .ts files under `folder` import (import and export ... from, dynamic
 * import(), import types, require() and require.resolve()), by package name; node: built-ins
 * and relative paths are left out. Parsed, so comments and look-alike calls do not count.
 */
export function importedPackages(folder: string): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
    const source = ts.createSourceFile(file, readFileSync(join(folder, file), "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const specifier = moduleSpecifierOf(node);
      if (specifier && !specifier.startsWith(".") && !specifier.startsWith("node:")) {
        const parts = specifier.split("/");
        names.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return [...names].sort();
}

function moduleSpecifierOf(node: ts.Node): string | null {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) return node.moduleSpecifier.text;
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) return node.argument.literal.text;
  if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0]!)) {
    const callee = node.expression;
    const isRequire = ts.isIdentifier(callee) && callee.text === "require";
    const isResolve = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === "require" && callee.name.text === "resolve";
    if (isRequire || isResolve || callee.kind === ts.SyntaxKind.ImportKeyword) return node.arguments[0].text;
  }
  return null;
}
