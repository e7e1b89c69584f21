import { AppError, auditEntriesPage, exactlyOnce, toItemError, type AsyncServiceImplementation, type CallContext, type ResponseCodec } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import type { Registry } from 'prom-client';
import type { AccountsDeps } from '../deps';
import type { Account, AccountSummary, Trader } from '../domain/account';
import type { TestClock } from '../domain/test-clock';
import { listAccountTimeline } from '../use-cases/account-timeline';
import { appendEvents } from '../use-cases/append-events';
import { archiveAccount } from '../use-cases/archive-account';
import { assignTrader } from '../use-cases/assign-trader';
import { claimAccount } from '../use-cases/claim-account';
import { createAccounts } from '../use-cases/create-accounts';
import { getCredentials, rotateCredentials } from '../use-cases/credentials';
import { createExecutorSession, getExecutorSession } from '../use-cases/executor-sessions';
import { getAccount } from '../use-cases/get-account';
import { listAccounts, listAccountsAsJson } from '../use-cases/list-accounts';
import { listEvents } from '../use-cases/list-events';
import { archiveProgram, createProgram, getProgram, listPrograms, updateProgram } from '../use-cases/programs';
import { createTrader, findTraders, getTrader, listTraders } from '../use-cases/traders';
import { unassignTrader } from '../use-cases/unassign-trader';
import { haltAccount, resumeAccount } from '../use-cases/halt-account';
import { haltProgram, resumeProgram } from '../use-cases/halt-program';
import { setTraderKyc } from '../use-cases/set-trader-kyc';
import { advanceTestClock, createTestClock, deleteTestClock, getTestClock, listTestClocks } from '../use-cases/test-clocks';
import { kycStatusFromProto, statusFromProto, toProtoAccount, toProtoCredentials, toProtoEvent, toProtoTestClock, toProtoTrader } from './mappers';
import { answerListBatch, jsonPageResponse, listInput, pageResponse } from './list-batch';
import { createStreamListAccountsHandler } from './list-stream-handler';
import { ActiveStreams, createStreamEventsHandler } from './stream-events-handler';

/** A write RPC run through the kit's exactly-once helper against this service's database. */
type WriteOnce = <R, P>(ctx: CallContext, codec: ResponseCodec<P>, toResponse: (answer: R) => P, write: () => Promise<R>) => Promise<P>;

const accountResponse = (account: Account) => ({ account: toProtoAccount(account) });
const clockResponse = (clock: TestClock) => ({ testClock: toProtoTestClock(clock) });
const holderResponse = ({ account, trader }: { account: Account; trader: Trader }) => ({ account: toProtoAccount(account), trader: toProtoTrader(trader) });

/**
 * AccountsService (accounts, traders, credentials, sessions, events): proto in, use case, proto
 * out. Typed against the service: a forgotten RPC is a compile error.
 */
export function createAccountsHandlers(
  deps: AccountsDeps,
  streams: ActiveStreams = new ActiveStreams(),
  /** The service's metrics registry: StreamListAccounts counts its messages there. */
  metrics?: Registry,
): AsyncServiceImplementation<accountsv1.AccountsServiceServer> {
  // Every write goes through `once`: with an Idempotency-Key it runs exactly once (kit idempotency.ts).
  const once: WriteOnce = (ctx, codec, toResponse, write) => exactlyOnce(ctx, deps.sequelize, codec, toResponse, write, deps.logger);
  return {
    createAccounts(req, ctx) {
      const input = { organizationId: req.organizationId, mode: req.mode, count: req.count, program: req.program, initialBalance: req.initialBalance, testClockId: req.testClockId };
      return once(ctx, accountsv1.CreateAccountsResponse, (accounts) => ({ accounts: accounts.map(toProtoAccount) }), () => createAccounts(deps, input));
    },
    async listPrograms(req) {
      return listPrograms(deps, req);
    },
    async getProgram(req) {
      return { program: await getProgram(deps, req) };
    },
    createProgram(req, ctx) {
      const input = { organizationId: req.organizationId, mode: req.mode, program: req.program ?? {} };
      return once(ctx, accountsv1.CreateProgramResponse, (program) => ({ program }), () => createProgram(deps, input));
    },
    updateProgram(req, ctx) {
      const input = { organizationId: req.organizationId, mode: req.mode, name: req.name, program: req.program ?? {} };
      return once(ctx, accountsv1.UpdateProgramResponse, (program) => ({ program }), () => updateProgram(deps, input));
    },
    archiveProgram(req, ctx) {
      return once(ctx, accountsv1.ArchiveProgramResponse, (program) => ({ program }), () => archiveProgram(deps, req));
    },
    async getAccount(req) {
      return { account: toProtoAccount(await getAccount(deps, req)) };
    },
    async listAccounts(req) {
      const input = listInput(req);
      if (req.jsonView) return jsonPageResponse(await listAccountsAsJson(deps, input));
      return pageResponse(await listAccounts(deps, input));
    },
    async batchListAccounts(req, ctx) {
      return { results: await answerListBatch(deps, req.requests, req.requestIds, ctx.requestId) };
    },
    streamListAccounts: createStreamListAccountsHandler(deps, streams, metrics),
    assignTrader(req, ctx) {
      return once(ctx, accountsv1.AssignTraderResponse, holderResponse, () => assignTrader(deps, req));
    },
    unassignTrader(req, ctx) {
      return once(ctx, accountsv1.UnassignTraderResponse, accountResponse, () => unassignTrader(deps, req));
    },
    claimAccount(req, ctx) {
      return once(ctx, accountsv1.ClaimAccountResponse, holderResponse, () => claimAccount(deps, req));
    },
    archiveAccount(req, ctx) {
      return once(ctx, accountsv1.ArchiveAccountResponse, accountResponse, () => archiveAccount(deps, req));
    },
    createTrader(req, ctx) {
      return once(ctx, accountsv1.CreateTraderResponse, ({ trader, created }) => ({ trader: toProtoTrader(trader), created }), () => createTrader(deps, req));
    },
    async getTrader(req) {
      return { trader: toProtoTrader(await getTrader(deps, req)) };
    },
    async listTraders(req) {
      const page = await listTraders(deps, req);
      return { traders: page.traders.map(toProtoTrader), nextPageToken: page.nextPageToken };
    },
    async findTraders(req) {
      return { traders: (await findTraders(deps, req)).map(toProtoTrader) };
    },
    setTraderKyc(req, ctx) {
      const input = { organizationId: req.organizationId, mode: req.mode, traderId: req.traderId, status: kycStatusFromProto(req.status), reference: req.reference };
      return once(ctx, accountsv1.SetTraderKycResponse, (trader) => ({ trader: toProtoTrader(trader) }), () => setTraderKyc(deps, input));
    },
    haltAccount(req, ctx) {
      return once(ctx, accountsv1.HaltAccountResponse, accountResponse, () => haltAccount(deps, req));
    },
    resumeAccount(req, ctx) {
      return once(ctx, accountsv1.ResumeAccountResponse, accountResponse, () => resumeAccount(deps, req));
    },
    haltProgram(req, ctx) {
      return once(ctx, accountsv1.HaltProgramResponse, (halt) => halt, () => haltProgram(deps, req));
    },
    resumeProgram(req, ctx) {
      return once(ctx, accountsv1.ResumeProgramResponse, (halt) => halt, () => resumeProgram(deps, req));
    },
    async getCredentials(req) {
      return { credentials: toProtoCredentials(await getCredentials(deps, req)) };
    },
    rotateCredentials(req, ctx) {
      return once(ctx, accountsv1.RotateCredentialsResponse, (credentials) => ({ credentials: toProtoCredentials(credentials) }), () => rotateCredentials(deps, req));
    },
    async createExecutorSession(req) {
      return createExecutorSession(deps, req);
    },
    async getExecutorSession(req) {
      const { account, sessionId } = await getExecutorSession(deps, req);
      return { account: toProtoAccount(account), sessionId };
    },
    async listEvents(req) {
      const page = await listEvents(deps, req);
      return { events: page.events.map(toProtoEvent), nextPageToken: page.nextPageToken };
    },
    streamEvents: createStreamEventsHandler(deps, streams),
    createTestClock(req, ctx) {
      const input = { organizationId: req.organizationId, mode: req.mode, frozenTime: req.frozenTime, name: req.name };
      return once(ctx, accountsv1.CreateTestClockResponse, clockResponse, () => createTestClock(deps, input));
    },
    async getTestClock(req) {
      return clockResponse(await getTestClock(deps, req));
    },
    async listTestClocks(req) {
      const page = await listTestClocks(deps, req);
      return { testClocks: page.clocks.map(toProtoTestClock), nextPageToken: page.nextPageToken };
    },
    advanceTestClock(req, ctx) {
      return once(ctx, accountsv1.AdvanceTestClockResponse, clockResponse, () => advanceTestClock(deps, req));
    },
    deleteTestClock(req, ctx) {
      return once(ctx, accountsv1.DeleteTestClockResponse, (deleted) => deleted, () => deleteTestClock(deps, req));
    },
    async appendEvents(req) {
      return { appended: await appendEvents(deps, req) };
    },
    async listAuditEntries(req) {
      return auditEntriesPage(deps.sequelize, deps.cursors, req);
    },
    async listAccountTimeline(req) {
      const page = await listAccountTimeline(deps, req);
      return {
        items: page.items.map((item) => ('event' in item ? { event: toProtoEvent(item.event) } : { auditEntry: item.auditEntry })),
        nextPageToken: page.nextPageToken,
      };
    },
  };
}
