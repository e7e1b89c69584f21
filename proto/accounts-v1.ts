// The accounts/v1 package is three files: AccountsService, the account messages that
// TradingService shares (account.proto) and the messages of its audit log (audit.proto). Callers
// see them as one namespace, accountsv1.
export * from './gen/propdesk/accounts/v1/accounts_service';
export { Account, AccountStatus, accountStatusFromJSON, accountStatusToJSON } from './gen/propdesk/accounts/v1/account';
export { ListAuditEntriesRequest, ListAuditEntriesResponse } from './gen/propdesk/accounts/v1/audit';
