import { randomBytes } from 'node:crypto';
import { PropDesk } from '../client';
import type { Event, Schemas } from '../types';
import { DocumentCheck } from './document-check';
import { eventually, expectThat, type Runner } from './runner';
import { checkAcknowledged } from './webhook-acks';

/**
 * SPEC 17's conformance walk, in test mode on a test clock of its own: provisioning, claim,
 * credentials, an order, a breach, a reset, a pass into a funded phase (a two-phase program of
 * its own) and a payout, then the run's events (numbered without gaps, each as its delivery is
 * documented) and, with a webhook URL, the receiver's acknowledgement of each. Every answer is
 * checked against the server's own OpenAPI document as it arrives.
 */
export interface ScenarioOptions {
  baseUrl: string;
  apiKey: string;
  webhookUrl?: string;
  /** How long to wait for asynchronous outcomes (a pass, a clock's advance, deliveries) [60 s]. */
  timeoutMs?: number;
}

type Account = Schemas['Account'];
const SYMBOL = 'EURUSD';
const same = (a: string, b: string) => new Date(a).getTime() === new Date(b).getTime();
const show = (value: unknown) => JSON.stringify(value);

export async function runScenario(runner: Runner, options: ScenarioOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  let check: DocumentCheck | undefined;
  const pd = new PropDesk({
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    onResponse: (answer) => runner.noteProblems((check?.answerProblems(answer) ?? []).map((p) => `${answer.method} ${answer.template} ${answer.status}: ${p}`)),
  });
  const run = randomBytes(4).toString('hex');
  // What the run created, undone in this order: the endpoint first (nothing of the cleanup is
  // delivered), then the clock (its accounts archived), then the program.
  const made: { endpoint?: string; clock?: string; program?: string } = {};
  const undo = async (): Promise<void> => {
    const { endpoint, clock, program } = made;
    made.endpoint = made.clock = made.program = undefined;
    if (endpoint) await pd.deleteWebhook(endpoint);
    if (clock) await pd.deleteTestClock(clock);
    if (program) await pd.archiveProgram(program);
  };

  try {
    const document = await runner.step('document', async () => {
      const doc = await pd.getOpenApiDocument();
      check = new DocumentCheck(doc);
      return { value: check, detail: `GET /v1/openapi.json: OpenAPI ${doc.openapi}, ${Object.keys(doc.paths).length} paths; every answer below is checked against it` };
    });
    // The document's own answer is checked now that it is known.
    runner.noteProblems(document.answerProblems({ method: 'GET', template: '/v1/openapi.json', status: 200, body: await pd.getOpenApiDocument() }));

    const endpoint = options.webhookUrl
      ? await runner.step('webhook endpoint', async () => {
          const created = await pd.createWebhook({ url: options.webhookUrl as string, events: [], description: `propdesk-conformance ${run}` });
          made.endpoint = created.id;
          expectThat(created.livemode === false && created.status === 'enabled', 'an enabled test-mode endpoint', () => show({ livemode: created.livemode, status: created.status }));
          return { value: created, detail: `POST /v1/webhooks 201: ${created.id} receives every event of the run` };
        })
      : undefined;

    const program = await runner.step('program', async () => {
      const created = await pd.createProgram({
        name: `conformance-${run}`,
        description: 'propdesk-conformance: an evaluation phase, then a funded phase',
        initial_balance: 100000,
        phases: [
          { name: 'Evaluation', kind: 'evaluation', profit_target_pct: 5, max_daily_loss_pct: 5, max_total_loss_pct: 10 },
          { name: 'Funded', kind: 'funded', max_daily_loss_pct: 5, max_total_loss_pct: 10, profit_split_pct: 80 },
        ],
      });
      made.program = created.name;
      expectThat(created.version === 1 && created.phases.length === 2 && created.livemode === false, 'version 1 of a two-phase test-mode program', () => show({ version: created.version, phases: created.phases.length, livemode: created.livemode }));
      return { value: created, detail: `POST /v1/programs 201: ${created.name}, evaluation (5 % target) then funded` };
    });

    const clock = await runner.step('test clock', async () => {
      const created = await pd.createTestClock({ name: `propdesk-conformance ${run}` });
      made.clock = created.id;
      expectThat(created.status === 'ready' && created.livemode === false, 'a ready clock', () => show(created));
      const quoted = await pd.publishTestClockQuote(created.id, { symbol: SYMBOL, bid: 1.1, ask: 1.1002 });
      expectThat(same(quoted.time, created.frozen_time), `the quote at the clock's time ${created.frozen_time}`, () => quoted.time);
      return { value: created, detail: `POST /v1/test_clocks 201 ${created.id} at ${created.frozen_time}; its ${SYMBOL} 1.1000/1.1002` };
    });

    const provisioned = await runner.step('provisioning', async () => {
      const { data } = await pd.createAccounts({ count: 1, program: program.name, test_clock: clock.id });
      const account = data[0] as Account;
      expectThat(data.length === 1, 'one account', () => `${data.length}`);
      expectThat(
        account.status === 'active' && account.livemode === false && account.test_clock === clock.id && account.phase.index === 0 && same(account.created_at, clock.frozen_time),
        `an active test account on ${clock.id}, in phase 0, created at the clock's time`,
        () => show({ status: account.status, livemode: account.livemode, test_clock: account.test_clock, phase: account.phase, created_at: account.created_at }),
      );
      return { value: account, detail: `POST /v1/accounts 201: account ${account.number} on the clock` };
    });

    const number = await runner.step('claim', async () => {
      const email = `conformance+${run}@example.com`;
      const claimed = await pd.claimAccount({ name: 'Conformance Trader', email });
      expectThat(claimed.trader.email === email && claimed.account.trader_id === claimed.trader.id, 'the account assigned to the new trader', () => show(claimed));
      if (claimed.account.number === provisioned.number) return { value: provisioned.number, detail: `POST /v1/accounts/claim 200: account ${provisioned.number} to ${claimed.trader.id}` };
      // The test partition held an older unassigned account: it was claimed; ours is assigned by number.
      const assigned = await pd.assignTrader(provisioned.number, { name: 'Conformance Trader', email });
      expectThat(assigned.trader.id === claimed.trader.id, 'the same trader', () => assigned.trader.id);
      return { value: provisioned.number, detail: `POST /v1/accounts/claim 200 (claimed an older account ${claimed.account.number}); PUT .../trader 200 for ${provisioned.number}` };
    });

    await runner.step('credentials', async () => {
      const credentials = await pd.getCredentials(number);
      expectThat(credentials.login === number && credentials.password.length > 0, `login ${number} and a password`, () => show({ login: credentials.login }));
      return { value: undefined, detail: `GET /v1/accounts/${number}/credentials 200: login ${credentials.login} on ${credentials.server}` };
    });

    await runner.step('order', async () => {
      const position = await pd.placeOrder(number, { symbol: SYMBOL, side: 'buy', volume: 1, type: 'market' });
      expectThat(position.status === 'open' && position.open_price === 1.1002, 'an open position at the clock ask 1.1002', () => show({ status: position.status, open_price: position.open_price }));
      expectThat(position.opened_at !== null && same(position.opened_at, clock.frozen_time), `opened at the clock's time ${clock.frozen_time}`, () => String(position.opened_at));
      return { value: position, detail: `POST /v1/accounts/${number}/positions 201: ${position.volume} lot ${position.side} ${position.symbol} at ${position.open_price}` };
    });

    await runner.step('breach', async () => {
      await pd.breachAccount(number, { reason: 'propdesk-conformance: a manual breach' });
      const account = await pd.getAccount(number);
      expectThat(account.status === 'breached', 'status breached', () => account.status);
      const open = await pd.listPositions(number, { status: 'open' }).toArray();
      expectThat(open.length === 0, 'its positions closed', () => `${open.length} open`);
      return { value: undefined, detail: `POST /v1/accounts/${number}/breach 200: breached, positions closed` };
    });

    await runner.step('reset', async () => {
      const account = await pd.resetAccount(number);
      expectThat(account.status === 'active' && account.attempt === 2 && account.balance === account.initial_balance, 'active again, attempt 2, at the initial balance', () =>
        show({ status: account.status, attempt: account.attempt, balance: account.balance }),
      );
      return { value: undefined, detail: `POST /v1/accounts/${number}/reset 200: attempt ${account.attempt}` };
    });

    const next = await runner.step('pass', async () => {
      await pd.placeOrder(number, { symbol: SYMBOL, side: 'buy', volume: 10, type: 'market' });
      await pd.publishTestClockQuote(clock.id, { symbol: SYMBOL, bid: 1.106, ask: 1.1062 });
      const passed = await eventually(
        async () => {
          const account = await pd.getAccount(number);
          return account.status === 'passed' && account.next_account !== null ? account : undefined;
        },
        timeoutMs,
        'status passed with a next account after a 5.8 % profit',
        () => 'still not passed',
      );
      return { value: passed.next_account as number, detail: `10 lots, clock bid 1.1060: passed into account ${passed.next_account}` };
    });

    await runner.step('funded phase', async () => {
      const account = await pd.getAccount(next);
      expectThat(
        account.phase.kind === 'funded' && account.status === 'active' && account.test_clock === clock.id && account.previous_account === number,
        `an active funded account on the clock, after ${number}`,
        () => show({ phase: account.phase, status: account.status, test_clock: account.test_clock, previous_account: account.previous_account }),
      );
      return { value: undefined, detail: `GET /v1/accounts/${next} 200: phase ${account.phase.index} ${account.phase.name} (${account.phase.kind})` };
    });

    await runner.step('payout', async () => {
      const position = await pd.placeOrder(next, { symbol: SYMBOL, side: 'buy', volume: 1, type: 'market' });
      await pd.publishTestClockQuote(clock.id, { symbol: SYMBOL, bid: 1.112, ask: 1.1122 });
      const closed = await pd.closePosition(next, position.id);
      const profit = closed.profit ?? 0;
      expectThat(closed.status === 'closed' && profit > 0, 'a closed position with a profit', () => show({ status: closed.status, profit: closed.profit }));
      const payout = await pd.createPayout(next, {});
      expectThat(Math.abs(payout.amount - profit) < 0.005 && payout.status === 'approved', `an approved payout of the closed profit ${profit}`, () => show({ amount: payout.amount, status: payout.status }));
      return { value: undefined, detail: `POST /v1/accounts/${next}/payouts 201: ${payout.amount} (trader ${payout.trader_share}, firm ${payout.firm_share})` };
    });

    await runner.step('clock advance', async () => {
      const target = new Date(new Date(clock.frozen_time).getTime() + 86_400_000).toISOString();
      const advancing = await pd.advanceTestClock(clock.id, { frozen_time: target });
      expectThat(same(advancing.frozen_time, target) || advancing.status === 'advancing', `advancing to ${target}`, () => show(advancing));
      const ready = await eventually(async () => {
        const now = await pd.getTestClock(clock.id);
        return now.status === 'ready' && same(now.frozen_time, target) ? now : undefined;
      }, timeoutMs, `the clock ready at ${target}`, () => 'still advancing');
      return { value: undefined, detail: `POST /v1/test_clocks/${clock.id}/advance 200: ready at ${ready.frozen_time}` };
    });

    const events = await runner.step('events', async () => {
      const all: Event[] = [];
      for (const account of [number, next]) {
        const feed = await pd.listEvents({ account }).toArray();
        const sequences = feed.map((e) => e.sequence);
        expectThat(sequences.every((s, i) => s === i + 1), `account ${account}'s events numbered 1..${feed.length}`, () => show(sequences));
        all.push(...feed);
      }
      const types = new Set(all.map((e) => e.type));
      for (const type of ['account.created', 'account.assigned', 'position.opened', 'account.breached', 'account.reset', 'position.closed', 'account.passed', 'payout.created'] as const) {
        expectThat(types.has(type), `an event ${type}`, () => [...types].join(', '));
      }
      const ready = await pd.listEvents({ type: 'test_clock.ready' }).toArray();
      const ours = ready.filter((e) => e.data.id === clock.id);
      expectThat(ours.length === 1, `one test_clock.ready of ${clock.id}`, () => `${ours.length}`);
      all.push(...ours);
      for (const event of all) {
        const problems = document.eventProblems(event);
        expectThat(problems.length === 0, `${event.type} ${event.id} as its delivery is documented`, () => problems.join('; '));
      }
      return { value: all, detail: `GET /v1/events: ${all.length} events of the run, each account's numbered without gaps, each as documented` };
    });

    if (endpoint) {
      await runner.step('webhooks acknowledged', async () => {
        const acknowledged = await checkAcknowledged(pd, endpoint.id, events, timeoutMs);
        return { value: undefined, detail: `GET /v1/webhooks/${endpoint.id}/deliveries: your receiver answered 2xx to all ${acknowledged} events` };
      });
    }

    await runner.step('cleanup', async () => {
      await undo();
      return { value: undefined, detail: 'the endpoint deleted, the clock deleted (its accounts archived), the program archived' };
    });
  } finally {
    // After a failure, leave the test partition as it was, quietly.
    await undo().catch(() => undefined);
  }
}
