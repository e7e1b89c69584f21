import { AppError, Mode } from '@propdesk/kit';
import { startHarness, type Harness } from '../test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const phase = (over: Record<string, unknown> = {}) => ({ name: 'evaluation', kind: 'evaluation', profit_target_pct: 8, max_daily_loss_pct: 5, max_total_loss_pct: 10, ...over });
const twoStep = (name: string) => ({
  name,
  description: 'two steps and funded',
  initial_balance: 50000,
  phases: [
    phase({ name: 'Phase 1', min_trading_days: 2 }),
    phase({ name: 'Phase 2', profit_target_pct: 5, daily_loss_basis: 'higher', total_loss_mode: 'trailing_eod', trailing_stops_at_initial: true }),
    { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, consistency_pct: 40 },
  ],
});

async function failure(p: Promise<unknown>): Promise<{ code: string; param?: string; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, param: err.param, message: err.message };
    throw err;
  }
  throw new Error('expected a failure');
}

describe('programs as data', () => {
  it('creates version 1 with every default filled in, and lists it with the built-ins', async () => {
    const org = h.newOrg();
    const { program } = await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: twoStep('two-step') });
    expect(program).toMatchObject({ name: 'two-step', version: 1, status: 'active', builtin: false, currency: 'USD', initial_balance: 50000 });
    const phases = (program as { phases: Array<Record<string, unknown>> }).phases;
    expect(phases[0]).toMatchObject({ min_trading_days: 2, daily_loss_basis: 'balance', total_loss_mode: 'static', warning_at_pct: 80, leverage: 100, profit_split_pct: null });
    expect(phases[2]).toMatchObject({ kind: 'funded', profit_target_pct: null, profit_split_pct: 80, consistency_pct: 40 });

    const list = await h.api.listPrograms({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', status: '' });
    expect(list.programs.map((p) => [p.name, p.builtin])).toEqual([
      ['aggressive', true],
      ['standard', true],
      ['swing', true],
      ['two-step', false],
    ]);
    // Another organization does not see it.
    const other = await h.api.listPrograms({ organizationId: h.newOrg(), mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', status: '' });
    expect(other.programs.map((p) => p.name)).toEqual(['aggressive', 'standard', 'swing']);
  });

  it('pages by name with an opaque cursor', async () => {
    const org = h.newOrg();
    for (const name of ['a-one', 'b-two', 'z-three']) await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: twoStep(name) });
    const names: string[] = [];
    let token = '';
    do {
      const page = await h.api.listPrograms({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 2, pageToken: token, status: '' });
      names.push(...page.programs.map((p) => p.name as string));
      token = page.nextPageToken;
    } while (token);
    expect(names).toEqual(['a-one', 'aggressive', 'b-two', 'standard', 'swing', 'z-three']);
  });

  it('names the bad field by its path', async () => {
    const org = h.newOrg();
    const bad = async (program: Record<string, unknown>) => failure(h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program }));
    expect(await bad({ ...twoStep('x-1'), phases: [phase(), phase({ name: 'Second', profit_target_pct: null })] })).toMatchObject({
      code: 'invalid_request',
      param: 'phases[1].profit_target_pct',
    });
    expect(await bad({ ...twoStep('Bad Name') })).toMatchObject({ param: 'name' });
    expect(await bad({ ...twoStep('x-2'), phases: [] })).toMatchObject({ param: 'phases' });
    expect(await bad({ ...twoStep('x-3'), phases: [{ ...phase(), kind: 'funded' }, phase({ name: 'b' })] })).toMatchObject({ param: 'phases[0].profit_target_pct' });
    expect(await bad({ ...twoStep('x-4'), phases: [{ name: 'f', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10 }, phase()] })).toMatchObject({
      param: 'phases[0].kind',
    });
    expect(await bad({ ...twoStep('x-5'), phases: [phase(), phase()] })).toMatchObject({ param: 'phases[1].name' });
    expect(await bad({ ...twoStep('x-6'), phases: [phase({ daily_loss_basis: 'nope' })] })).toMatchObject({ param: 'phases[0].daily_loss_basis' });
    expect(await bad({ ...twoStep('x-7'), phases: [phase({ warning_at_pct: 100 })] })).toMatchObject({ param: 'phases[0].warning_at_pct' });
    expect(await bad({ ...twoStep('x-8'), phases: [phase({ profit_split_pct: 50 })] })).toMatchObject({ param: 'phases[0].profit_split_pct' });
    expect(await bad({ ...twoStep('x-9'), initial_balance: -1 })).toMatchObject({ param: 'initial_balance' });
    expect(await bad({ ...twoStep('x-10'), phases: [phase({ max_total_loss_pct: undefined })] })).toMatchObject({ param: 'phases[0].max_total_loss_pct' });
  });

  it('refuses a taken name, a built-in included, with conflict', async () => {
    const org = h.newOrg();
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: twoStep('mine') });
    expect(await failure(h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: twoStep('mine') }))).toMatchObject({ code: 'conflict' });
    expect(await failure(h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: twoStep('standard') }))).toMatchObject({ code: 'conflict' });
    expect(await failure(h.api.updateProgram({ organizationId: org, mode: Mode.MODE_LIVE, name: 'standard', program: twoStep('standard') }))).toMatchObject({ code: 'conflict' });
    expect(await failure(h.api.archiveProgram({ organizationId: org, mode: Mode.MODE_LIVE, name: 'swing' }))).toMatchObject({ code: 'conflict' });
  });

  it('versions on update; accounts keep the version frozen into them; archive stops new accounts', async () => {
    const org = h.newOrg();
    await h.api.createProgram({ organizationId: org, mode: Mode.MODE_LIVE, program: twoStep('fx') });
    const first = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: 'fx', initialBalance: 0 });
    expect(first.accounts[0]).toMatchObject({ program: 'fx', programVersion: 1, initialBalance: 50000, attempt: 1, phase: { index: 0, name: 'Phase 1', kind: 'evaluation' } });

    const updated = await h.api.updateProgram({ organizationId: org, mode: Mode.MODE_LIVE, name: 'fx', program: { ...twoStep('fx'), initial_balance: 25000 } });
    expect(updated.program).toMatchObject({ version: 2, initial_balance: 25000 });
    const second = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: 'fx', initialBalance: 0 });
    expect(second.accounts[0]).toMatchObject({ programVersion: 2, initialBalance: 25000 });
    const v1 = await h.api.getProgram({ organizationId: org, mode: Mode.MODE_LIVE, name: 'fx', version: 1 });
    expect(v1.program).toMatchObject({ version: 1, initial_balance: 50000 });
    expect((await h.api.getAccount({ organizationId: org, mode: Mode.MODE_LIVE, number: first.accounts[0].number })).account).toMatchObject({ programVersion: 1, initialBalance: 50000 });

    const archived = await h.api.archiveProgram({ organizationId: org, mode: Mode.MODE_LIVE, name: 'fx' });
    expect(archived.program).toMatchObject({ status: 'archived', version: 2 });
    expect(await failure(h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: 'fx', initialBalance: 0 }))).toMatchObject({ code: 'conflict' });
    expect(await failure(h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program: 'nope', initialBalance: 0 }))).toMatchObject({
      code: 'invalid_request',
      param: 'program',
    });
    const active = await h.api.listPrograms({ organizationId: org, mode: Mode.MODE_LIVE, pageSize: 0, pageToken: '', status: 'archived' });
    expect(active.programs.map((p) => p.name)).toEqual(['fx']);
    expect(await failure(h.api.getProgram({ organizationId: org, mode: Mode.MODE_LIVE, name: 'fx', version: 3 }))).toMatchObject({ code: 'not_found' });
  });

  it('shows a built-in read-only with its terms', async () => {
    const { program } = await h.api.getProgram({ organizationId: h.newOrg(), mode: Mode.MODE_LIVE, name: 'aggressive', version: 0 });
    expect(program).toMatchObject({ builtin: true, version: 1, initial_balance: 50000, phases: [{ kind: 'evaluation', total_loss_mode: 'trailing', profit_target_pct: 8 }] });
  });
});
