import type { ScopeFields } from '@propdesk/kit';
import { parseAccountNumber, parseScope, rulePackOf, type Terms } from '../core-port';
import { listFlags, type Flag } from '../data/flags';
import { headroom } from '../domain/rules';
import { liveAccountView, type LiveAccountView } from './live-account-view';
import type { Markets } from './trading-context';

/** The frozen terms as the report shows them (snake_case; the default initial balance is a provisioning detail). */
function termsJson(terms: Terms): Record<string, unknown> {
  return {
    kind: terms.kind,
    max_daily_loss_pct: terms.maxDailyLossPct,
    daily_loss_basis: terms.dailyLossBasis,
    max_total_loss_pct: terms.maxTotalLossPct,
    total_loss_mode: terms.totalLossMode,
    trailing_stops_at_initial: terms.trailingStopsAtInitial,
    profit_target_pct: terms.profitTargetPct,
    min_trading_days: terms.minTradingDays,
    consistency_pct: terms.consistencyPct,
    warning_at_pct: terms.warningAtPct,
    profit_split_pct: terms.profitSplitPct,
    payout_requires_approval: terms.payoutRequiresApproval,
    requires_kyc: terms.requiresKyc,
    leverage: terms.leverage,
    max_lots_per_order: terms.maxLotsPerOrder,
    allowed_symbols: terms.allowedSymbols,
    flag_lots_above: terms.flagLotsAbove,
    flag_weekend_holding: terms.flagWeekendHolding,
    currency: terms.currency,
    ...rulePackOf(terms),
  };
}

/** The report's terms section: the program, its frozen terms, the headroom now, every breach with its evidence. */
export function termsSection(view: LiveAccountView, breaches: Flag[]): Record<string, unknown> {
  const { account, snapshot } = view;
  return {
    program: account.program,
    program_version: account.programVersion,
    phase: { index: account.phase.index, name: account.phase.name, kind: account.phase.kind },
    attempt: account.attempt,
    ...termsJson(account.terms),
    headroom: headroom(account.terms, snapshot),
    breaches: breaches.map((f) => ({
      rule: f.rule,
      reason: f.reason,
      evidence: f.evidence,
      created_at: f.createdAt ? f.createdAt.toISOString() : null,
      reinstated_at: f.reinstatedAt ? f.reinstatedAt.toISOString() : null,
      reinstated_reason: f.reinstatedReason,
    })),
  };
}

/** GetTerms: the terms section without the report's deal aggregates (cheap whatever the history). */
export async function getTerms(markets: Markets, req: ScopeFields & { number: string }): Promise<Record<string, unknown>> {
  const scope = parseScope(req);
  const accountNumber = parseAccountNumber(req.number);
  const ctx = await (await markets.of(scope, accountNumber, 'read')).context();
  const view = await liveAccountView(ctx, scope, accountNumber);
  const breaches = await listFlags(ctx.sequelize, accountNumber, 0, 200, 'breach');
  return termsSection(view, breaches.filter((f) => f.attempt === view.account.attempt));
}
