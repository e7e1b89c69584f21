// The accounts/v1 package is seven files: AccountsService, the account messages that
// TradingService shares (account.proto), its traders (trader.proto), its events (events.proto),
// SPEC 14's operations (KYC statuses, halts; operations.proto), the test clock (test_clock.proto)
// and the messages of its audit log (audit.proto). Callers see them as one namespace, accountsv1.
export * from './gen/propdesk/accounts/v1/accounts_service';
export {
  Trader,
  SetTraderKycRequest,
  SetTraderKycResponse,
  CreateTraderRequest,
  CreateTraderResponse,
  GetTraderRequest,
  GetTraderResponse,
  ListTradersRequest,
  FindTradersRequest,
  FindTradersResponse,
  ListTradersResponse,
} from './gen/propdesk/accounts/v1/trader';
export {
  Event,
  ListEventsRequest,
  ListEventsResponse,
  AppendEventsRequest,
  AppendEventsResponse,
  StreamEventsRequest,
  StreamEventsResponse,
} from './gen/propdesk/accounts/v1/events';
export { Account, AccountStatus, accountStatusFromJSON, accountStatusToJSON } from './gen/propdesk/accounts/v1/account';
export {
  KycStatus,
  kycStatusFromJSON,
  kycStatusToJSON,
  HaltAccountRequest,
  HaltAccountResponse,
  ResumeAccountRequest,
  ResumeAccountResponse,
  HaltProgramRequest,
  HaltProgramResponse,
  ResumeProgramRequest,
  ResumeProgramResponse,
} from './gen/propdesk/accounts/v1/operations';
export {
  TestClock,
  TestClockStatus,
  testClockStatusFromJSON,
  testClockStatusToJSON,
  CreateTestClockRequest,
  CreateTestClockResponse,
  GetTestClockRequest,
  GetTestClockResponse,
  ListTestClocksRequest,
  ListTestClocksResponse,
  AdvanceTestClockRequest,
  AdvanceTestClockResponse,
  DeleteTestClockRequest,
  DeleteTestClockResponse,
} from './gen/propdesk/accounts/v1/test_clock';
export { ListAuditEntriesRequest, ListAuditEntriesResponse } from './gen/propdesk/accounts/v1/audit';
