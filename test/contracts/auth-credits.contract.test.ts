/**
 * The accounts service's suites stand a double in for the auth service (services/accounts/src/
 * test/auth-double.ts). What they prove holds only as far as the double answers as auth does:
 * the same cases, over real gRPC, against the real auth service and against the double.
 * The cases are what accounts relies on: reserving, confirming and cancelling credits
 * (spend-credits.ts, recover-provisioning.ts) and reading an organization.
 */
import { randomUUID } from 'node:crypto';
import { createServiceClient, type ServiceClient } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import { startAuthDouble } from '../../services/accounts/src/test/auth-double';
import { createOrg, startAuthForTest } from '../../services/auth/src/test/harness';

interface AuthUnderTest {
  address: string;
  /** A paid organization with these credits and this low-credits threshold; its id. */
  organization(credits: number, lowThreshold: number): Promise<string>;
  stop(): Promise<void>;
}

async function realAuth(): Promise<AuthUnderTest> {
  const auth = await startAuthForTest();
  return {
    address: auth.service.address,
    async organization(credits, lowThreshold) {
      const org = await createOrg(auth.client, String(credits));
      await auth.client.call.setCreditsLowThreshold({ organizationId: org.id, threshold: String(lowThreshold) });
      return org.id;
    },
    stop: () => auth.stop(),
  };
}

async function authDouble(): Promise<AuthUnderTest> {
  const double = await startAuthDouble();
  return {
    address: double.address,
    async organization(credits, lowThreshold) {
      const id = randomUUID();
      double.setCredits(id, credits, lowThreshold);
      return id;
    },
    stop: () => double.stop(),
  };
}

describe.each([
  ['the auth service', realAuth],
  ['the auth double of the accounts suites', authDouble],
])('credits as %s answers', (_name, startAuth) => {
  let auth: AuthUnderTest;
  let client: ServiceClient<authv1.AuthServiceClient>;

  beforeAll(async () => {
    auth = await startAuth();
    client = createServiceClient(authv1.AuthServiceClient, authv1.AuthServiceService, auth.address, 10_000);
  });
  afterAll(async () => {
    client?.close();
    await auth?.stop();
  });

  const reserve = (organizationId: string, count: number, reservationId: string = randomUUID()) =>
    client.call.reserveCredits({ organizationId, count: String(count), reservationId });
  const creditsOf = async (organizationId: string) => (await client.call.getOrganization({ organizationId })).organization?.credits;

  it('a reservation debits its count and answers the credits left and the low-credits threshold', async () => {
    const org = await auth.organization(10, 2);
    expect(await reserve(org, 3)).toEqual({ remaining: '7', creditsLowThreshold: '2' });
    expect(await creditsOf(org)).toBe('7');
  });

  it('a repeated reservation debits once and answers what the first one answered', async () => {
    const org = await auth.organization(10, 0);
    const id = randomUUID();
    expect((await reserve(org, 3, id)).remaining).toBe('7');
    expect((await reserve(org, 2)).remaining).toBe('5');
    expect((await reserve(org, 3, id)).remaining).toBe('7');
    expect(await creditsOf(org)).toBe('5');
  });

  it('a reservation id used again for another count or organization is a conflict', async () => {
    const org = await auth.organization(10, 0);
    const other = await auth.organization(10, 0);
    const id = randomUUID();
    await reserve(org, 3, id);
    await expect(reserve(org, 4, id)).rejects.toMatchObject({ code: 'conflict', param: 'reservation_id' });
    await expect(reserve(other, 3, id)).rejects.toMatchObject({ code: 'conflict', param: 'reservation_id' });
    expect([await creditsOf(org), await creditsOf(other)]).toEqual(['7', '10']);
  });

  it('short of credits: insufficient_credits and nothing debited; the same id works once credits suffice', async () => {
    const org = await auth.organization(2, 0);
    const id = randomUUID();
    await expect(reserve(org, 3, id)).rejects.toMatchObject({ code: 'insufficient_credits' });
    expect(await creditsOf(org)).toBe('2');
    expect((await reserve(org, 2, id)).remaining).toBe('0');
  });

  it('refuses an unknown organization (not_found) and a reservation id that is not a uuid (invalid_request)', async () => {
    await expect(reserve(randomUUID(), 1)).rejects.toMatchObject({ code: 'not_found' });
    const org = await auth.organization(5, 0);
    await expect(reserve(org, 1, 'reservation-1')).rejects.toMatchObject({ code: 'invalid_request', param: 'reservation_id' });
    expect(await creditsOf(org)).toBe('5');
  });

  it('a confirmation is idempotent and keeps the credits spent; a confirmed reservation cannot be cancelled', async () => {
    const org = await auth.organization(10, 0);
    const id = randomUUID();
    await reserve(org, 4, id);
    expect(await client.call.confirmCreditReservation({ reservationId: id })).toEqual({});
    expect(await client.call.confirmCreditReservation({ reservationId: id })).toEqual({});
    await expect(client.call.cancelCreditReservation({ reservationId: id })).rejects.toMatchObject({ code: 'conflict' });
    expect(await creditsOf(org)).toBe('6');
  });

  it('a cancellation gives the count back once, answering the credits left; a cancelled reservation cannot be confirmed', async () => {
    const org = await auth.organization(10, 0);
    const id = randomUUID();
    await reserve(org, 4, id);
    expect(await client.call.cancelCreditReservation({ reservationId: id })).toEqual({ remaining: '10' });
    expect(await client.call.cancelCreditReservation({ reservationId: id })).toEqual({ remaining: '10' });
    await expect(client.call.confirmCreditReservation({ reservationId: id })).rejects.toMatchObject({ code: 'conflict' });
    expect(await creditsOf(org)).toBe('10');
  });

  it('a reservation it never made: cancelling answers 0 credits left, confirming is not_found', async () => {
    expect(await client.call.cancelCreditReservation({ reservationId: randomUUID() })).toEqual({ remaining: '0' });
    await expect(client.call.confirmCreditReservation({ reservationId: randomUUID() })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reads an organization: its id, credits and threshold; an unknown one is not_found', async () => {
    const org = await auth.organization(12, 3);
    const { organization } = await client.call.getOrganization({ organizationId: org });
    expect(organization).toMatchObject({ id: org, credits: '12', creditsLowThreshold: '3', planStatus: authv1.PlanStatus.PLAN_STATUS_PAID });
    await expect(client.call.getOrganization({ organizationId: randomUUID() })).rejects.toMatchObject({ code: 'not_found' });
  });
});
