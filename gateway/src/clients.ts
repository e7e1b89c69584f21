import { status, type ServiceError } from '@grpc/grpc-js';
import { authv1, accountsv1, tradingv1, webhooksv1 } from '@propdesk/proto';
import {
  callMetadata,
  createHealthChecker,
  createServiceClient,
  fromServiceError,
  type CallOpts,
  type ServiceAddresses,
  type ServiceClient,
  startCall,
  withoutStackTraces,
} from '@propdesk/kit';
import { Histogram, type Registry } from 'prom-client';
import { coalesce, type ItemOutcome } from './coalesce';
import { createListStream, outcomesOf } from './list-stream';

export type { ServiceClient };

export interface Clients {
  auth: ServiceClient<authv1.AuthServiceClient>;
  accounts: ServiceClient<accountsv1.AccountsServiceClient>;
  /** TradingService, served by the accounts process (same address). */
  trading: ServiceClient<tradingv1.TradingServiceClient>;
  webhooks: ServiceClient<webhooksv1.WebhooksServiceClient>;
  /**
   * AccountsService.ListAccounts, coalesced: the list requests of one event-loop turn share one
   * BatchListAccounts call (see coalesce.ts).
   */
  listAccounts(request: accountsv1.ListAccountsRequest, opts: CallOpts): Promise<accountsv1.ListAccountsResponse>;
  close(): void;
}

/** How many list requests each call to the accounts service carried (1: a lone request). */
function observeCallSize(registry: Registry): (size: number) => void {
  const sizes = new Histogram({
    name: 'propdesk_gateway_list_accounts_call_size',
    help: 'GET /v1/accounts requests carried per call to the accounts service (coalesced under load)',
    buckets: [1, 2, 4, 8, 16, 32],
    registers: [registry],
  });
  return (size) => sizes.observe(size);
}

/**
 * Requests per BatchListAccounts call (the service takes up to 100). Larger turns go out as
 * several calls, which the service's connection pool runs in parallel; measured at 32 concurrent
 * clients, 8, 16 and 32 were within the bench's noise of each other.
 */
const MAX_LIST_BATCH = 16;

function batchListAccounts(
  accounts: ServiceClient<accountsv1.AccountsServiceClient>,
  defaultDeadlineMs: number,
): (requests: accountsv1.ListAccountsRequest[], requestIds: string[], opts: CallOpts) => Promise<Array<ItemOutcome<accountsv1.ListAccountsResponse>> | undefined> {
  return (requests, requestIds, opts) =>
    new Promise((resolve, reject) => {
      const metadata = callMetadata(opts.requestId);
      const options = { deadline: Date.now() + (opts.deadlineMs ?? defaultDeadlineMs) };
      const start = () =>
        accounts.raw.batchListAccounts({ requests, requestIds }, metadata, options, (err: ServiceError | null, response: accountsv1.BatchListAccountsResponse) => {
          // A replica from before BatchListAccounts: the requests go out one by one instead.
          if (err?.code === status.UNIMPLEMENTED) return resolve(undefined);
          if (err) return reject(withoutStackTraces(() => fromServiceError(err)));
          resolve(outcomesOf(response.results));
        });
      startCall(opts.traceContext, start);
    });
}

/** One client per service per process, created at boot; every call carries the configured deadline. */
export function createClients(addresses: ServiceAddresses, deadlineMs: number, registry?: Registry): Clients {
  const auth = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, addresses.auth, deadlineMs, addresses.tls);
  const accounts = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, addresses.accounts, deadlineMs, addresses.tls);
  const trading = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, addresses.accounts, deadlineMs, addresses.tls);
  const webhooks = createServiceClient(webhooksv1.WebhooksServiceClient, webhooksv1.WebhooksServiceService, addresses.webhooks, deadlineMs, addresses.tls);
  const batchCall = batchListAccounts(accounts, deadlineMs);
  // Over StreamListAccounts while it is open (list-stream.ts); as calls otherwise: one ListAccounts
  // for a lone request, BatchListAccounts for several (one by one against a replica without it).
  const stream = createListStream(accounts);
  const viaStream = (requests: accountsv1.ListAccountsRequest[], requestIds: string[], opts: CallOpts) =>
    stream.send(
      requests,
      requestIds,
      opts.deadlineMs ?? deadlineMs,
      async () => (requests.length > 1 ? await batchCall(requests, requestIds, opts) : undefined) ?? oneByOne(requests, requestIds, opts),
      opts.traceContext,
    );
  const oneByOne = (requests: accountsv1.ListAccountsRequest[], requestIds: string[], opts: CallOpts) =>
    Promise.all(
      requests.map((request, i) =>
        accounts.call.listAccounts(request, { ...opts, requestId: requestIds[i] || opts.requestId }).then(
          (response): ItemOutcome<accountsv1.ListAccountsResponse> => ({ ok: true, response }),
          (error: unknown): ItemOutcome<accountsv1.ListAccountsResponse> => ({ ok: false, error }),
        ),
      ),
    );
  const listAccounts = coalesce({
    single: async (request: accountsv1.ListAccountsRequest, opts: CallOpts) => {
      const [outcome] = await viaStream([request], [opts.requestId ?? ''], opts);
      if (!outcome.ok) throw outcome.error;
      return outcome.response;
    },
    batch: viaStream,
    maxBatch: MAX_LIST_BATCH,
    onSend: registry ? observeCallSize(registry) : undefined,
  });
  return {
    auth,
    accounts,
    trading,
    webhooks,
    listAccounts,
    close() {
      stream.close();
      auth.close();
      accounts.close();
      trading.close();
      webhooks.close();
    },
  };
}

export type ServiceName = 'auth' | 'accounts' | 'webhooks';

export interface HealthCheckers {
  checkAll(deadlineMs: number): Promise<Record<ServiceName, boolean>>;
  close(): void;
}

export function createHealthCheckers(addresses: ServiceAddresses): HealthCheckers {
  const checkers = {
    auth: createHealthChecker(addresses.auth, addresses.tls),
    accounts: createHealthChecker(addresses.accounts, addresses.tls),
    webhooks: createHealthChecker(addresses.webhooks, addresses.tls),
  };
  return {
    async checkAll(deadlineMs) {
      const [auth, accounts, webhooks] = await Promise.all([
        checkers.auth.check(deadlineMs),
        checkers.accounts.check(deadlineMs),
        checkers.webhooks.check(deadlineMs),
      ]);
      return { auth, accounts, webhooks };
    },
    close() {
      for (const checker of Object.values(checkers)) checker.close();
    },
  };
}
