import { execute, type Sequelize, type Statement, type Transaction } from '@propdesk/kit';
import type { AccountStatus } from '../domain/account';
import type { EventType } from '../domain/events';
import { eventsOfAccountsStatement, eventsStatements, ONE_EVENT_PER_ROW, SEQUENCED_ACCOUNT, sequenceTerm, type NewEvent } from './outbox';

/**
 * The account's money columns and the status a trading verdict sets (and, on a pass with a next
 * phase, the link to its account), written inside the
 * caller's transaction (which holds the row lock, see findAccount). The peak only ever grows.
 */
export async function writeAccountMoney(sequelize: Sequelize, tx: Transaction, number: number, values: AccountMoney): Promise<void> {
  await execute(sequelize, moneyUpdate(''), moneyBind(number, values), tx);
}

export type AccountMoney = { balance: number; equity: number; peakEquity: number; status?: AccountStatus; nextAccount?: number };

/**
 * A verdict's or a close's money and status with the account's events, to run with the caller's
 * other statements (executeTogether, closing with EVENTS_NOTIFIED): a batch may change the row
 * once, so this UPDATE also moves the account's event counter past its events of the batch
 * (SPEC 17 sequences, outbox.ts), and the events are numbered from it. `events` may name other
 * accounts too (a pass's next phase): theirs are numbered by the events' own statement.
 */
export function accountMoneyWithEvents(number: number, values: AccountMoney, events: readonly NewEvent[]): Statement[] {
  const numbering = sequenceTerm(number, events);
  return [
    { name: SEQUENCED_ACCOUNT, sql: `${moneyUpdate(`, ${numbering.set}`)} RETURNING ${numbering.returning}`, bind: { ...moneyBind(number, values), ...numbering.bind } },
    ...eventsStatements(events, { numberedBy: number }),
  ];
}

/**
 * A verdict on many active accounts without open positions, set-based (the time rules' breaches):
 * each takes `status`, its equity its balance, and one event of `type` with its own data, numbered
 * in its sequence; to run with the caller's other statements (executeTogether, closing with
 * EVENTS_NOTIFIED). The caller holds the rows' locks.
 */
export function accountsStatusWithEvents(status: AccountStatus, type: EventType, datas: ReadonlyMap<number, Record<string, unknown>>): Statement[] {
  return [
    {
      name: 'verdicts',
      sql: `UPDATE accounts SET status = $status, equity = balance, updated_at = now(), ${ONE_EVENT_PER_ROW.set}
             WHERE number = ANY($verdictAccounts::bigint[]) AND status = 'active'
         RETURNING ${ONE_EVENT_PER_ROW.returning}, organization_id, livemode`,
      bind: { status, verdictAccounts: [...datas.keys()] },
    },
    eventsOfAccountsStatement(type, 'verdicts', datas),
  ];
}

function moneyUpdate(alsoSet: string): string {
  return `UPDATE accounts SET balance = $balance, equity = $equity, peak_equity = GREATEST(peak_equity, $peakEquity),
        status = COALESCE($status, status), next_account = COALESCE(CAST($nextAccount AS bigint), next_account), updated_at = now()${alsoSet}
      WHERE number = $number`;
}

function moneyBind(number: number, values: AccountMoney) {
  return { number, balance: values.balance, equity: values.equity, peakEquity: values.peakEquity, status: values.status ?? null, nextAccount: values.nextAccount ?? null };
}

/**
 * Marked equity of many accounts in one statement, bounded by the trading engine's flush
 * interval. Only active accounts: a breach or pass has written its final figures under the lock.
 * And only on the money the mark was made on (`balance`, `attempt`): a mark taken before a payout,
 * reset or close committed, and written after it (a flush already under way), is of the money
 * before and is dropped, not written over the new figures (its peak would otherwise come back
 * through GREATEST). The engine marks the account again from the new row.
 */
export async function writeMarkedEquity(
  sequelize: Sequelize,
  marks: Array<{ number: number; equity: number; peakEquity: number; balance: number; attempt: number }>,
): Promise<void> {
  if (marks.length === 0) return;
  // Arrays travel as five bind parameters: one statement, whatever the number of accounts.
  const sorted = [...marks].sort((a, b) => a.number - b.number);
  await execute(
    sequelize,
    `UPDATE accounts a SET equity = v.e, peak_equity = GREATEST(a.peak_equity, v.p)
       FROM unnest($numbers::bigint[], $equities::numeric[], $peaks::numeric[], $balances::numeric[], $attempts::int[]) AS v(n, e, p, b, t)
      WHERE a.number = v.n AND a.status = 'active' AND a.balance = v.b AND a.attempt = v.t AND (a.equity <> v.e OR a.peak_equity < v.p)`,
    {
      numbers: sorted.map((m) => m.number),
      equities: sorted.map((m) => m.equity),
      peaks: sorted.map((m) => m.peakEquity),
      balances: sorted.map((m) => m.balance),
      attempts: sorted.map((m) => m.attempt),
    },
  );
}
