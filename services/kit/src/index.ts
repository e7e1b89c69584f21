export * from './errors';
export * from './events';
export * from './scopes';
export * from './audit';
export * from './context';
export * from './logger';
export * from './config';
// adaptHandlers stays out: it accepts a partial implementation (see @propdesk/kit/testing).
export {
  implementService,
  implementUnary,
  requestIdOf,
  startGrpcServer,
  type AsyncServiceImplementation,
  type AsyncUnary,
  type CallContext,
  type GrpcServiceRegistration,
  type StartedGrpcServer,
} from './grpc-server';
export * from './grpc-client';
export { ChurnMap, ChurnSet } from './churn-collections';
export * from './db';
export * from './idempotency';
export * from './idempotency-metadata';
export * from './idempotency-records';
export * from './sql';
export * from './ids';
export * from './tenant';
export * from './crypto';
export * from './cursor';
export * from './decimal';
export * from './text';
export * from './issue-message';
export * from './lifecycle';
export * from './net-probe';
export { createReflectionService, contractsDirectory, HEALTH_SERVICE } from './reflection/reflection-service';
export * from './pg-listener';
export * from './resources';
export * from './http-server';
export * from './rest/account';
export * from './rest/common';
export * from './rest/people';
export * from './rest/program';
export * from './rest/rule-pack';
export * from './rest/rule-pack-api';
export * from './rest/payouts';
export * from './rest/webhooks';
export * from './rest/trading';
export * from './rest/test-clocks';
export * from './credential-rules';
export * from './retention';
export * from './grpc-tls';
export * from './metrics';
export { rpcMessageObserver } from './rpc-metrics';
export * from './telemetry/tracing';
export * from './audit-table';
export * from './audit-listing';
export * from './rest/audit';
