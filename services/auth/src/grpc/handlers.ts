import { AppError, auditEntriesPage, modeOf, type AsyncServiceImplementation } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import type { AuthDeps } from '../deps';
import { addCredits } from '../use-cases/add-credits';
import { cancelCreditReservation } from '../use-cases/cancel-credit-reservation';
import { confirmCreditReservation } from '../use-cases/confirm-credit-reservation';
import { createApiKey } from '../use-cases/create-api-key';
import { createOrganization } from '../use-cases/create-organization';
import { createUser } from '../use-cases/create-user';
import { getOrganization } from '../use-cases/get-organization';
import { getSession } from '../use-cases/get-session';
import { listApiKeys } from '../use-cases/list-api-keys';
import { listUsers } from '../use-cases/list-users';
import { deleteUser, updateUserRole } from '../use-cases/change-team';
import { login } from '../use-cases/login';
import { logout } from '../use-cases/logout';
import { reserveCredits } from '../use-cases/reserve-credits';
import { revokeApiKey } from '../use-cases/revoke-api-key';
import { rollApiKey } from '../use-cases/roll-api-key';
import { setApiKeyLimits } from '../use-cases/set-api-key-limits';
import { setCreditsLowThreshold } from '../use-cases/set-credits-low-threshold';
import { setOrganizationPlan } from '../use-cases/set-organization-plan';
import { verifyApiKey } from '../use-cases/verify-api-key';
import { apiKeyToProto, organizationToProto, planStatusFromProto, planStatusToProto, roleFromProto, userToProto } from './mappers';

export type AuthHandlers = AsyncServiceImplementation<authv1.AuthServiceServer>;

/** Thin: proto in, use case, proto out. */
export function authHandlers(deps: AuthDeps): AuthHandlers {
  return {
    async createOrganization(req) {
      // UNSPECIFIED means paid: an organization created by an operator has bought its plan
      const planStatus = req.planStatus === authv1.PlanStatus.PLAN_STATUS_UNSPECIFIED ? 'paid' : planStatusFromProto(req.planStatus);
      if (!planStatus) throw new AppError('invalid_request', 'plan_status must be paid or unpaid', 'plan_status');
      const org = await createOrganization(deps, { name: req.name, planStatus, credits: req.credits });
      return { organization: organizationToProto(org) };
    },
    async getOrganization(req) {
      return { organization: organizationToProto(await getOrganization(deps, req.organizationId)) };
    },
    async setOrganizationPlan(req) {
      const planStatus = planStatusFromProto(req.planStatus);
      if (!planStatus) throw new AppError('invalid_request', 'plan_status must be paid or unpaid', 'plan_status');
      const org = await setOrganizationPlan(deps, { organizationId: req.organizationId, planStatus });
      return { organization: organizationToProto(org) };
    },
    async addCredits(req) {
      return { organization: organizationToProto(await addCredits(deps, { organizationId: req.organizationId, credits: req.credits })) };
    },
    async setCreditsLowThreshold(req) {
      const org = await setCreditsLowThreshold(deps, { organizationId: req.organizationId, threshold: req.threshold });
      return { organization: organizationToProto(org) };
    },
    async reserveCredits(req) {
      return reserveCredits(deps, { organizationId: req.organizationId, count: req.count, reservationId: req.reservationId });
    },
    async confirmCreditReservation(req) {
      await confirmCreditReservation(deps, req.reservationId);
      return {};
    },
    async cancelCreditReservation(req) {
      return cancelCreditReservation(deps, req.reservationId);
    },

    async createUser(req) {
      const user = await createUser(deps, { organizationId: req.organizationId, email: req.email, password: req.password, role: roleFromProto(req.role) });
      return { user: userToProto(user) };
    },
    async login(req) {
      const result = await login(deps, { email: req.email, password: req.password, clientIp: req.clientIp });
      return { sessionToken: result.sessionToken, expiresAt: result.expiresAt, user: userToProto(result.user) };
    },
    async getSession(req) {
      const session = await getSession(deps, req.sessionToken);
      return { user: userToProto(session.user), expiresAt: session.expiresAt };
    },
    async logout(req) {
      await logout(deps, req.sessionToken);
      return {};
    },
    async listUsers(req) {
      const page = await listUsers(deps, { organizationId: req.organizationId, pageSize: req.pageSize, pageToken: req.pageToken });
      return { users: page.users.map(userToProto), nextPageToken: page.nextPageToken };
    },
    async updateUserRole(req) {
      const user = await updateUserRole(deps, { organizationId: req.organizationId, userId: req.userId, role: roleFromProto(req.role) });
      return { user: userToProto(user) };
    },
    async deleteUser(req) {
      return { user: userToProto(await deleteUser(deps, { organizationId: req.organizationId, userId: req.userId })) };
    },

    async createApiKey(req) {
      const { apiKey, token } = await createApiKey(deps, {
        organizationId: req.organizationId,
        mode: req.mode,
        name: req.name,
        scopes: req.scopes,
        expiresInSeconds: req.expiresInSeconds,
      });
      return { apiKey: apiKeyToProto(apiKey), token };
    },
    async listApiKeys(req) {
      const page = await listApiKeys(deps, { organizationId: req.organizationId, mode: req.mode, pageSize: req.pageSize, pageToken: req.pageToken });
      return { apiKeys: page.apiKeys.map(apiKeyToProto), nextPageToken: page.nextPageToken };
    },
    async revokeApiKey(req) {
      return { apiKey: apiKeyToProto(await revokeApiKey(deps, { organizationId: req.organizationId, apiKeyId: req.apiKeyId })) };
    },
    async rollApiKey(req) {
      const rolled = await rollApiKey(deps, {
        organizationId: req.organizationId,
        apiKeyId: req.apiKeyId,
        previousExpiresInSeconds: req.previousExpiresInSeconds,
        expiresInSeconds: req.expiresInSeconds,
      });
      return { apiKey: apiKeyToProto(rolled.apiKey), token: rolled.token, previousApiKey: apiKeyToProto(rolled.previous) };
    },
    async setApiKeyLimits(req) {
      const apiKey = await setApiKeyLimits(deps, {
        organizationId: req.organizationId,
        apiKeyId: req.apiKeyId,
        readPerMin: req.readPerMin,
        writePerMin: req.writePerMin,
      });
      return { apiKey: apiKeyToProto(apiKey) };
    },
    async verifyApiKey(req) {
      const key = await verifyApiKey(deps, req.tokenSha256);
      return {
        apiKeyId: key.apiKeyId,
        organizationId: key.organizationId,
        scopes: key.scopes,
        planStatus: planStatusToProto(key.planStatus),
        expiresInMs: key.expiresInMs === null ? undefined : String(key.expiresInMs),
        readPerMin: key.readPerMin ?? undefined,
        writePerMin: key.writePerMin ?? undefined,
        mode: modeOf(key.livemode),
      };
    },
    watchInvalidations(call) {
      deps.hub.watch(call);
    },
    async ackInvalidation(req) {
      const seq = Number(req.seq);
      if (!req.watcherId || !Number.isSafeInteger(seq) || seq < 0) throw new AppError('invalid_request', 'watcher_id and seq are required', 'seq');
      await deps.relay.ack(req.watcherId, seq);
      return {};
    },

    async listAuditEntries(req) {
      return auditEntriesPage(deps.sequelize, deps.cursors, req);
    },
  };
}
