import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { startServices, type TestServices } from '../panel/services';

const ROOT = path.resolve(__dirname, '..', '..');
const ENTRY = path.join(ROOT, 'services/admin-cli/dist/main.js');

// Each CLI call is a Node process of its own: under a second on an idle machine, several seconds on
// a loaded one (suites run in parallel), and a test here makes up to seven.
jest.setTimeout(180_000);

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown> & { error?: { code: string; message: string; param?: string } };
  ms: number;
}

// Asynchronous on purpose: the services answering the CLI run in this very process.
function cli(args: string[], env: Record<string, string>): Promise<CliRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(process.execPath, [ENTRY, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      let json: CliRun['json'] = {};
      try {
        json = JSON.parse(stdout);
      } catch {
        json = { unparsable: stdout };
      }
      resolve({ code, stdout, stderr, json, ms: Date.now() - started });
    });
  });
}

function expectOneJsonLine(run: CliRun): void {
  expect(run.stdout.endsWith('\n')).toBe(true);
  expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
}

describe('the admin CLI against the running services', () => {
  let services: TestServices;
  let env: Record<string, string>;
  const admin = (...args: string[]) => cli(args, env);

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'services/admin-cli'], { cwd: ROOT, stdio: 'pipe' });
    services = await startServices();
    env = services.clientEnv;
  });

  afterAll(async () => {
    await services?.stop();
  });

  async function createOrg(...extra: string[]): Promise<{ id: string; name: string; plan_status: string; credits: number }> {
    const run = await admin('org:create', '--name', 'Acme Prop', ...extra);
    expect(run.code).toBe(0);
    return run.json as unknown as { id: string; name: string; plan_status: string; credits: number };
  }

  describe('organizations', () => {
    it('creates a paid organization with no credits by default, printing one JSON object', async () => {
      const run = await admin('org:create', '--name', 'Acme Prop');
      expect(run.code).toBe(0);
      expectOneJsonLine(run);
      expect(run.json).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Acme Prop', plan_status: 'paid', credits: 0 });
    });

    it('creates an unpaid organization with credits, then changes its plan and adds credits', async () => {
      const org = await createOrg('--unpaid', '--credits', '5');
      expect(org).toMatchObject({ plan_status: 'unpaid', credits: 5 });
      const paid = await admin('org:set-plan', '--org', org.id, '--paid');
      expect(paid.code).toBe(0);
      expect(paid.json).toEqual({ ...org, plan_status: 'paid' });
      const unpaid = await admin('org:set-plan', '--org', org.id, '--unpaid');
      expect(unpaid.json).toMatchObject({ plan_status: 'unpaid' });
      const more = await admin('org:add-credits', '--org', org.id, '--credits', '10');
      expect(more.code).toBe(0);
      expect(more.json).toEqual({ id: org.id, name: 'Acme Prop', plan_status: 'unpaid', credits: 15 });
    });

    it('sets the credits.low threshold (an extra command)', async () => {
      const org = await createOrg();
      const run = await admin('org:set-credits-threshold', '--org', org.id, '--threshold', '3');
      expect(run.code).toBe(0);
      expectOneJsonLine(run);
      expect(run.json).toMatchObject({ id: org.id, credits_low_threshold: 3 });
      const bad = await admin('org:set-credits-threshold', '--org', org.id, '--threshold', '-2');
      expect(bad.code).toBe(1);
      expect(bad.json.error?.code).toBe('invalid_request');
    });

    it('answers not_found for an unknown organization', async () => {
      const run = await admin('org:add-credits', '--org', '6c1f7c8a-1b2c-4d5e-8f90-123456789abc', '--credits', '1');
      expect(run.code).toBe(1);
      expectOneJsonLine(run);
      expect(run.json.error?.code).toBe('not_found');
    });
  });

  describe('users and keys', () => {
    it('creates a panel user', async () => {
      const org = await createOrg();
      const run = await admin('user:create', '--org', org.id, '--email', 'boss@acme.example', '--password', 'correct horse battery', '--role', 'owner');
      expect(run.code).toBe(0);
      expect(run.json).toEqual({ id: expect.any(String), email: 'boss@acme.example', role: 'owner' });
      expect(run.stdout + run.stderr).not.toContain('correct horse battery');
    });

    it('creates keys with the chosen scopes, or none when the list is empty or absent', async () => {
      const org = await createOrg();
      const scoped = await admin('key:create', '--org', org.id, '--name', 'shop', '--scopes', 'accounts:read,credentials:read');
      expect(scoped.code).toBe(0);
      expect(scoped.json).toEqual({ id: expect.any(String), token: expect.stringMatching(/^pfx_live_[A-Za-z0-9]{40}$/), prefix: expect.any(String), name: 'shop', scopes: ['accounts:read', 'credentials:read'], mode: 'live' });
      expect(scoped.json.prefix).toBe(String(scoped.json.token).slice(0, 17));
      expect(scoped.stderr).not.toContain(String(scoped.json.token));
      const empty = await admin('key:create', '--org', org.id, '--name', 'empty', '--scopes', '');
      expect(empty.json.scopes).toEqual([]);
      const absent = await admin('key:create', '--org', org.id, '--name', 'absent');
      expect(absent.json.scopes).toEqual([]);
    });

    it('creates a test key with --mode test (pfx_test_, mode in the answer), and refuses another mode naming it', async () => {
      const org = await createOrg();
      const test = await admin('key:create', '--org', org.id, '--name', 'sandbox', '--scopes', 'accounts:read', '--mode', 'test');
      expect(test.code).toBe(0);
      expect(test.json).toEqual({ id: expect.any(String), token: expect.stringMatching(/^pfx_test_[A-Za-z0-9]{40}$/), prefix: expect.any(String), name: 'sandbox', scopes: ['accounts:read'], mode: 'test' });
      expect(test.json.prefix).toBe(String(test.json.token).slice(0, 17));
      const live = await admin('key:create', '--org', org.id, '--name', 'explicit', '--mode', 'live');
      expect(live.json).toMatchObject({ mode: 'live', token: expect.stringMatching(/^pfx_live_/) });
      const bad = await admin('key:create', '--org', org.id, '--name', 'x', '--mode', 'staging');
      expect(bad.code).toBe(1);
      expect(bad.json.error).toMatchObject({ code: 'invalid_request', param: 'mode' });
    });

    it('refuses an unknown scope with invalid_request', async () => {
      const org = await createOrg();
      const run = await admin('key:create', '--org', org.id, '--name', 'x', '--scopes', 'accounts:read,admin:all');
      expect(run.code).toBe(1);
      expect(run.json.error).toMatchObject({ code: 'invalid_request', param: 'scopes' });
    });

    it('revokes a key (extra command), keeping the first revoked_at', async () => {
      const org = await createOrg();
      const key = await admin('key:create', '--org', org.id, '--name', 'old');
      const first = await admin('key:revoke', '--org', org.id, '--id', String(key.json.id));
      expect(first.code).toBe(0);
      expect(first.json).toMatchObject({ id: key.json.id, revoked_at: expect.any(String) });
      const again = await admin('key:revoke', '--org', org.id, '--id', String(key.json.id));
      expect(again.json.revoked_at).toBe(first.json.revoked_at);
    });

    it('creates a key that expires with --expires-in, saying when in expires_at', async () => {
      const org = await createOrg();
      const run = await admin('key:create', '--org', org.id, '--name', 'temporary', '--scopes', 'accounts:read', '--expires-in', '3600');
      expect(run.code).toBe(0);
      expect(run.json).toEqual({
        id: expect.any(String),
        token: expect.stringMatching(/^pfx_live_[A-Za-z0-9]{40}$/),
        prefix: expect.any(String),
        name: 'temporary',
        scopes: ['accounts:read'],
        mode: 'live',
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(Math.abs(Date.parse(String(run.json.expires_at)) - (Date.now() + 3_600_000))).toBeLessThan(30_000);
      for (const bad of ['0', '-5', '1.5', 'soon', '315360001']) {
        const refused = await admin('key:create', '--org', org.id, '--name', 'x', '--expires-in', bad);
        expect(refused.code).toBe(1);
        expect(refused.json.error).toMatchObject({ code: 'invalid_request', param: 'expires-in' });
      }
    });

    it("sets a key's own limits with key:set-limits, answering the key with its limits", async () => {
      const org = await createOrg();
      const key = await admin('key:create', '--org', org.id, '--name', 'limited', '--scopes', 'accounts:read');
      const run = await admin('key:set-limits', '--key', String(key.json.id), '--read', '600', '--write', '30');
      expect(run.code).toBe(0);
      expectOneJsonLine(run);
      expect(run.json).toMatchObject({ id: key.json.id, name: 'limited', scopes: ['accounts:read'], expires_at: null, limits: { read: 600, write: 30 } });
      expect(run.stdout).not.toContain(String(key.json.token));
      const missing = await admin('key:set-limits', '--key', String(key.json.id), '--read', '600');
      expect(missing.json.error).toMatchObject({ code: 'invalid_request', param: 'write' });
      const zero = await admin('key:set-limits', '--key', String(key.json.id), '--read', '0', '--write', '5');
      expect(zero.json.error).toMatchObject({ code: 'invalid_request', param: 'read' });
      const unknown = await admin('key:set-limits', '--key', '00000000-0000-4000-8000-000000000000', '--read', '5', '--write', '5');
      expect(unknown.code).toBe(1);
      expect(unknown.json.error).toMatchObject({ code: 'not_found' });
    });
  });

  describe('accounts and quotes', () => {
    it('provisions accounts through the accounts service, spending one credit each', async () => {
      const org = await createOrg('--credits', '3');
      const run = await admin('accounts:create', '--org', org.id, '--count', '2');
      expect(run.code).toBe(0);
      expectOneJsonLine(run);
      expect(run.json).toEqual({ accounts: [expect.any(Number), expect.any(Number)] });
      const custom = await admin('accounts:create', '--org', org.id, '--count', '1', '--balance', '25000.5', '--program', 'standard');
      expect(custom.code).toBe(0);
      expect(custom.json.accounts).toHaveLength(1);
      const after = await admin('org:get', '--org', org.id);
      expect(after.json.credits).toBe(0);
    });

    it('refuses with insufficient_credits when the organization is short', async () => {
      const org = await createOrg('--credits', '1');
      const run = await admin('accounts:create', '--org', org.id, '--count', '2');
      expect(run.code).toBe(1);
      expectOneJsonLine(run);
      expect(run.json.error?.code).toBe('insufficient_credits');
    });

    it('creates a program (programs:create) that accounts:create then takes, and names a bad field by its path', async () => {
      const org = await createOrg('--credits', '3');
      const program = {
        name: 'cli-two-step',
        initial_balance: 20000,
        phases: [
          { name: 'Phase 1', kind: 'evaluation', profit_target_pct: 8, max_daily_loss_pct: 5, max_total_loss_pct: 10, total_loss_mode: 'trailing' },
          { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10 },
        ],
      };
      const created = await admin('programs:create', '--org', org.id, '--json', JSON.stringify(program));
      expect(created.code).toBe(0);
      expectOneJsonLine(created);
      expect(created.json).toMatchObject({ name: 'cli-two-step', version: 1, builtin: false, phases: [{ total_loss_mode: 'trailing' }, { kind: 'funded', profit_split_pct: 80 }] });
      const accounts = await admin('accounts:create', '--org', org.id, '--count', '1', '--program', 'cli-two-step');
      expect(accounts.code).toBe(0);
      const bad = await admin('programs:create', '--org', org.id, '--json', JSON.stringify({ ...program, name: 'cli-bad', phases: [program.phases[0], { ...program.phases[0], name: 'B', profit_target_pct: -1 }] }));
      expect(bad.code).toBe(1);
      expect(bad.json.error).toMatchObject({ code: 'invalid_request', param: 'phases[1].profit_target_pct' });
      const notJson = await admin('programs:create', '--org', org.id, '--json', '{nope');
      expect(notJson.json.error).toMatchObject({ code: 'invalid_request', param: 'json' });
    });

    it('publishes a quote', async () => {
      const run = await admin('quotes:publish', '--symbol', 'EURUSD', '--bid', '1.1', '--ask', '1.1002');
      expect(run.code).toBe(0);
      expect(run.json).toEqual({ symbol: 'EURUSD', bid: 1.1, ask: 1.1002, time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/) });
    });
  });

  describe('bad input', () => {
    const uuid = '6c1f7c8a-1b2c-4d5e-8f90-123456789abc';
    it.each([
      [['org:create'], 'name'],
      [['org:create', '--name'], 'name'],
      [['org:create', '--name', 'x', '--credits', '-1'], 'credits'],
      [['org:create', '--name', 'x', '--credits', '1.5'], 'credits'],
      [['org:create', '--name', 'x', '--colour', 'red'], 'colour'],
      [['org:set-plan', '--org', uuid], 'paid'],
      [['org:set-plan', '--org', uuid, '--paid', '--unpaid'], 'unpaid'],
      [['org:set-plan', '--org', 'nope', '--paid'], 'org'],
      [['org:add-credits', '--org', uuid], 'credits'],
      [['user:create', '--org', uuid, '--email', 'a@b.example', '--password', 'pw', '--role', 'boss'], 'role'],
      [['user:create', '--org', uuid, '--email', 'a@b.example', '--role', 'owner'], 'password'],
      [['accounts:create', '--org', uuid, '--count', '0'], 'count'],
      [['accounts:create', '--org', uuid, '--count', '101'], 'count'],
      [['accounts:create', '--org', uuid, '--count', 'two'], 'count'],
      [['accounts:create', '--org', uuid, '--count', '1', '--balance', '0'], 'balance'],
      [['accounts:create', '--org', uuid, '--count', '1', '--balance', 'lots'], 'balance'],
      [['quotes:publish', '--symbol', 'EURUSD', '--bid', 'x', '--ask', '1'], 'bid'],
      [['org:launch'], 'command'],
      [[], 'command'],
    ])('%j is invalid_request naming %s', async (args, param) => {
      const run = await admin(...args);
      expect(run.code).toBe(1);
      expectOneJsonLine(run);
      expect(run.json).toEqual({ error: { code: 'invalid_request', message: expect.any(String), param } });
    });
  });
});

describe('the admin CLI without services', () => {
  it('lists its commands with help', async () => {
    const run = await cli(['help'], {});
    expect(run.code).toBe(0);
    expectOneJsonLine(run);
    const names = (run.json.commands as Array<{ command: string }>).map((c) => c.command);
    expect(names).toEqual(expect.arrayContaining(['org:create', 'org:set-plan', 'org:add-credits', 'user:create', 'key:create', 'accounts:create', 'quotes:publish']));
  });


  it('answers unavailable quickly when the stack is not running, with one JSON object and exit code 1', async () => {
    // Quickly: well before its deadline (30 s here), not by waiting it out. The process's own start
    // takes part of that bound, and takes seconds on a loaded machine.
    const down = { AUTH_GRPC_ADDRESS: '127.0.0.1:1', ACCOUNTS_GRPC_ADDRESS: '127.0.0.1:1', GRPC_DEADLINE_MS: '30000' };
    const cases: Array<[string[], string, string]> = [
      [['org:create', '--name', 'x'], 'auth', 'AUTH_GRPC_ADDRESS'],
      [['accounts:create', '--org', '6c1f7c8a-1b2c-4d5e-8f90-123456789abc', '--count', '1'], 'accounts', 'ACCOUNTS_GRPC_ADDRESS'],
    ];
    for (const [args, service, variable] of cases) {
      const run = await cli(args, down);
      expect(run.code).toBe(1);
      expectOneJsonLine(run);
      // Says what is wrong and what to do: which service, where the CLI looked, how to start or point it.
      const message = `could not reach the ${service} service at 127.0.0.1:1: is PropDesk running? Start it with npm start, or set ${variable} to where it runs`;
      expect(run.json).toEqual({ error: { code: 'unavailable', message } });
      expect(run.ms).toBeLessThan(15_000);
    }
  });
});
