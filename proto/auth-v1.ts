// The auth/v1 package is two files: AuthService, and the messages of its audit log (audit.proto).
// Callers see them as one namespace, authv1.
export * from './gen/propdesk/auth/v1/auth_service';
export { ListAuditEntriesRequest, ListAuditEntriesResponse } from './gen/propdesk/auth/v1/audit';
