import { randomUUID } from 'node:crypto';
import { authv1 } from '@propdesk/proto';
import { createOrg, rejection, startAuthForTest } from './test/harness';

describe('auth service: organizations, plans and credits', () => {
  let auth: Awaited<ReturnType<typeof startAuthForTest>>;

  beforeAll(async () => {
    auth = await startAuthForTest();
  });
  afterAll(async () => {
    await auth.stop();
  });

  it('creates a paid organization when no plan status is given, with the credits asked for, its name exactly as given', async () => {
    const { organization } = await auth.client.call.createOrganization({
      name: '  Acme  ',
      planStatus: authv1.PlanStatus.PLAN_STATUS_UNSPECIFIED,
      credits: '25',
    });
    expect(organization).toMatchObject({ name: '  Acme  ', planStatus: authv1.PlanStatus.PLAN_STATUS_PAID, credits: '25', creditsLowThreshold: '0' });
    expect(organization?.createdAt).toBeInstanceOf(Date);
    const fetched = await auth.client.call.getOrganization({ organizationId: organization!.id });
    expect(fetched.organization).toEqual(organization);
  });

  it('refuses bad names and negative or fractional credits, naming the field', async () => {
    expect(await rejection(auth.client.call.createOrganization({ name: '', planStatus: 0, credits: '0' }))).toMatchObject({
      code: 'invalid_request',
      param: 'name',
    });
    expect(await rejection(auth.client.call.createOrganization({ name: 'x'.repeat(201), planStatus: 0, credits: '0' }))).toMatchObject({
      param: 'name',
    });
    expect(await rejection(auth.client.call.createOrganization({ name: 'A', planStatus: 0, credits: '-1' }))).toMatchObject({
      code: 'invalid_request',
      param: 'credits',
    });
  });

  it('answers not_found for unknown and malformed organization ids, never a 500', async () => {
    for (const organizationId of [randomUUID(), 'not-a-uuid', '', "'; drop table organizations; --"]) {
      expect(await rejection(auth.client.call.getOrganization({ organizationId }))).toMatchObject({ code: 'not_found' });
      expect(await rejection(auth.client.call.addCredits({ organizationId, credits: '5' }))).toMatchObject({ code: 'not_found' });
      expect(
        await rejection(auth.client.call.setOrganizationPlan({ organizationId, planStatus: authv1.PlanStatus.PLAN_STATUS_UNPAID })),
      ).toMatchObject({ code: 'not_found' });
    }
  });

  it('changes the plan and adds credits', async () => {
    const org = await createOrg(auth.client, '1');
    const unpaid = await auth.client.call.setOrganizationPlan({ organizationId: org.id, planStatus: authv1.PlanStatus.PLAN_STATUS_UNPAID });
    expect(unpaid.organization?.planStatus).toBe(authv1.PlanStatus.PLAN_STATUS_UNPAID);
    expect(
      await rejection(auth.client.call.setOrganizationPlan({ organizationId: org.id, planStatus: authv1.PlanStatus.PLAN_STATUS_UNSPECIFIED })),
    ).toMatchObject({ code: 'invalid_request', param: 'plan_status' });
    const added = await auth.client.call.addCredits({ organizationId: org.id, credits: '41' });
    expect(added.organization?.credits).toBe('42');
    for (const credits of ['0', '-3']) {
      expect(await rejection(auth.client.call.addCredits({ organizationId: org.id, credits }))).toMatchObject({
        code: 'invalid_request',
        param: 'credits',
      });
    }
  });

  it('keeps the credits.low threshold the customer sets and reports it with reservations', async () => {
    const org = await createOrg(auth.client, '30');
    const set = await auth.client.call.setCreditsLowThreshold({ organizationId: org.id, threshold: '10' });
    expect(set.organization?.creditsLowThreshold).toBe('10');
    const reserved = await auth.client.call.reserveCredits({ organizationId: org.id, count: '25', reservationId: randomUUID() });
    expect(reserved).toEqual({ remaining: '5', creditsLowThreshold: '10' });
    expect(await rejection(auth.client.call.setCreditsLowThreshold({ organizationId: org.id, threshold: '-1' }))).toMatchObject({
      code: 'invalid_request',
      param: 'threshold',
    });
    expect(await rejection(auth.client.call.setCreditsLowThreshold({ organizationId: randomUUID(), threshold: '1' }))).toMatchObject({
      code: 'not_found',
    });
  });

  describe('credit reservations', () => {
    it('never overspends: 20 parallel reservations of 10 with 100 credits, exactly 10 succeed and 0 remain', async () => {
      const org = await createOrg(auth.client, '100');
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => auth.client.call.reserveCredits({ organizationId: org.id, count: '10', reservationId: randomUUID() })),
      );
      const ok = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(ok).toHaveLength(10);
      expect(refused.every((r) => (r.reason as { code: string }).code === 'insufficient_credits')).toBe(true);
      expect((await auth.client.call.getOrganization({ organizationId: org.id })).organization?.credits).toBe('0');
    });

    it('debits once per reservation id, even when the same id is sent concurrently', async () => {
      const org = await createOrg(auth.client, '50');
      const reservationId = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => auth.client.call.reserveCredits({ organizationId: org.id, count: '7', reservationId })),
      );
      expect(new Set(answers.map((a) => a.remaining))).toEqual(new Set(['43']));
      expect((await auth.client.call.getOrganization({ organizationId: org.id })).organization?.credits).toBe('43');
      expect(
        await rejection(auth.client.call.reserveCredits({ organizationId: org.id, count: '8', reservationId })),
      ).toMatchObject({ code: 'conflict' });
    });

    it('gives cancelled credits back exactly once, and a confirmed reservation cannot be cancelled', async () => {
      const org = await createOrg(auth.client, '30');
      const a = randomUUID();
      const b = randomUUID();
      await auth.client.call.reserveCredits({ organizationId: org.id, count: '10', reservationId: a });
      await auth.client.call.reserveCredits({ organizationId: org.id, count: '5', reservationId: b });
      const cancels = await Promise.all(Array.from({ length: 5 }, () => auth.client.call.cancelCreditReservation({ reservationId: a })));
      expect(cancels.map((c) => c.remaining)).toEqual(Array(5).fill('25'));
      await auth.client.call.confirmCreditReservation({ reservationId: b });
      await auth.client.call.confirmCreditReservation({ reservationId: b });
      expect(await rejection(auth.client.call.cancelCreditReservation({ reservationId: b }))).toMatchObject({ code: 'conflict' });
      expect(await rejection(auth.client.call.confirmCreditReservation({ reservationId: a }))).toMatchObject({ code: 'conflict' });
      expect((await auth.client.call.getOrganization({ organizationId: org.id })).organization?.credits).toBe('25');
      // a repeated reserve of a cancelled id does not debit again
      await auth.client.call.reserveCredits({ organizationId: org.id, count: '10', reservationId: a });
      expect((await auth.client.call.getOrganization({ organizationId: org.id })).organization?.credits).toBe('25');
    });

    it('handles unknown reservations: not_found on confirm, a no-op on cancel', async () => {
      expect(await rejection(auth.client.call.confirmCreditReservation({ reservationId: randomUUID() }))).toMatchObject({ code: 'not_found' });
      expect(await rejection(auth.client.call.confirmCreditReservation({ reservationId: 'nope' }))).toMatchObject({ code: 'not_found' });
      expect(await auth.client.call.cancelCreditReservation({ reservationId: randomUUID() })).toEqual({ remaining: '0' });
      expect(await auth.client.call.cancelCreditReservation({ reservationId: 'nope' })).toEqual({ remaining: '0' });
    });

    it('validates count, ids and the organization', async () => {
      const org = await createOrg(auth.client, '10');
      for (const count of ['0', '-1', '100001']) {
        expect(
          await rejection(auth.client.call.reserveCredits({ organizationId: org.id, count, reservationId: randomUUID() })),
        ).toMatchObject({ code: 'invalid_request', param: 'count' });
      }
      expect(
        await rejection(auth.client.call.reserveCredits({ organizationId: org.id, count: '1', reservationId: 'abc' })),
      ).toMatchObject({ code: 'invalid_request', param: 'reservation_id' });
      expect(
        await rejection(auth.client.call.reserveCredits({ organizationId: randomUUID(), count: '1', reservationId: randomUUID() })),
      ).toMatchObject({ code: 'not_found' });
      expect(
        await rejection(auth.client.call.reserveCredits({ organizationId: org.id, count: '11', reservationId: randomUUID() })),
      ).toMatchObject({ code: 'insufficient_credits' });
      expect((await auth.client.call.getOrganization({ organizationId: org.id })).organization?.credits).toBe('10');
    });
  });
});
