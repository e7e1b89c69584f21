import { AppError, toItemError } from '@propdesk/kit';
import type { accountsv1 } from '@propdesk/proto';
import type { AccountsDeps } from '../deps';
import type { AccountSummary } from '../domain/account';
import { listAccountPagesAsJson, listAccounts, type JsonPage, type ListAccountsInput } from '../use-cases/list-accounts';
import { statusFromProto, toProtoAccount } from './mappers';

/** Requests per BatchListAccounts call, and per StreamListAccounts message. */
export const MAX_BATCH = 100;

export function listInput(req: accountsv1.ListAccountsRequest): ListAccountsInput {
  return {
    organizationId: req.organizationId,
    mode: req.mode,
    pageSize: req.pageSize,
    pageToken: req.pageToken,
    filter: { status: statusFromProto(req.status), assigned: req.assigned, traderId: req.traderId },
  };
}

export function pageResponse(page: { accounts: AccountSummary[]; nextPageToken: string }): accountsv1.ListAccountsResponse {
  return { accounts: page.accounts.map(toProtoAccount), nextPageToken: page.nextPageToken, accountsJson: Buffer.alloc(0) };
}

export function jsonPageResponse(page: JsonPage): accountsv1.ListAccountsResponse {
  return { accounts: [], nextPageToken: page.nextPageToken, accountsJson: Buffer.from(page.json) };
}

/**
 * Several ListAccounts answered at once, one result per request and in order (BatchListAccounts,
 * and each message of StreamListAccounts): one request's error is its result, not the batch's.
 * `requestId` names the batch in the logs when a request has no id of its own.
 */
export async function answerListBatch(
  deps: AccountsDeps,
  requests: accountsv1.ListAccountsRequest[],
  requestIds: string[],
  requestId: string,
): Promise<accountsv1.BatchListAccountsResult[]> {
  if (requests.length > MAX_BATCH) throw new AppError('invalid_request', `at most ${MAX_BATCH} requests per batch`, 'requests');
  const results: accountsv1.BatchListAccountsResult[] = new Array(requests.length);
  const failed = (index: number, err: unknown) => {
    if (!(err instanceof AppError)) {
      deps.logger.error({ err, requestId: requestIds[index] ?? requestId, method: 'BatchListAccounts' }, 'unhandled error in a batched request');
    }
    results[index] = { error: toItemError(err) };
  };
  const plainPage = async (index: number, input: ListAccountsInput) => {
    try {
      results[index] = { response: pageResponse(await listAccounts(deps, input)) };
    } catch (err) {
      failed(index, err);
    }
  };
  // json_view requests share statements; the others (the gateway asks for JSON) run one by one.
  const json: Array<{ index: number; input: ListAccountsInput }> = [];
  const others: Array<Promise<void>> = [];
  requests.forEach((r, index) => {
    try {
      const input = listInput(r);
      if (r.jsonView) json.push({ index, input });
      else others.push(plainPage(index, input));
    } catch (err) {
      failed(index, err);
    }
  });
  const pages = listAccountPagesAsJson(deps, json.map((j) => j.input)).then((outcomes) =>
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) results[json[i].index] = { response: jsonPageResponse(outcome.page) };
      else failed(json[i].index, outcome.error);
    }),
  );
  await Promise.all([pages, ...others]);
  return results;
}
