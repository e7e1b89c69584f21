// The accounts/v1 package is three files: AccountsService, the account messages that
// TradingService shares (account.proto), and the test clock (test_clock.proto). Callers see them
// as one namespace, accountsv1.
export * from './gen/propdesk/accounts/v1/accounts_service';
export { Account, AccountStatus, accountStatusFromJSON, accountStatusToJSON } from './gen/propdesk/accounts/v1/account';
export { TestClock, TestClockStatus, testClockStatusFromJSON, testClockStatusToJSON } from './gen/propdesk/accounts/v1/test_clock';
