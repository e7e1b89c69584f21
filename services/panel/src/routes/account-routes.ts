import { Router } from 'express';
import { ACCOUNT_STATUSES, AppError, MAX_INITIAL_BALANCE, MONEY_STEP, accountStatusValue, exactNumberSchema, textSchema, toRestAccount, z, type AccountStatusName } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import type { PanelClients } from '../clients';
import { requireRole, requireSession, sessionOf } from '../http/session';
import { pageParams, parseBody, queryString } from '../validation';

const createAccountsBody = z.object({
  count: z.number().int().min(1).max(100),
  program: textSchema({ max: 64 }).optional(),
  initial_balance: exactNumberSchema({ unit: 'USD', step: MONEY_STEP, max: MAX_INITIAL_BALANCE }).optional(),
});

const isAccountStatus = (name: string): name is AccountStatusName => (ACCOUNT_STATUSES as readonly string[]).includes(name);

export function accountRoutes(clients: PanelClients): Router {
  const router = Router();
  const session = requireSession(clients);

  router.get('/panel/api/accounts', session, async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const page = pageParams(req);
    const statusName = queryString(req, 'status');
    if (statusName !== undefined && !isAccountStatus(statusName)) {
      throw new AppError('invalid_request', `status must be one of ${ACCOUNT_STATUSES.join(', ')}`, 'status');
    }
    const result = await clients.accounts.listAccounts({
      organizationId: organization_id,
      ...page,
      status: statusName === undefined ? accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED : accountStatusValue(statusName),
      jsonView: false,
    });
    res.json({ data: result.accounts.map(toRestAccount), next_cursor: result.nextPageToken || null });
  });

  // Spends the organization's credits, so it is limited to the roles that manage the organization.
  router.post('/panel/api/accounts', session, requireRole('owner', 'admin'), async (req, res) => {
    const { organization_id } = sessionOf(req).user;
    const body = parseBody(createAccountsBody, req);
    const result = await clients.accounts.createAccounts({
      organizationId: organization_id,
      count: body.count,
      program: body.program ?? '',
      initialBalance: body.initial_balance ?? 0,
    });
    res.status(201).json({ data: result.accounts.map(toRestAccount) });
  });

  return router;
}
