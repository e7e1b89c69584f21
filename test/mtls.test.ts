/**
 * Issue 12, item 6: optional mTLS between the gateway, the panel and the services (GRPC_TLS_CA,
 * GRPC_TLS_CERT, GRPC_TLS_KEY), with a CA made here. With it on, the whole API works (gateway and
 * panel reach every service over mTLS), and a gRPC client without a valid certificate is refused:
 * plaintext, TLS without a client certificate, and a certificate from another CA.
 */
import fs from 'node:fs';
import { credentials, Metadata } from '@grpc/grpc-js';
import { authv1 } from '@propdesk/proto';
import { AppError, createHealthChecker, createServiceClient, loadGrpcTls, type GrpcTls } from '@propdesk/kit';
import { start as startAuth } from '../services/auth/src/main';
import { request } from './support/http';
import { startStack, type Stack } from './support/stack';
import { makeTestPki, type TestPki } from '@propdesk/kit/testing';

jest.setTimeout(120_000);

let pki: TestPki;
let rogue: TestPki;
let stack: Stack;

beforeAll(async () => {
  pki = makeTestPki();
  rogue = makeTestPki('rogue');
  stack = await startStack({ env: { GRPC_TLS_CA: pki.caFile, GRPC_TLS_CERT: pki.certFile, GRPC_TLS_KEY: pki.keyFile } });
});

afterAll(async () => {
  await stack?.stop();
  pki?.remove();
  rogue?.remove();
});

/** GetOrganization against the auth service as one kind of client: its answer, or the error code. */
async function asClient(tls: GrpcTls | undefined, organizationId: string): Promise<string> {
  const client = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, stack.services.auth.address, 3000, tls);
  try {
    const res = await client.call.getOrganization({ organizationId });
    return `ok ${res.organization?.id}`;
  } catch (err) {
    return err instanceof AppError ? err.code : String(err);
  } finally {
    client.close();
  }
}

test('with mTLS on, the API works end to end through the gateway and the panel', async () => {
  const org = await stack.createOrg();
  const key = await stack.createKey(org.id);
  const accounts = await request(stack.url, 'POST', '/v1/accounts', { token: key.token, body: { count: 2 } });
  expect(accounts.status).toBe(201);
  expect((await request(stack.url, 'GET', '/v1/accounts', { token: key.token })).status).toBe(200);
  expect((await request(stack.url, 'GET', '/v1/webhooks', { token: key.token })).status).toBe(200);
  expect((await request(stack.url, 'GET', '/healthz')).status).toBe(200);
  const user = await stack.createUser(org.id);
  const cookie = await stack.panelLogin(user.email, user.password);
  expect((await request(stack.url, 'GET', '/panel/api/accounts', { headers: { cookie } })).status).toBe(200);
});

test('a client without a valid certificate is refused; one with the CA-signed certificate is served', async () => {
  const org = await stack.createOrg();
  const valid = loadGrpcTls({ GRPC_TLS_CA: pki.caFile, GRPC_TLS_CERT: pki.certFile, GRPC_TLS_KEY: pki.keyFile })!;
  const otherCa = loadGrpcTls({ GRPC_TLS_CA: pki.caFile, GRPC_TLS_CERT: rogue.certFile, GRPC_TLS_KEY: rogue.keyFile })!;
  expect(await asClient(valid, org.id)).toBe(`ok ${org.id}`);
  expect(await asClient(undefined, org.id)).toBe('unavailable');
  expect(await asClient(otherCa, org.id)).toBe('unavailable');
  // TLS that trusts the CA but presents no certificate of its own.
  const noCert = new authv1.AuthServiceClient(stack.services.auth.address, credentials.createSsl(fs.readFileSync(pki.caFile)));
  const refused = await new Promise<string>((resolve) =>
    noCert.getOrganization({ organizationId: org.id }, new Metadata(), { deadline: Date.now() + 3000 }, (err) => resolve(err ? `refused (${err.code})` : 'served')),
  );
  noCert.close();
  expect(refused).toMatch(/^refused/);
});

test('half the mTLS settings is a configuration error naming what is missing', async () => {
  await expect(startAuth({ ...stack.env, AUTH_GRPC_PORT: '0', GRPC_TLS_CA: pki.caFile, GRPC_TLS_CERT: undefined, GRPC_TLS_KEY: undefined })).rejects.toThrow(
    /GRPC_TLS_CERT, GRPC_TLS_KEY: must be set too/,
  );
});

test('GRPC_TLS_HEALTH_PORT: plaintext health for probes, and nothing else, beside the mTLS port', async () => {
  const auth = await startAuth({ ...stack.env, AUTH_GRPC_PORT: '0', GRPC_TLS_HEALTH_PORT: '19110' });
  try {
    const plainHealth = createHealthChecker('127.0.0.1:19110');
    expect(await plainHealth.check(3000)).toBe(true);
    plainHealth.close();
    // The same plaintext port does not carry the service itself.
    const plain = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, '127.0.0.1:19110', 3000);
    await expect(plain.call.getOrganization({ organizationId: '00000000-0000-0000-0000-000000000000' })).rejects.toMatchObject({ code: 'internal_error' });
    plain.close();
  } finally {
    await auth.stop();
  }
});
