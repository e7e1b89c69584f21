import { Router, type Request } from 'express';
import {
  ACCOUNT_STATUSES,
  AppError,
  MAX_INITIAL_BALANCE,
  MONEY_STEP,
  accountStatusValue,
  emailSchema,
  exactNumberSchema,
  textSchema,
  toRestAccount,
  toRestCredentials,
  toRestTrader,
  z,
  type AccountStatusName,
  type RestTrader,
  type ScopeFields,
} from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import type { PanelClients } from '../clients';
import { managers } from '../http/roles';
import { requireSession, sessionOf } from '../http/session';
import { tenantOf } from '../http/tenant';
import { accountNumberParam, pageParams, parseBody, queryString } from '../validation';

const createAccountsBody = z.object({
  count: z.number().int().min(1).max(100),
  program: textSchema({ max: 64 }).optional(),
  initial_balance: exactNumberSchema({ unit: 'USD', step: MONEY_STEP, max: MAX_INITIAL_BALANCE }).optional(),
});

// Taken exactly as sent, as over REST (the accounts service applies the same rules).
const assignBody = z.object({
  name: textSchema({ max: 200 }),
  email: emailSchema(),
});

const isAccountStatus = (name: string): name is AccountStatusName => (ACCOUNT_STATUSES as readonly string[]).includes(name);


/** The traders of a page by id, so the table shows who holds each account without a call per row. */
async function tradersOf(clients: PanelClients, scope: ScopeFields, accounts: accountsv1.Account[]): Promise<Record<string, RestTrader>> {
  const ids = [...new Set(accounts.map((a) => a.traderId).filter((id): id is string => !!id))];
  if (ids.length === 0) return {};
  const { traders } = await clients.accounts.findTraders({ ...scope, ids, emails: [] });
  return Object.fromEntries(traders.map((t) => [t.id, toRestTrader(t)]));
}

async function notFoundAsEmpty<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') return undefined;
    throw err;
  }
}

/** Accounts (list, search, creation) and one account (identity, trader, archive, credentials). */
export function accountRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);

  // A page of accounts in their REST shape, and beside them the traders they name. `q` finds an
  // account by its number or the accounts of a trader by email.
  router.get('/panel/api/accounts', session, async (req, res) => {
    const scope = tenantOf(req);
    const page = pageParams(req);
    const statusName = queryString(req, 'status') || undefined;
    if (statusName !== undefined && !isAccountStatus(statusName)) {
      throw new AppError('invalid_request', `status must be one of ${ACCOUNT_STATUSES.join(', ')}`, 'status');
    }
    const q = (queryString(req, 'q') ?? '').trim();
    let accounts: accountsv1.Account[];
    let nextPageToken = '';
    const status = statusName === undefined ? accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED : accountStatusValue(statusName);
    if (/^\d{1,16}$/.test(q)) {
      const found = await notFoundAsEmpty(clients.accounts.getAccount({ ...scope, number: q }));
      accounts = found?.account && (statusName === undefined || found.account.status === status) ? [found.account] : [];
    } else if (q.includes('@') && q.length <= 320) {
      // A trader's accounts, paged like the whole list; an unknown email simply has none.
      const { traders } = await clients.accounts.findTraders({ ...scope, ids: [], emails: [q] });
      const trader = traders[0];
      if (trader) {
        const result = await clients.accounts.listAccounts({ ...scope, ...page, status, traderId: trader.id, jsonView: false });
        accounts = result.accounts;
        nextPageToken = result.nextPageToken;
      } else {
        accounts = [];
      }
    } else if (q !== '') {
      throw new AppError('invalid_request', 'search by an account number or a trader email', 'q');
    } else {
      const result = await clients.accounts.listAccounts({ ...scope, ...page, status, jsonView: false });
      accounts = result.accounts;
      nextPageToken = result.nextPageToken;
    }
    res.json({ data: accounts.map(toRestAccount), next_cursor: nextPageToken || null, traders: await tradersOf(clients, scope, accounts) });
  });

  // Spends the organization's credits, so it is limited to the roles that manage the organization.
  router.post('/panel/api/accounts', session, managers, async (req, res) => {
    const body = parseBody(createAccountsBody, req);
    const result = await clients.accounts.createAccounts({
      ...tenantOf(req),
      count: body.count,
      program: body.program ?? '',
      initialBalance: body.initial_balance ?? 0,
    });
    res.status(201).json({ data: result.accounts.map(toRestAccount) });
  });

  router.get('/panel/api/accounts/:number', session, async (req, res) => {
    const scope = tenantOf(req);
    const { account } = await clients.accounts.getAccount({ ...scope, number: accountNumberParam(req) });
    if (!account) throw new AppError('internal_error', 'the accounts service returned no account');
    const trader = account.traderId ? toRestTrader((await clients.accounts.getTrader({ ...scope, traderId: account.traderId })).trader) : null;
    res.json({ account: toRestAccount(account), trader });
  });

  router.put('/panel/api/accounts/:number/trader', session, managers, async (req, res) => {
    const body = parseBody(assignBody, req);
    const result = await clients.accounts.assignTrader({ ...tenantOf(req), number: accountNumberParam(req), name: body.name, email: body.email });
    if (!result.account) throw new AppError('internal_error', 'the accounts service returned no account');
    res.json({ account: toRestAccount(result.account), trader: toRestTrader(result.trader) });
  });

  router.delete('/panel/api/accounts/:number/trader', session, managers, async (req, res) => {
    const result = await clients.accounts.unassignTrader({ ...tenantOf(req), number: accountNumberParam(req) });
    if (!result.account) throw new AppError('internal_error', 'the accounts service returned no account');
    res.json({ account: toRestAccount(result.account), trader: null });
  });

  router.post('/panel/api/accounts/:number/archive', session, managers, async (req, res) => {
    const result = await clients.accounts.archiveAccount({ ...tenantOf(req), number: accountNumberParam(req) });
    if (!result.account) throw new AppError('internal_error', 'the accounts service returned no account');
    res.json(toRestAccount(result.account));
  });

  // Executor credentials are shown on request, and only to the roles that manage accounts.
  router.get('/panel/api/accounts/:number/credentials', session, managers, async (req, res) => {
    const result = await clients.accounts.getCredentials({ ...tenantOf(req), number: accountNumberParam(req) });
    res.json(toRestCredentials(result.credentials));
  });

  return router;
}
