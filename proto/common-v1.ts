// The common/v1 package is two files: the mode (test mode, SPEC 13) and the audit log's
// messages (SPEC 14). Callers see them as one namespace, commonv1.
export * from './gen/propdesk/common/v1/mode';
export { AuditActor, AuditEntry, AuditQuery } from './gen/propdesk/common/v1/audit';
