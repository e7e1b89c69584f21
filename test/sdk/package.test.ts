/**
 * @propdesk/sdk stands alone: `npm pack` makes a tarball of its built JavaScript, declarations and
 * README, depending on nothing of the repository; installed in a scratch project outside the
 * repository, a plain Node script (ES module, named imports) and the propdesk-conformance bin use
 * it against the real stack.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ALL_SCOPES, startStack, type Stack } from '../support/stack';

const run = promisify(execFile);
const SDK_DIR = path.resolve(__dirname, '..', '..', 'sdk');

let stack: Stack;
let scratch: string;
let tarball: string;
let packedFiles: string[];

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'pd-sdk-scratch-'));
  const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: SDK_DIR, maxBuffer: 16 * 1024 * 1024 });
  const [entry] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = path.join(scratch, entry!.filename);
  packedFiles = entry!.files.map((f) => f.path);
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true }));
  // The registry's packages (ajv) from npm's cache when it has them.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: scratch });
  stack = await startStack();
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed SDK', () => {
  it('holds its built JavaScript, declarations, README and package.json, and depends on nothing of the repository', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/propdesk-conformance.js', 'dist/index.js', 'dist/index.d.ts', 'dist/conformance/bin.js', 'dist/__generated__/openapi.d.ts']));
    expect(packedFiles.filter((f) => !/^(package\.json|README\.md|bin\/propdesk-conformance\.js|dist\/.+\.(js|d\.ts))$/.test(f))).toEqual([]);
    const installed = JSON.parse(readFileSync(path.join(scratch, 'node_modules', '@propdesk', 'sdk', 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string> };
    expect(Object.keys(installed.dependencies).sort()).toEqual(['ajv', 'ajv-formats']);
    expect(installed.bin).toEqual({ 'propdesk-conformance': 'bin/propdesk-conformance.js' });
    expect(readdirSync(path.join(scratch, 'node_modules', '@propdesk'))).toEqual(['sdk']);
  });

  it('works from a plain Node script outside the repository, against the stack', async () => {
    const org = await stack.createOrg();
    await stack.createAccounts(org.id, 3);
    const key = (await stack.createKey(org.id)).token;
    writeFileSync(
      path.join(scratch, 'use.mjs'),
      `import { PropDesk, PropDeskError } from '@propdesk/sdk';
       const pd = new PropDesk({ apiKey: process.env.KEY, baseUrl: process.env.BASE_URL });
       const numbers = [];
       for await (const a of pd.listAccounts({ limit: 2 })) numbers.push(a.number);
       const claimed = await pd.claimAccount({ name: 'Scratch', email: 'scratch@example.com' });
       const error = await pd.getAccount(999999999).catch((e) => e);
       console.log(JSON.stringify({ numbers, claimed: claimed.account.number, error: [error instanceof PropDeskError, error.status, error.code, typeof error.requestId] }));`,
    );
    const { stdout } = await run(process.execPath, ['use.mjs'], { cwd: scratch, env: { ...process.env, KEY: key, BASE_URL: stack.url } });
    const result = JSON.parse(stdout) as { numbers: number[]; claimed: number; error: unknown[] };
    expect(result.numbers).toHaveLength(3);
    expect(result.numbers).toContain(result.claimed);
    expect(result.error).toEqual([true, 404, 'not_found', 'string']);
  });

  it('installs propdesk-conformance as a bin that conforms against the stack', async () => {
    const org = await stack.createOrg({ paid: false });
    const key = (await stack.createKey(org.id, ALL_SCOPES, 'conformance', { mode: 'test' })).token;
    const bin = path.join(scratch, 'node_modules', '.bin', 'propdesk-conformance');
    const { stdout } = await run(bin, ['--base-url', stack.url, '--key', key], { cwd: scratch, timeout: 120_000 });
    expect(stdout.trim().split('\n').pop()).toMatch(/^conforms: all \d+ steps$/);
  }, 150_000);
});
