/**
 * The JSON the panel API answers (services/panel/src/routes): the REST shapes of SPEC sections
 * 7–10 (accounts, traders, positions, deals, flags, events, webhooks, deliveries, programs), plus
 * the panel's own (users, keys, team).
 */

export type Role = 'owner' | 'admin' | 'member';
export type AccountStatus = 'active' | 'passed' | 'breached' | 'archived';

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface User {
  id: string;
  email: string;
  role: Role;
  organization_id: string;
}

export interface Meta {
  event_types: string[];
  scopes: string[];
  account_statuses: AccountStatus[];
  roles: Role[];
}

export interface Phase {
  index: number;
  name: string;
  kind: 'evaluation' | 'funded';
}

export interface Account {
  number: number;
  status: AccountStatus;
  trader_id: string | null;
  program: string;
  currency: string;
  initial_balance: number;
  balance: number;
  equity: number;
  peak_equity: number;
  created_at: string;
  // SPEC section 10 (programs as data); absent until the accounts service answers them.
  program_version?: number;
  phase?: Phase;
  attempt?: number;
  previous_account?: number | null;
  next_account?: number | null;
  /** SPEC 14: an operator halted trading (new orders refused, evaluation going on). */
  trading_halted?: boolean;
}

export interface Trader {
  id: string;
  name: string;
  email: string;
  created_at: string;
  kyc_status?: 'unverified' | 'pending' | 'verified' | 'rejected';
}

export interface AccountPage extends Page<Account> {
  traders: Record<string, Trader>;
}

export interface AccountDetail {
  account: Account;
  trader: Trader | null;
}

export interface Credentials {
  login: number;
  password: string;
  server: string;
}

export interface Position {
  id: string;
  status: 'pending' | 'open' | 'closed' | 'cancelled';
  symbol: string;
  side: 'buy' | 'sell';
  volume: number;
  type: 'market' | 'limit' | 'stop';
  price: number | null;
  open_price: number | null;
  stop_loss: number | null;
  take_profit: number | null;
  opened_at: string | null;
  close_price: number | null;
  profit: number | null;
  closed_at: string | null;
  close_reason: string | null;
  attempt?: number;
  /** Open positions: the price it is marked at (bid for a buy, ask for a sell) and the floating P/L; null without a quote. */
  current_price: number | null;
  floating_profit: number | null;
}

/** The signed-in user's organization (GET /panel/api/organization). */
export interface Organization {
  id: string;
  name: string;
  plan_status: 'paid' | 'unpaid';
  credits: number;
}

/** A closed position (trade) or a balance adjustment (balance: no position, symbol, side, volume or prices). */
export interface Deal {
  id: string;
  type?: 'trade' | 'balance';
  position_id: string | null;
  symbol: string | null;
  side: 'buy' | 'sell' | null;
  volume: number | null;
  open_price: number | null;
  close_price: number | null;
  profit: number;
  opened_at: string | null;
  closed_at: string | null;
  close_reason: string | null;
  balance_after: number;
  attempt?: number;
}

export interface Flag {
  id: string;
  account: number;
  rule: string;
  action: 'flag' | 'breach';
  reason: string;
  evidence: Record<string, unknown>;
  created_at: string;
  /** SPEC 14: a breach an operator reinstated. */
  reinstated_at?: string | null;
  reinstated_reason?: string | null;
}

export interface Headroom {
  daily_loss_remaining: number;
  daily_loss_limit: number;
  total_loss_remaining: number;
  total_loss_limit: number;
  profit_target_remaining: number;
  trading_days: number;
  min_trading_days: number;
}

export interface Analytics {
  trades: number;
  win_rate: number;
  profit_factor: number | null;
  net_profit: number;
  max_drawdown: number;
  max_drawdown_pct: number;
  balance: number;
  equity: number;
  peak_equity: number;
  headroom: Headroom;
}

export interface Terms {
  program: string;
  max_daily_loss_pct: number;
  max_total_loss_pct: number;
  total_loss_mode: string;
  profit_target_pct: number | null;
  min_trading_days: number;
  leverage: number;
  max_lots_per_order: number;
  allowed_symbols: string[] | null;
  flag_lots_above: number | null;
  flag_weekend_holding: boolean;
  currency: string;
}

export interface EquityPoint {
  time: string;
  equity: number;
  balance: number;
}

export interface EquityCurve {
  data: EquityPoint[];
}

export type PayoutStatus = 'pending' | 'approved' | 'rejected' | 'paid';

export interface Payout {
  id: string;
  account: number;
  amount: number;
  profit_split_pct: number;
  trader_share: number;
  firm_share: number;
  /** Null while pending, and for a rejected payout. */
  balance_after: number | null;
  created_at: string;
  /** SPEC 14. */
  status?: PayoutStatus;
  requested_at?: string;
  decided_at?: string | null;
  decided_by?: { type: 'api_key' | 'user'; id: string } | null;
  reason?: string | null;
  reference?: string | null;
  paid_at?: string | null;
}

/** A balance adjustment (POST .../adjustments). */
export interface Adjustment {
  id: string;
  account: number;
  amount: number;
  reason: string;
  balance_after: number;
  created_at: string;
}

export interface ProgramPhase {
  name: string;
  kind: 'evaluation' | 'funded';
  profit_target_pct?: number | null;
  min_trading_days?: number;
  consistency_pct?: number | null;
  max_daily_loss_pct: number;
  daily_loss_basis?: 'balance' | 'equity' | 'higher';
  max_total_loss_pct: number;
  total_loss_mode?: 'static' | 'trailing' | 'trailing_eod';
  trailing_stops_at_initial?: boolean;
  leverage?: number;
  max_lots_per_order?: number;
  allowed_symbols?: string[] | null;
  flag_lots_above?: number | null;
  flag_weekend_holding?: boolean;
  warning_at_pct?: number | null;
  profit_split_pct?: number;
  /** SPEC 14, funded phases. */
  payout_requires_approval?: boolean;
  requires_kyc?: boolean;
  /** SPEC 15, the rule pack: null or false = off. */
  max_open_positions?: number | null;
  max_trades_per_day?: number | null;
  stop_loss_required?: boolean;
  max_risk_per_trade_pct?: number | null;
  news_blackout_minutes?: number | null;
  max_phase_days?: number | null;
  inactivity_days?: number | null;
  trading_hours?: { start: string; end: string; timezone: string } | null;
  close_at_session_end?: boolean;
  daily_loss_action?: 'breach' | 'lock';
  daily_profit_cap_pct?: number | null;
  trading_day?: { timezone: string; start: string } | null;
}

export interface Program {
  name: string;
  version: number;
  status: 'active' | 'archived';
  builtin: boolean;
  description: string;
  currency: string;
  initial_balance: number;
  phases: ProgramPhase[];
  created_at: string;
}

export interface PanelEvent {
  id: string;
  type: string;
  created_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

export interface Webhook {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  status: 'enabled' | 'disabled';
  created_at: string;
}

export interface WebhookWithSecret extends Webhook {
  secret: string;
  warnings: string[];
}

/** An edit (SPEC 17's PATCH): a field left out keeps its value. */
export interface WebhookChanges {
  url?: string;
  events?: string[];
  description?: string | null;
}

export interface WebhookUpdated extends Webhook {
  warnings: string[];
}

export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface DeliveryAccepted {
  delivery_id: string;
  event_id: string;
}

export interface ApiKey {
  id: string;
  prefix: string;
  name: string;
  scopes: string[];
  /** SPEC 13: live (pfx_live_) or test (pfx_test_). */
  mode: 'live' | 'test';
  created_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  expires_at?: string | null;
  /** Requests per minute; null: the deployment's default. */
  limits?: { read: number | null; write: number | null };
}

export interface NewApiKey {
  id: string;
  token: string;
  prefix: string;
  name: string;
  scopes: string[];
  mode: 'live' | 'test';
  expires_at?: string | null;
}

export interface TeamUser {
  id: string;
  email: string;
  role: Role;
  created_at: string | null;
}

/** An audit entry (SPEC 14): who changed what, when, from where, and the fields that changed. */
export interface AuditEntry {
  id: string;
  created_at: string;
  actor: { type: 'api_key' | 'user' | 'operator'; id: string; label: string };
  action: string;
  target: { type: string; id: string };
  request_id: string | null;
  ip: string | null;
  livemode: boolean;
  changes: Record<string, [unknown, unknown]>;
}

/** One line of an account's timeline: an event, or an audit entry. */
export type TimelineItem = { kind: 'event'; event: PanelEvent } | { kind: 'audit_entry'; audit_entry: AuditEntry };

/** The Audit log page's filters (empty: none). */
export interface AuditFilter {
  action?: string;
  target_type?: string;
  target_id?: string;
  actor_id?: string;
}
