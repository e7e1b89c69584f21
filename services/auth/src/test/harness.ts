import { createLogger, createServiceClient, type Logger, type PromiseClient } from '@propdesk/kit';
import { createTestDatabase, type TestDatabase } from '@propdesk/kit/testing';
import { authv1 } from '@propdesk/proto';
import { start, type StartedAuthService } from '../main';


export interface AuthClient {
  raw: authv1.AuthServiceClient;
  call: PromiseClient<authv1.AuthServiceClient>;
  close(): void;
}

export const TEST_ENV = {
  CURSOR_SECRET: 'test-cursor-secret-0123456789',
  // Suites run in parallel against one PostgreSQL: a small pool keeps them under its max_connections.
  DATABASE_POOL_MAX: '6',
  AUTH_GRPC_PORT: '0',
  GRPC_HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
};

/** A real auth service on port 0 against a fresh database, and a real gRPC client to it. */
export async function startAuthForTest(env: Record<string, string> = {}, db?: TestDatabase, logger?: Logger) {
  const database = db ?? (await createTestDatabase('pd_auth'));
  const service: StartedAuthService = await start(
    { ...TEST_ENV, ...env, DATABASE_URL: database.url },
    { logger: logger ?? createLogger('auth-test', { level: 'silent' }) },
  );
  const kitClient = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, service.address, 10_000);
  const client: AuthClient = { raw: kitClient.raw, call: kitClient.call as unknown as AuthClient['call'], close: () => kitClient.close() };
  return {
    db: database,
    service,
    client,
    async stop(dropDatabase = true) {
      client.close();
      await service.stop();
      if (dropDatabase) await database.drop();
    },
  };
}

export async function createOrg(client: AuthClient, credits = '0', planStatus = authv1.PlanStatus.PLAN_STATUS_PAID): Promise<authv1.Organization> {
  const { organization } = await client.call.createOrganization({ name: 'Acme Prop', planStatus, credits });
  if (!organization) throw new Error('no organization returned');
  return organization;
}

/** Resolves with the AppError a call rejected with (fails the test if it resolved). */
export async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string; param?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { code: string; message: string; param?: string };
  }
  throw new Error('expected the call to fail');
}
