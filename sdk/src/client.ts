import { OPERATIONS, type OperationId } from './__generated__/operations';
import { Paginator, type Page } from './paginate';
import { Transport, type ClientOptions, type RequestOptions } from './transport';
import type { OperationMethods } from './types';
import { webhooks } from './webhooks';

/**
 * The PropDesk API: `const pd = new PropDesk({ apiKey, baseUrl })`, then one method per /v1
 * operation, named by its operationId and typed from the OpenAPI document — `pd.listAccounts()`,
 * `pd.claimAccount({ name, email })`, `pd.getAccount(1000001)`, `pd.closePosition(1000001, id)`.
 * Path parameters come first, in the path's order; then one object of the query's and the body's
 * fields; then per-call options (RequestOptions). List methods return a Paginator (an async
 * iterable over every item of every page); the others a promise of the answer's body. Failures are
 * PropDeskErrors. `pd.webhooks.verify(rawBody, headers, secret)` checks a delivery.
 */
export interface PropDesk extends OperationMethods {}

export class PropDesk {
  /** Webhook verification (also exported on its own as `webhooks`). */
  readonly webhooks = webhooks;
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
    for (const id of Object.keys(OPERATIONS) as OperationId[]) {
      Object.defineProperty(this, id, { value: (...args: unknown[]) => this.#invoke(id, args), enumerable: false, writable: false });
    }
  }

  /** Whether the API key is a live one (pfx_live_) rather than a test-mode one (pfx_test_). */
  get livemode(): boolean {
    return this.#transport.livemode;
  }

  #invoke(operationId: OperationId, args: unknown[]): Promise<unknown> | Paginator<unknown> {
    const spec = OPERATIONS[operationId];
    const count = spec.pathParams.length;
    const pathValues = args.slice(0, count);
    const params = (args[count] ?? undefined) as Record<string, unknown> | undefined;
    const options = (args[count + 1] ?? undefined) as RequestOptions | undefined;
    if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
      throw new TypeError(`PropDesk.${operationId}: after ${count === 0 ? 'no path parameters' : spec.pathParams.join(', ')}, the parameters are one object`);
    }
    if (!spec.list) return this.#transport.request({ operationId, spec, pathValues, params, options });
    const start = typeof params?.cursor === 'string' ? params.cursor : undefined;
    return new Paginator<unknown, Page<unknown>>(
      (cursor) => this.#transport.request({ operationId, spec, pathValues, params: { ...params, cursor }, options }) as Promise<Page<unknown>>,
      start,
    );
  }
}
