// The webhooks/v1 package is two files: WebhooksService, and the messages of its audit log
// (audit.proto). Callers see them as one namespace, webhooksv1.
export * from './gen/propdesk/webhooks/v1/webhooks_service';
export { ListAuditEntriesRequest, ListAuditEntriesResponse } from './gen/propdesk/webhooks/v1/audit';
