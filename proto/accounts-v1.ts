// The accounts/v1 package is three files: AccountsService, the account messages that
// TradingService shares (account.proto), and SPEC 14's operations (KYC statuses, halts;
// operations.proto). Callers see them as one namespace, accountsv1.
export * from './gen/propdesk/accounts/v1/accounts_service';
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
