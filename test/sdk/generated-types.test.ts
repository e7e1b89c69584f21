/**
 * The SDK's generated sources (sdk/src/__generated__, written by every build) are those of the
 * document the gateway serves: the generator (sdk/codegen, run with --check, in a process of its own:
 * openapi-typescript loads ES modules jest cannot) regenerates them from that document and they
 * must be byte-identical; a changed document fails the check, naming the stale files.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { OpenApiDocument } from '../../sdk/codegen/generate';
import { openApiDocument } from '../../gateway/src/routes';

const ROOT = path.resolve(__dirname, '..', '..');
const served = () => JSON.parse(JSON.stringify(openApiDocument())) as OpenApiDocument;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pd-sdk-check-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function check(document: OpenApiDocument): { code: number; stderr: string } {
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'sdk', 'codegen', 'dist', 'cli.js'), file, '--check'], { encoding: 'utf8', stdio: 'pipe' });
    return { code: 0, stderr: '' };
  } catch (err) {
    const failed = err as { status: number; stderr: string };
    return { code: failed.status, stderr: failed.stderr };
  }
}

it('are what the served document generates (run `npm run gen:sdk` when not)', () => {
  expect(check(served())).toEqual({ code: 0, stderr: '' });
}, 60_000);

it('are stale for a changed document: the check fails and names them', () => {
  const changed = served();
  delete changed.paths['/v1/accounts/{number}/archive'];
  const result = check(changed);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('sdk/src/__generated__/openapi.ts');
  expect(result.stderr).toContain('sdk/src/__generated__/operations.ts');
  expect(result.stderr).toContain('npm run gen:sdk');
}, 60_000);
