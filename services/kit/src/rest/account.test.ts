import { accountsv1 } from '@propdesk/proto';
import { ACCOUNT_FIELDS, ACCOUNT_JSON_SQL, restAccountSchema, toRestAccount } from './account';

const message: accountsv1.Account = {
  number: '1000042',
  organizationId: 'b6f1c1de-7d4f-4a4c-9a55-0c1f7d2e0a11',
  livemode: true,
  status: accountsv1.AccountStatus.ACCOUNT_STATUS_BREACHED,
  traderId: '',
  program: 'standard',
  currency: 'USD',
  initialBalance: 100000,
  balance: 95000,
  equity: 94000,
  peakEquity: 101000,
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  programVersion: 2,
  phase: { index: 1, name: 'verification', kind: 'evaluation' },
  attempt: 3,
  previousAccount: '1000041',
  tradingHalted: false,
};

describe("the account's REST shape", () => {
  it('maps the message: numbers as JSON numbers, the status by name, ISO times, no organization', () => {
    expect(toRestAccount(message)).toEqual({
      number: 1000042,
      status: 'breached',
      trader_id: null,
      program: 'standard',
      currency: 'USD',
      initial_balance: 100000,
      balance: 95000,
      equity: 94000,
      peak_equity: 101000,
      created_at: '2026-01-02T03:04:05.000Z',
      program_version: 2,
      phase: { index: 1, name: 'verification', kind: 'evaluation' },
      attempt: 3,
      previous_account: 1000041,
      next_account: null,
      livemode: true,
      trading_halted: false,
    });
  });

  it('shows an unassigned account with trader_id null whether the id is absent or empty', () => {
    expect(toRestAccount({ ...message, traderId: undefined }).trader_id).toBeNull();
    expect(toRestAccount({ ...message, traderId: '' }).trader_id).toBeNull();
    const id = '6f0c7a52-3a43-4c55-a3c4-6a0d2b1e9f10';
    expect(toRestAccount({ ...message, traderId: id }).trader_id).toBe(id);
  });

  it('what the mapper produces is what the schema describes, and nothing more', () => {
    expect(restAccountSchema.safeParse(toRestAccount(message)).success).toBe(true);
    expect(restAccountSchema.safeParse({ ...toRestAccount(message), extra: 1 }).success).toBe(false);
    expect(Object.keys(restAccountSchema.shape)).toEqual(Object.keys(toRestAccount(message)));
  });

  it('renders every field, in REST order, in the SQL of the list fast path', () => {
    const names = Object.keys(ACCOUNT_FIELDS);
    const positions = names.map((name) => ACCOUNT_JSON_SQL.indexOf(`"${name}":`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(ACCOUNT_JSON_SQL.startsWith(`'{"number":' || number || ',"status":"' || status || '"`)).toBe(true);
    expect(ACCOUNT_JSON_SQL.endsWith(`|| '}'`)).toBe(true);
  });
});
