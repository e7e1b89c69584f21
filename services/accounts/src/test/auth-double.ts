import { AppError, createLogger, isUuid, startGrpcServer, type AsyncServiceImplementation } from '@propdesk/kit';
import { implementServiceDouble } from '@propdesk/kit/testing';
import { authv1 } from '@propdesk/proto';

/**
 * A stand-in for ANOTHER service (auth) in this service's own integration tests: real gRPC,
 * a real credits counter, the reservation semantics auth documents (reserve debits, confirm,
 * cancel refunds once, all idempotent on reservation_id). The end-to-end suite uses the real one;
 * test/contracts/auth-credits.contract.test.ts runs the same cases against both.
 */
export interface AuthDouble {
  address: string;
  credits(org: string): number;
  setCredits(org: string, credits: number, lowThreshold?: number): void;
  /** remainingAfter: the credits left right after the reservation, which a repeat answers again. */
  reservations: Map<string, { org: string; count: number; status: 'reserved' | 'confirmed' | 'cancelled'; remainingAfter: number }>;
  /** When set, ConfirmCreditReservation fails with unavailable (a crash after the accounts commit). */
  failConfirm: boolean;
  /** When set, ReserveCredits debits and then fails with unavailable (a lost answer). */
  failAfterReserve: boolean;
  stop(): Promise<void>;
}

export async function startAuthDouble(): Promise<AuthDouble> {
  const orgs = new Map<string, { credits: number; threshold: number }>();
  const reservations: AuthDouble['reservations'] = new Map();
  const state = { failConfirm: false, failAfterReserve: false };
  const handlers: Partial<AsyncServiceImplementation<authv1.AuthServiceServer>> = {
    async reserveCredits(req) {
      if (!isUuid(req.reservationId)) throw new AppError('invalid_request', 'reservation_id must be a uuid', 'reservation_id');
      const org = orgs.get(req.organizationId);
      if (!org) throw new AppError('not_found', 'organization not found');
      const count = Number(req.count);
      let reservation = reservations.get(req.reservationId);
      if (reservation && (reservation.org !== req.organizationId || reservation.count !== count)) {
        throw new AppError('conflict', 'reservation_id is already used for another reservation', 'reservation_id');
      }
      if (!reservation) {
        if (org.credits < count) throw new AppError('insufficient_credits', 'not enough account credits');
        org.credits -= count;
        reservation = { org: req.organizationId, count, status: 'reserved', remainingAfter: org.credits };
        reservations.set(req.reservationId, reservation);
      }
      if (state.failAfterReserve) throw new AppError('unavailable', 'simulated failure after reserving');
      return { remaining: String(reservation.remainingAfter), creditsLowThreshold: String(org.threshold) };
    },
    async confirmCreditReservation(req) {
      if (state.failConfirm) throw new AppError('unavailable', 'simulated confirm failure');
      const r = reservations.get(req.reservationId);
      if (!r) throw new AppError('not_found', 'reservation not found');
      if (r.status === 'cancelled') throw new AppError('conflict', 'reservation cancelled');
      r.status = 'confirmed';
      return {};
    },
    async cancelCreditReservation(req) {
      const r = reservations.get(req.reservationId);
      if (!r) return { remaining: '0' };
      if (r.status === 'confirmed') throw new AppError('conflict', 'reservation confirmed');
      const org = orgs.get(r.org);
      if (r.status === 'reserved' && org) org.credits += r.count;
      r.status = 'cancelled';
      return { remaining: String(org?.credits ?? 0) };
    },
    async getOrganization(req) {
      const org = orgs.get(req.organizationId);
      if (!org) throw new AppError('not_found', 'organization not found');
      return {
        organization: {
          id: req.organizationId,
          name: 'test',
          planStatus: authv1.PlanStatus.PLAN_STATUS_PAID,
          credits: String(org.credits),
          creditsLowThreshold: String(org.threshold),
          createdAt: new Date(),
        },
      };
    },
  };
  const logger = createLogger('auth-double', { level: 'silent' });
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    logger,
    services: [
      {
        name: 'propdesk.auth.v1.AuthService',
        definition: authv1.AuthServiceService,
        implementation: implementServiceDouble<authv1.AuthServiceServer>(authv1.AuthServiceService, logger, handlers),
      },
    ],
  });
  return {
    address: server.address,
    reservations,
    get failConfirm() {
      return state.failConfirm;
    },
    set failConfirm(v: boolean) {
      state.failConfirm = v;
    },
    get failAfterReserve() {
      return state.failAfterReserve;
    },
    set failAfterReserve(v: boolean) {
      state.failAfterReserve = v;
    },
    credits: (org) => orgs.get(org)?.credits ?? 0,
    setCredits(org, credits, lowThreshold = 0) {
      orgs.set(org, { credits, threshold: lowThreshold });
    },
    stop: () => server.shutdown(1000),
  };
}
