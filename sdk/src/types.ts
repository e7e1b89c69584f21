import type { components, operations, webhooks } from './__generated__/openapi';
import type { OPERATIONS, OperationId } from './__generated__/operations';
import type { Page, Paginator } from './paginate';
import type { RequestOptions } from './transport';

/**
 * The methods' types, read off the generated OpenAPI types: for each operation its path
 * parameters (the leading arguments, in the path's order), its query and body fields (one object),
 * and its answer. Nothing here is written by hand per operation.
 */

type Op<K extends OperationId> = operations[K];
type Spec<K extends OperationId> = (typeof OPERATIONS)[K];
type NeverToEmpty<T> = [T] extends [never] ? {} : T;
type EmptyObject = Record<never, never>;

type PathFields<K extends OperationId> = NonNullable<Op<K>['parameters']['path']>;
type PathValues<Names extends readonly string[], Fields> = Names extends readonly [infer Name, ...infer Rest extends readonly string[]]
  ? [Name extends keyof Fields ? Fields[Name] : never, ...PathValues<Rest, Fields>]
  : [];
/** The path parameters' values, in the order of the path template. */
export type PathArgs<K extends OperationId> = PathValues<Spec<K>['pathParams'], PathFields<K>>;

type QueryFields<K extends OperationId> = NeverToEmpty<NonNullable<Op<K>['parameters']['query']>>;
type BodyFields<K extends OperationId> = NonNullable<Op<K>['requestBody']> extends { content: { 'application/json': infer B } } ? B : EmptyObject;

/** The object a method takes after its path parameters: its query fields and its body's fields. */
export type Params<K extends OperationId> = QueryFields<K> & BodyFields<K>;

type ParamsArgs<K extends OperationId> = Spec<K>['body'] extends 'required'
  ? EmptyObject extends BodyFields<K>
    ? [params?: Params<K>]
    : [params: Params<K>]
  : [params?: Params<K>];

type SuccessBody<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
/** What a method resolves to: the operation's 200, 201 or 202 body. */
export type Success<K extends OperationId> = {
  [S in keyof Op<K>['responses']]: S extends 200 | 201 | 202 ? SuccessBody<Op<K>['responses'][S]> : never;
}[keyof Op<K>['responses']];

type ItemOf<P> = P extends { data: Array<infer I> } ? I : never;

export type MethodArgs<K extends OperationId> = [...PathArgs<K>, ...ParamsArgs<K>, options?: RequestOptions];
export type MethodResult<K extends OperationId> = Spec<K>['list'] extends true
  ? Paginator<ItemOf<Success<K>>, Success<K> & Page<ItemOf<Success<K>>>>
  : Promise<Success<K>>;

/** One method per /v1 operation, named by its operationId. */
export type OperationMethods = { [K in OperationId]: (...args: MethodArgs<K>) => MethodResult<K> };

/** The API's schemas by name: `Schemas['Account']`, `Schemas['Position']`, ... */
export type Schemas = components['schemas'];
export type Account = Schemas['Account'];
export type Trader = Schemas['Trader'];
export type Event = Schemas['Event'];

/** Every event type a webhook delivers (and the feed carries). */
export type WebhookEventType = keyof webhooks;
type DeliveryOf<T extends WebhookEventType> = NonNullable<webhooks[T]['post']>;
/** The delivery of one event type: the envelope with that type's data. */
export type WebhookEventOf<T extends WebhookEventType> = DeliveryOf<T> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** A verified delivery: a union over every event type, narrowed by `type`. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];
