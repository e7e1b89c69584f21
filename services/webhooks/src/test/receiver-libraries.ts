import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhook as SvixWebhook } from 'svix';

/**
 * How receivers check a delivery, each done the way an integrator would: the real
 * `standardwebhooks` and `svix` packages (Standard Webhooks headers), Stripe's own verifier
 * (section 8's header read as `t=<timestamp>,<signatures>`), and by hand from the specification's
 * words, with nothing from this service's code. Each answers whether it accepts the delivery.
 */
export interface Delivered {
  body: string;
  headers: IncomingHttpHeaders;
}

export type Verifier = 'standardwebhooks' | 'svix' | 'stripe' | 'standardByHand' | 'serviceByHand';
export const VERIFIERS: readonly Verifier[] = ['standardwebhooks', 'svix', 'stripe', 'standardByHand', 'serviceByHand'];

function header(delivered: Delivered, name: string): string {
  const value = delivered.headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

function accepts(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

function recent(timestamp: string): boolean {
  return /^\d+$/.test(timestamp) && Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
}

const CHECKS: Record<Verifier, (delivered: Delivered, secret: string) => boolean> = {
  standardwebhooks: (d, secret) => accepts(() => new StandardWebhook(secret).verify(d.body, d.headers as Record<string, string>)),
  svix: (d, secret) => accepts(() => new SvixWebhook(secret).verify(d.body, d.headers as Record<string, string>)),
  stripe: (d, secret) =>
    accepts(() => Stripe.webhooks.constructEvent(d.body, `t=${header(d, 'x-service-timestamp')},${header(d, 'x-service-signature')}`, secret)),
  // SPEC 12: v1,<base64 HMAC-SHA256 keyed with the base64-decoded part after whsec_, over id.timestamp.body>, space-separated.
  standardByHand: (d, secret) => {
    const id = header(d, 'webhook-id');
    const timestamp = header(d, 'webhook-timestamp');
    if (!id || !recent(timestamp) || !secret.startsWith('whsec_')) return false;
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${d.body}`).digest();
    return header(d, 'webhook-signature')
      .split(' ')
      .some((entry) => {
        const [version, signature] = entry.split(',');
        const given = Buffer.from(signature ?? '', 'base64');
        return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
      });
  },
  // SPEC 8: v1=<hex HMAC-SHA256 keyed with the whole secret over timestamp.body>, comma-separated during a rotation.
  serviceByHand: (d, secret) => {
    const timestamp = header(d, 'x-service-timestamp');
    if (!recent(timestamp)) return false;
    const expected = createHmac('sha256', secret).update(`${timestamp}.${d.body}`).digest();
    return header(d, 'x-service-signature')
      .split(',')
      .some((entry) => {
        const given = Buffer.from(entry.startsWith('v1=') ? entry.slice(3) : '', 'hex');
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
  },
};

/** Which verifiers accept the delivery under this secret. */
export function verdicts(delivered: Delivered, secret: string): Record<Verifier, boolean> {
  return Object.fromEntries(VERIFIERS.map((v) => [v, CHECKS[v](delivered, secret)])) as Record<Verifier, boolean>;
}

export const ALL_ACCEPT: Record<Verifier, boolean> = Object.fromEntries(VERIFIERS.map((v) => [v, true])) as Record<Verifier, boolean>;
export const NONE_ACCEPT: Record<Verifier, boolean> = Object.fromEntries(VERIFIERS.map((v) => [v, false])) as Record<Verifier, boolean>;
