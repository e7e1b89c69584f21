import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';

/** Who made a change (SPEC 14): an API key, a panel user, or an operator (the CLI, or the system itself). */
export const ACTOR_TYPES = ['api_key', 'user', 'operator'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

export interface Actor {
  type: ActorType;
  /** The key's id, the user's id, or `cli` / `system` for an operator. */
  id: string;
  /** The key's prefix, the user's email, or `cli` / `system`. */
  label: string;
}

/** The admin CLI: an operator at a terminal. */
export const CLI_ACTOR: Actor = { type: 'operator', id: 'cli', label: 'cli' };

/**
 * What a change is attributed to when the call that made it named nobody: an internal gRPC
 * caller, a background job acting on someone's behalf.
 */
export const SYSTEM_ACTOR: Actor = { type: 'operator', id: 'system', label: 'system' };

export interface RequestContext {
  requestId: string;
  /** Who the request acts for; undefined when the caller did not say (see SYSTEM_ACTOR). */
  actor?: Actor;
  /** The client's address as the edge (gateway, panel) saw it; undefined when there was none (the CLI). */
  ip?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const REQUEST_ID_METADATA = 'x-request-id';

/**
 * The actor travels like the request id: the gateway, the panel and the CLI set these on every
 * outgoing call, the kit's gRPC server reads them into the request context. A label that is not
 * printable ASCII (an email with non-ASCII characters) goes as UTF-8 in the binary header instead.
 */
export const ACTOR_TYPE_METADATA = 'x-actor-type';
export const ACTOR_ID_METADATA = 'x-actor-id';
export const ACTOR_LABEL_METADATA = 'x-actor-label';
export const ACTOR_LABEL_BIN_METADATA = 'x-actor-label-bin';
export const CLIENT_IP_METADATA = 'x-client-ip';

const MAX_ACTOR_FIELD = 320;
const MAX_IP = 64;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/** The actor of the request being served, if its caller named one. */
export function currentActor(): Actor | undefined {
  return storage.getStore()?.actor;
}

export function newRequestId(): string {
  return randomUUID();
}

function isActorType(value: unknown): value is ActorType {
  return typeof value === 'string' && (ACTOR_TYPES as readonly string[]).includes(value);
}

/** Sets the actor (and client IP) of an outgoing call. */
export function setActorMetadata(metadata: Metadata, actor: Actor | undefined, ip: string | undefined): void {
  if (actor) {
    metadata.set(ACTOR_TYPE_METADATA, actor.type);
    metadata.set(ACTOR_ID_METADATA, actor.id.slice(0, MAX_ACTOR_FIELD));
    const label = actor.label.slice(0, MAX_ACTOR_FIELD);
    if (PRINTABLE_ASCII.test(label)) metadata.set(ACTOR_LABEL_METADATA, label);
    else metadata.set(ACTOR_LABEL_BIN_METADATA, Buffer.from(label, 'utf8'));
  }
  if (ip !== undefined && ip !== '' && PRINTABLE_ASCII.test(ip)) metadata.set(CLIENT_IP_METADATA, ip.slice(0, MAX_IP));
}

function text(metadata: Metadata, key: string, max: number): string | undefined {
  const [value] = metadata.get(key);
  const s = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  return typeof s === 'string' && s !== '' && s.length <= max ? s : undefined;
}

/** The actor an incoming call names; undefined when it names none or names it badly. */
export function actorOf(metadata: Metadata): Actor | undefined {
  const type = text(metadata, ACTOR_TYPE_METADATA, 16);
  const id = text(metadata, ACTOR_ID_METADATA, MAX_ACTOR_FIELD);
  const label = text(metadata, ACTOR_LABEL_BIN_METADATA, MAX_ACTOR_FIELD) ?? text(metadata, ACTOR_LABEL_METADATA, MAX_ACTOR_FIELD);
  if (!isActorType(type) || id === undefined) return undefined;
  return { type, id, label: label ?? id };
}

/** The client IP an incoming call names. */
export function clientIpOf(metadata: Metadata): string | undefined {
  return text(metadata, CLIENT_IP_METADATA, MAX_IP);
}
