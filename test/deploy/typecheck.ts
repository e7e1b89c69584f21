import path from 'node:path';
import ts from 'typescript';

/**
 * Type-checks values (rendered manifests, a dashboard) as object literals against published
 * TypeScript declarations: an object literal gets TypeScript's excess-property check, so a
 * misspelt or misplaced field is an error, not silently ignored as a JSON schema without
 * `additionalProperties: false` would. Returns the diagnostics, one line each.
 */
export function typeErrors(values: Array<{ type: string; from: string; value: unknown; name: string }>): string[] {
  const root = path.resolve(__dirname, '..', '..');
  // A file that does not exist, inside the repository so that node_modules resolve from it.
  const file = path.join(root, 'test', 'deploy', '__typecheck__.ts');
  const imports = [...new Set(values.map((v) => `import type { ${v.type} } from '${v.from}';`))];
  const declarations = values.map((v, i) => `// ${v.name}\nexport const value${i}: ${v.type} = ${JSON.stringify(v.value, null, 1)};`);
  const source = [...imports, ...declarations].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    skipLibCheck: true,
    types: [],
    lib: ['lib.es2023.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, languageVersion, onError) =>
    path.resolve(name) === file ? ts.createSourceFile(name, source, languageVersion, true) : getSourceFile(name, languageVersion, onError);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => path.resolve(name) === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const context = where && d.file?.fileName === file ? ` (${source.split('\n').slice(0, where.line + 1).reverse().find((l) => l.startsWith('// ')) ?? ''})` : '';
    return `${ts.flattenDiagnosticMessageText(d.messageText, '\n')}${context}`;
  });
}
