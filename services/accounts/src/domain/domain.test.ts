import { AppError } from '@propdesk/kit';
import { CLOSED_TO_TRADERS, crossesCreditsLow, refuseStatus, type AccountStatus } from './account';
import { generateExecutorPassword, isStrongPassword } from './passwords';
import { PROGRAMS, resolveProgram } from './programs';
import { accountNumber, initialBalance, position, provisioningCount, traderInput } from './validation';

const paramOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError && err.code === 'invalid_request') return err.param;
    throw err;
  }
  return undefined;
};

describe('programs', () => {
  it('standard carries the seed terms', () => {
    expect(PROGRAMS.standard).toMatchObject({
      maxDailyLossPct: 5,
      maxTotalLossPct: 10,
      totalLossMode: 'static',
      profitTargetPct: 10,
      minTradingDays: 4,
      leverage: 100,
      maxLotsPerOrder: 50,
      allowedSymbols: null,
      flagLotsAbove: 20,
      flagWeekendHolding: true,
      defaultInitialBalance: 100000,
      currency: 'USD',
    });
  });

  it('an empty name is standard, an unknown one names program', () => {
    expect(resolveProgram('').name).toBe('standard');
    expect(resolveProgram('aggressive').terms.totalLossMode).toBe('trailing');
    expect(paramOf(() => resolveProgram('toString'))).toBe('program');
    expect(paramOf(() => resolveProgram('gold'))).toBe('program');
  });

  it('hands out a copy, so frozen terms cannot alter the catalogue', () => {
    const { terms } = resolveProgram('standard');
    terms.maxDailyLossPct = 99;
    expect(PROGRAMS.standard.maxDailyLossPct).toBe(5);
  });
});

describe('validation', () => {
  it('account numbers are positive safe integers', () => {
    expect(accountNumber('1000001')).toBe(1000001);
    for (const bad of ['0', '-1', '1.5', 'abc', '', '99999999999999999', ' 1']) expect(paramOf(() => accountNumber(bad))).toBe('number');
  });

  it('positions are non-negative integers', () => {
    expect(position('', 'after_position')).toBe(0);
    expect(position('42', 'after_position')).toBe(42);
    expect(paramOf(() => position('-1', 'after_position'))).toBe('after_position');
  });

  it('count is 1..100 and initial_balance is in (0, 10,000,000] with cents at most', () => {
    expect(provisioningCount(100)).toBe(100);
    for (const bad of [0, 101, 1.5, -1]) expect(paramOf(() => provisioningCount(bad))).toBe('count');
    expect(initialBalance(0, 100000)).toBe(100000);
    expect(initialBalance(10_000_000, 1)).toBe(10_000_000);
    for (const bad of [-1, 10_000_000.01, Number.NaN, 1.001]) expect(paramOf(() => initialBalance(bad, 1))).toBe('initial_balance');
  });

  it('trader input is kept exactly as sent (refused, never trimmed), emails normalized for lookup only', () => {
    expect(traderInput('  Ann  ', 'Ann@Example.COM')).toEqual({ name: '  Ann  ', email: 'Ann@Example.COM', emailNormalized: 'ann@example.com' });
    expect(paramOf(() => traderInput('Ann', ' Ann@Example.COM '))).toBe('email');
    expect(paramOf(() => traderInput('A\u0000nn', 'a@b.co'))).toBe('name');
    expect(paramOf(() => traderInput('A\tnn', 'a@b.co'))).toBe('name');
    expect(paramOf(() => traderInput('A\ud800nn', 'a@b.co'))).toBe('name');
    expect(paramOf(() => traderInput('Ann', `${'a'.repeat(60)}@${'b'.repeat(190)}.com`))).toBe('email');
    expect(paramOf(() => traderInput('   ', 'a@b.co'))).toBe('name');
    expect(paramOf(() => traderInput('x'.repeat(201), 'a@b.co'))).toBe('name');
    expect(paramOf(() => traderInput('Ann', 'a@'))).toBe('email');
  });
});

describe('account rules', () => {
  it('archived and breached accounts cannot be assigned, passed and active can', () => {
    const refusal = (status: AccountStatus): string | null => {
      try {
        refuseStatus({ number: 1, status }, CLOSED_TO_TRADERS, 'cannot be assigned');
        return null;
      } catch (err) {
        return err instanceof AppError ? err.code : 'not an AppError';
      }
    };
    expect(refusal('archived')).toBe('account_archived');
    expect(refusal('breached')).toBe('account_breached');
    expect(refusal('active')).toBeNull();
    expect(refusal('passed')).toBeNull();
  });

  it('each refusing status has its own code', () => {
    expect(() => refuseStatus({ number: 7, status: 'passed' }, ['passed'], 'no longer trades')).toThrow(
      expect.objectContaining({ code: 'account_passed', message: 'account 7 has passed its evaluation and no longer trades' }),
    );
  });

  it('credits.low fires only on the reservation that crosses the threshold', () => {
    expect(crossesCreditsLow(9, 10, 3)).toBe(true);
    expect(crossesCreditsLow(7, 10, 3)).toBe(true);
    expect(crossesCreditsLow(6, 10, 3)).toBe(false);
    expect(crossesCreditsLow(10, 10, 3)).toBe(false);
    expect(crossesCreditsLow(0, 0, 3)).toBe(false);
  });

  it('executor passwords are 16+ characters with upper, lower and digit, and differ', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const p = generateExecutorPassword();
      expect(isStrongPassword(p)).toBe(true);
      seen.add(p);
    }
    expect(seen.size).toBe(200);
  });
});
