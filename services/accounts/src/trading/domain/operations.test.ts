import { exactNumberProblem, MONEY_STEP, parseProgramBody, programCreateSchema } from '@propdesk/kit';
import { haltedViolation } from './orders';

/** SPEC 14's rules written as pure code: the halt's refusal, an adjustment's amount, the funded-only phase fields. */
describe('a halted account', () => {
  it('refuses every new order with rule halted, named in the message; an account that is not halted is not concerned', () => {
    expect(haltedViolation({ number: 1000001, tradingHalted: false })).toBeUndefined();
    const refused = haltedViolation({ number: 1000001, tradingHalted: true });
    expect(refused?.rule).toBe('halted');
    expect(refused?.reason).toMatch(/^halted: .*1000001/);
  });
});

describe("an adjustment's amount", () => {
  const rule = { unit: 'USD', step: MONEY_STEP, nonZero: true, max: 10_000_000 };
  it.each([[250.5], [-0.01], [-10_000_000], [10_000_000]])('takes %p', (amount) => {
    expect(exactNumberProblem(amount, rule)).toBeUndefined();
  });
  it.each([
    [0, 'must not be 0'],
    [0.001, 'multiple of 0.01'],
    [-10_000_000.01, 'at most'],
    [Number.NaN, 'finite'],
  ])('refuses %p (%s)', (amount, problem) => {
    expect(exactNumberProblem(amount, rule)).toContain(problem);
  });
  it('leaves the other rules as they were: a quantity is still positive', () => {
    expect(exactNumberProblem(-1, { step: MONEY_STEP })).toBe('must be greater than 0');
  });
});

describe('the payout fields of a phase', () => {
  const phase = (over: Record<string, unknown>) => ({ name: 'P', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, ...over });
  it('default to off and belong to funded phases only', () => {
    const program = parseProgramBody(programCreateSchema, { name: 'pays', initial_balance: 1000, phases: [phase({})] });
    expect(program.phases[0]).toMatchObject({ payout_requires_approval: false, requires_kyc: false });
    expect(() =>
      parseProgramBody(programCreateSchema, { name: 'eval', initial_balance: 1000, phases: [phase({ kind: 'evaluation', profit_target_pct: 5, payout_requires_approval: true })] }),
    ).toThrow(expect.objectContaining({ param: 'phases[0].payout_requires_approval' }));
    const off = parseProgramBody(programCreateSchema, { name: 'eval', initial_balance: 1000, phases: [phase({ kind: 'evaluation', profit_target_pct: 5, requires_kyc: false })] });
    expect(off.phases[0].requires_kyc).toBe(false);
  });
});
