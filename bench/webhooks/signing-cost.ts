import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createSecretBox } from '@propdesk/kit';
import { ROOT } from '../support/stack';

/**
 * What the dispatcher does per attempt to sign it, timed in this process: open the sealed
 * secrets and build every signature header, with one secret and with two (a rotation in
 * progress). The webhooks service's signing module is loaded from its build (`npm run bench`
 * builds first); the bench workspace does not reference the service, so its signature is restated.
 */
interface SigningModule {
  newEndpointSecret(): string;
  signatureHeaders(input: { eventId: string; timestamp: number; body: string; secrets: readonly string[] }): Record<string, string>;
}

export interface SigningCost {
  oneSecretUs: number;
  twoSecretsUs: number;
}

export function measureSigningCost(iterations = 20_000): SigningCost {
  const signing = require(path.join(ROOT, 'services/webhooks/dist/domain/signature.js')) as SigningModule;
  const box = createSecretBox(randomBytes(32).toString('hex'));
  const sealed = [box.seal(signing.newEndpointSecret()), box.seal(signing.newEndpointSecret())];
  const body = JSON.stringify({
    id: 'evt_0123456789abcdef',
    type: 'account.created',
    created_at: new Date().toISOString(),
    organization_id: '6c1f7c8a-1b2c-4d5e-8f90-123456789abc',
    data: { account: 1000001, trader_id: null, program: 'standard', initial_balance: '100000.00' },
  });
  const time = (count: number) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) {
      const secrets = sealed.slice(0, count).map((s) => box.open(s));
      signing.signatureHeaders({ eventId: 'evt_0123456789abcdef', timestamp: 1_800_000_000 + i, body, secrets });
    }
    return Number(process.hrtime.bigint() - started) / 1000 / iterations;
  };
  time(1);
  time(2);
  // Alternated and repeated; the lowest of each is the least disturbed by the rest of the machine.
  const one: number[] = [];
  const two: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    one.push(time(1));
    two.push(time(2));
  }
  return { oneSecretUs: Math.min(...one), twoSecretsUs: Math.min(...two) };
}
