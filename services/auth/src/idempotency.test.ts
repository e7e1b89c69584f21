import { randomUUID } from 'node:crypto';
import { authv1 } from '@propdesk/proto';
import { Client } from 'pg';
import { rejection, startAuthForTest } from './test/harness';

const { IDEMPOTENCY_STATE_ACQUIRED: ACQUIRED, IDEMPOTENCY_STATE_IN_PROGRESS: IN_PROGRESS, IDEMPOTENCY_STATE_COMPLETED: COMPLETED } =
  authv1.IdempotencyState;

describe('auth service: idempotency records', () => {
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;
  let pg: Client;
  const apiKeyId: string = randomUUID();

  beforeAll(async () => {
    auth = await startAuthForTest({ MAINTENANCE_INTERVAL_SECONDS: '1' });
    pg = new Client({ connectionString: auth.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg.end();
    await auth.stop();
  });

  const begin = (idempotencyKey: string, requestFingerprint = 'fp-1', keyId: string = apiKeyId) =>
    auth.client.call.beginIdempotentRequest({ apiKeyId: keyId, idempotencyKey, requestFingerprint });

  it('acquires once, reports in progress to the others, then replays the stored answer byte for byte', async () => {
    const concurrent = await Promise.all(Array.from({ length: 6 }, () => begin('k-1')));
    expect(concurrent.filter((r) => r.state === ACQUIRED)).toHaveLength(1);
    expect(concurrent.filter((r) => r.state === IN_PROGRESS)).toHaveLength(5);

    const body = Buffer.from('{"data":[{"number":1000001}]}\n');
    await auth.client.call.completeIdempotentRequest({ apiKeyId, idempotencyKey: 'k-1', responseStatus: 201, responseBody: body, release: false });
    const replay = await begin('k-1');
    expect(replay.state).toBe(COMPLETED);
    expect(replay.responseStatus).toBe(201);
    expect(Buffer.from(replay.responseBody).equals(body)).toBe(true);
  });

  it('refuses the same key with another request fingerprint, in progress or completed', async () => {
    await begin('k-2', 'fp-a');
    expect(await rejection(begin('k-2', 'fp-b'))).toMatchObject({ code: 'idempotency_key_reused' });
    await auth.client.call.completeIdempotentRequest({
      apiKeyId,
      idempotencyKey: 'k-2',
      responseStatus: 200,
      responseBody: Buffer.from('{}'),
      release: false,
    });
    expect(await rejection(begin('k-2', 'fp-b'))).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('scopes keys to the API key', async () => {
    expect((await begin('shared', 'fp-x')).state).toBe(ACQUIRED);
    expect((await begin('shared', 'fp-y', randomUUID())).state).toBe(ACQUIRED);
  });

  it('a released record lets the retry execute again', async () => {
    expect((await begin('k-3')).state).toBe(ACQUIRED);
    await auth.client.call.completeIdempotentRequest({ apiKeyId, idempotencyKey: 'k-3', responseStatus: 0, responseBody: Buffer.alloc(0), release: true });
    expect((await begin('k-3')).state).toBe(ACQUIRED);
  });

  it('takes over a record whose lock expired (a crashed gateway), exactly once among racers', async () => {
    expect((await begin('k-4')).state).toBe(ACQUIRED);
    await pg.query("UPDATE auth.idempotency_records SET locked_until = now() - interval '1 second' WHERE idempotency_key = 'k-4'");
    const racers = await Promise.all(Array.from({ length: 5 }, () => begin('k-4')));
    expect(racers.filter((r) => r.state === ACQUIRED)).toHaveLength(1);
    expect(racers.filter((r) => r.state === IN_PROGRESS)).toHaveLength(4);
  });

  it('treats records older than 24 hours as absent', async () => {
    await begin('k-5', 'old');
    await auth.client.call.completeIdempotentRequest({
      apiKeyId,
      idempotencyKey: 'k-5',
      responseStatus: 201,
      responseBody: Buffer.from('old'),
      release: false,
    });
    await pg.query("UPDATE auth.idempotency_records SET created_at = now() - interval '25 hours' WHERE idempotency_key = 'k-5'");
    expect((await begin('k-5', 'new')).state).toBe(ACQUIRED);
  });

  it('purges records older than 24 hours in the background', async () => {
    await begin('k-6', 'old');
    await pg.query("UPDATE auth.idempotency_records SET created_at = now() - interval '25 hours' WHERE idempotency_key = 'k-6'");
    let left = 1;
    for (let i = 0; i < 40 && left > 0; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      left = (await pg.query("SELECT 1 FROM auth.idempotency_records WHERE idempotency_key = 'k-6'")).rowCount ?? 0;
    }
    expect(left).toBe(0);
  });

  it('validates its inputs', async () => {
    expect(await rejection(begin(''))).toMatchObject({ code: 'invalid_request', param: 'idempotency_key' });
    expect(await rejection(begin('x'.repeat(256)))).toMatchObject({ code: 'invalid_request', param: 'idempotency_key' });
    expect((await begin('y'.repeat(255))).state).toBe(ACQUIRED);
    expect(await rejection(begin('k', 'fp', 'not-a-uuid'))).toMatchObject({ code: 'invalid_request', param: 'api_key_id' });
    expect(await rejection(begin('k', ''))).toMatchObject({ code: 'invalid_request', param: 'request_fingerprint' });
    expect(
      await rejection(
        auth.client.call.completeIdempotentRequest({ apiKeyId, idempotencyKey: 'never-begun', responseStatus: 200, responseBody: Buffer.alloc(0), release: false }),
      ),
    ).toMatchObject({ code: 'not_found' });
  });
});
