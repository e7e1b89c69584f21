import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openApiDocument } from '../routes';

/**
 * The served document through Spectral with the repository's ruleset (.spectral.yaml: spectral:oas,
 * the OWASP API security ruleset, and each exception with its reason), as CI runs it.
 */

const ROOT = path.resolve(__dirname, '../../..');
const SPECTRAL = path.join(path.dirname(require.resolve('@stoplight/spectral-cli/package.json')), 'dist/index.js');

interface Finding {
  code: string;
  path: string[];
  message: string;
}

/** Lints a document written where the ruleset's overrides find it (under the repository, as openapi.json). */
function lint(document: unknown): Finding[] {
  const dir = mkdtempSync(path.join(ROOT, 'gateway', 'dist', 'openapi-lint-'));
  try {
    const file = path.join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    let out: string;
    try {
      out = execFileSync(process.execPath, [SPECTRAL, 'lint', '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet', file], { cwd: ROOT, encoding: 'utf8' });
    } catch (err) {
      // Spectral exits 1 when it found errors; its findings are still on stdout.
      out = (err as { stdout?: string }).stdout ?? '';
      if (out === '') throw err;
    }
    return (JSON.parse(out) as Finding[]).map(({ code, path: at, message }) => ({ code, path: at, message }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the OpenAPI document through Spectral (spectral:oas and the OWASP ruleset)', () => {
  it('has no finding at all, of any severity', () => {
    expect(lint(openApiDocument())).toEqual([]);
  });

  it('is judged by rules that do fire: a document broken in each way the rules guard fails', () => {
    const broken = JSON.parse(JSON.stringify(openApiDocument())) as {
      paths: Record<string, Record<string, { tags: string[]; parameters?: Array<{ name?: string; schema?: Record<string, unknown> }> }>>;
      components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>> }> };
    };
    const list = broken.paths['/v1/accounts'].get;
    const limit = list.parameters?.find((p) => p.name === 'limit');
    delete limit?.schema?.maximum;
    delete limit?.schema?.format;
    list.tags = ['Undeclared'];
    delete broken.components.schemas.CreateAccountsRequest.properties?.program?.maxLength;
    broken.components.schemas.Orphan = { properties: {} };
    const codes = new Set(lint(broken).map((f) => f.code));
    for (const code of ['propdesk:request-integer-limit', 'owasp:api4:2023-integer-format', 'operation-tag-defined', 'propdesk:request-string-limit', 'oas3-unused-component']) {
      expect({ code, found: codes.has(code) }).toEqual({ code, found: true });
    }
  });
});
