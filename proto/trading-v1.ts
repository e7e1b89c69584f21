// The trading/v1 package is four files: TradingService with its trading messages, the payout
// messages (payouts.proto), SPEC 14's operator controls (operations.proto) and SPEC 15's rule pack
// (rules.proto: the order preview's answer, the news calendar). Callers see them as one namespace,
// tradingv1.
export * from './gen/propdesk/trading/v1/trading_service';
export {
  PayoutStatus,
  payoutStatusFromJSON,
  payoutStatusToJSON,
  DeciderType,
  deciderTypeFromJSON,
  deciderTypeToJSON,
  Payout,
  PayoutDecider,
  CreatePayoutRequest,
  CreatePayoutResponse,
  ListPayoutsRequest,
  ListPayoutsResponse,
  ListOrganizationPayoutsRequest,
  ListOrganizationPayoutsResponse,
  GetPayoutRequest,
  GetPayoutResponse,
  ApprovePayoutRequest,
  ApprovePayoutResponse,
  RejectPayoutRequest,
  RejectPayoutResponse,
  MarkPayoutPaidRequest,
  MarkPayoutPaidResponse,
} from './gen/propdesk/trading/v1/payouts';
export { ReinstateAccountRequest, ReinstateAccountResponse, Adjustment, AdjustBalanceRequest, AdjustBalanceResponse } from './gen/propdesk/trading/v1/operations';
export {
  OrderRejection,
  OrderWorstCase,
  PreviewOrderResponse,
  NewsEvent,
  CreateNewsEventRequest,
  CreateNewsEventResponse,
  ListNewsEventsRequest,
  ListNewsEventsResponse,
  DeleteNewsEventRequest,
  DeleteNewsEventResponse,
} from './gen/propdesk/trading/v1/rules';
