// The accounts/v1 package is two files: AccountsService, and the account messages that
// TradingService shares (account.proto). Callers see them as one namespace, accountsv1.
export * from './gen/propdesk/accounts/v1/accounts_service';
export { Account, AccountStatus, accountStatusFromJSON, accountStatusToJSON } from './gen/propdesk/accounts/v1/account';
