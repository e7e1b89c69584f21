import type { accountsv1 } from '@propdesk/proto';
import type { AccountsDeps } from '../deps';
import { archiveAccount } from '../use-cases/archive-account';
import { assignTrader } from '../use-cases/assign-trader';
import { claimAccount } from '../use-cases/claim-account';
import { createAccounts } from '../use-cases/create-accounts';
import { getCredentials, rotateCredentials } from '../use-cases/credentials';
import { createExecutorSession, getExecutorSession } from '../use-cases/executor-sessions';
import { getAccount } from '../use-cases/get-account';
import { listAccounts, listAccountsAsJson } from '../use-cases/list-accounts';
import { listEvents } from '../use-cases/list-events';
import { createTrader, getTrader, listTraders } from '../use-cases/traders';
import { unassignTrader } from '../use-cases/unassign-trader';
import { statusFromProto, toProtoAccount, toProtoCredentials, toProtoEvent, toProtoTrader } from './mappers';
import { ActiveStreams, createStreamEventsHandler } from './stream-events-handler';
import type { Handlers } from './typed';

/** The accounts, traders, credentials, sessions and events RPCs: proto in, use case, proto out. */
export function createCoreHandlers(
  deps: AccountsDeps,
  streams: ActiveStreams = new ActiveStreams(),
): Handlers<accountsv1.AccountsServiceServer> {
  return {
    async createAccounts(req) {
      const accounts = await createAccounts(deps, {
        organizationId: req.organizationId,
        count: req.count,
        program: req.program,
        initialBalance: req.initialBalance,
      });
      return { accounts: accounts.map(toProtoAccount) };
    },
    async getAccount(req) {
      return { account: toProtoAccount(await getAccount(deps, req)) };
    },
    async listAccounts(req) {
      const input = {
        organizationId: req.organizationId,
        pageSize: req.pageSize,
        pageToken: req.pageToken,
        filter: { status: statusFromProto(req.status), assigned: req.assigned, traderId: req.traderId },
      };
      if (req.jsonView) {
        const page = await listAccountsAsJson(deps, input);
        return { accounts: [], nextPageToken: page.nextPageToken, accountsJson: Buffer.from(page.json) };
      }
      const page = await listAccounts(deps, input);
      return { accounts: page.accounts.map(toProtoAccount), nextPageToken: page.nextPageToken, accountsJson: Buffer.alloc(0) };
    },
    async assignTrader(req) {
      const { account, trader } = await assignTrader(deps, req);
      return { account: toProtoAccount(account), trader: toProtoTrader(trader) };
    },
    async unassignTrader(req) {
      return { account: toProtoAccount(await unassignTrader(deps, req)) };
    },
    async claimAccount(req) {
      const { account, trader } = await claimAccount(deps, req);
      return { account: toProtoAccount(account), trader: toProtoTrader(trader) };
    },
    async archiveAccount(req) {
      return { account: toProtoAccount(await archiveAccount(deps, req)) };
    },
    async createTrader(req) {
      const { trader, created } = await createTrader(deps, req);
      return { trader: toProtoTrader(trader), created };
    },
    async getTrader(req) {
      return { trader: toProtoTrader(await getTrader(deps, req)) };
    },
    async listTraders(req) {
      const page = await listTraders(deps, req);
      return { traders: page.traders.map(toProtoTrader), nextPageToken: page.nextPageToken };
    },
    async getCredentials(req) {
      return { credentials: toProtoCredentials(await getCredentials(deps, req)) };
    },
    async rotateCredentials(req) {
      return { credentials: toProtoCredentials(await rotateCredentials(deps, req)) };
    },
    async createExecutorSession(req) {
      return createExecutorSession(deps, req);
    },
    async getExecutorSession(req) {
      const { account, sessionId } = await getExecutorSession(deps, req);
      return { account: toProtoAccount(account), sessionId };
    },
    async listEvents(req) {
      const page = await listEvents(deps, req);
      return { events: page.events.map(toProtoEvent), nextPageToken: page.nextPageToken };
    },
    streamEvents: createStreamEventsHandler(deps, streams),
  };
}
