import { AppError } from '@propdesk/kit';
import { integerInRange, modeFlag, optionalString, organizationId, positiveNumber, requiredString } from '../flags';
import type { Command } from './command';

const DEFAULT_PROGRAM = 'standard';

/** Same provisioning path as POST /v1/accounts: the accounts service spends the credits (none in test mode). */
export const accountsCreate: Command = {
  flags: { org: { type: 'string' }, count: { type: 'string' }, balance: { type: 'string' }, program: { type: 'string' }, mode: { type: 'string' } },
  async run(values, clients) {
    const org = organizationId(values);
    const count = integerInRange(requiredString(values, 'count'), 'count', 1, 100);
    const balance = typeof values.balance === 'string' ? positiveNumber(values.balance, 'balance') : 0; // 0 = the program's own
    const program = optionalString(values, 'program') ?? DEFAULT_PROGRAM;
    const res = await clients.accounts().createAccounts({ organizationId: org, mode: modeFlag(values), count, program, initialBalance: balance });
    return { accounts: res.accounts.map((a) => Number(a.number)) };
  },
};

export const quotesPublish: Command = {
  flags: { symbol: { type: 'string' }, bid: { type: 'string' }, ask: { type: 'string' } },
  async run(values, clients) {
    const symbol = requiredString(values, 'symbol').toUpperCase();
    const bid = positiveNumber(requiredString(values, 'bid'), 'bid');
    const ask = positiveNumber(requiredString(values, 'ask'), 'ask');
    if (ask < bid) throw new AppError('invalid_request', '--ask must not be below --bid', 'ask');
    const time = new Date();
    const res = await clients.trading().publishQuote({ quote: { symbol, bid, ask, time } });
    const quote = res.quote ?? { symbol, bid, ask, time };
    return { symbol: quote.symbol, bid: quote.bid, ask: quote.ask, time: (quote.time ?? time).toISOString() };
  },
};
