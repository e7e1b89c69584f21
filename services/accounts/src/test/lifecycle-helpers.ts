import { Mode, QueryTypes } from '@propdesk/kit';
import type { Harness } from './harness';

/** What the lifecycle suites share: programs to create, and reads of what the service stored. */

export const phase = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  kind: 'evaluation',
  profit_target_pct: 1,
  max_daily_loss_pct: 5,
  max_total_loss_pct: 10,
  warning_at_pct: null,
  ...over,
});

export const threeStep = (name: string) => ({
  name,
  initial_balance: 100000,
  phases: [phase('Phase 1'), phase('Phase 2', { profit_target_pct: 2 }), { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 90 }],
});

export async function failure(p: Promise<unknown>): Promise<{ code?: string; message?: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: string; message?: string };
  }
  throw new Error('expected a failure');
}

/** Reads of the harness's database and an assigned account; `harness` is read at each call (it is set in beforeAll). */
export function lifecycleHelpers(harness: () => Harness) {
  async function count(sql: string, replacements: Record<string, unknown>): Promise<number> {
    const [row] = await harness().sql.query<{ n: string }>(sql, { replacements, type: QueryTypes.SELECT });
    return Number(row.n);
  }
  return {
    count,
    async eventTypes(org: string, after: number): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
      return harness().sql.query<{ type: string; data: Record<string, unknown> }>(
        `SELECT type, data FROM events WHERE organization_id = :org AND position > :after ORDER BY position`,
        { replacements: { org, after }, type: QueryTypes.SELECT },
      );
    },
    async lastPosition(): Promise<number> {
      return count('SELECT coalesce(max(position), 0) AS n FROM events', {});
    },
    async assignedAccount(org: string, program: string): Promise<string> {
      const h = harness();
      const { accounts } = await h.api.createAccounts({ organizationId: org, mode: Mode.MODE_LIVE, count: 1, program, initialBalance: 0 });
      const number = accounts[0].number;
      await h.api.assignTrader({ organizationId: org, mode: Mode.MODE_LIVE, number, name: 'Jane Trader', email: `jane-${number}@example.com` });
      return number;
    },
  };
}
