import type { tradingv1 } from '@propdesk/proto';
import { z } from 'zod';
import { isoTime } from './common';
import { PRE_ORDER_RULES } from './rule-pack';

/**
 * SPEC 15's answers in their REST shape, written once for the gateway (which names the schemas
 * in its document) and anyone else showing them: a news event of the calendar, and the order
 * preview.
 */

export const restNewsEventSchema = z
  .object({
    id: z.string().describe('news_...'),
    title: z.string(),
    time: z.string().datetime().describe('when the news is out; a blackout runs from news_blackout_minutes before it to as many after'),
    currencies: z.array(z.string().regex(/^[A-Z]{3}$/)).describe('the currencies it concerns: a symbol either of whose currencies is listed is blacked out (EURUSD: EUR and USD; XAUUSD: USD)'),
    created_at: z.string().datetime(),
  })
  .strict();

export type RestNewsEvent = z.output<typeof restNewsEventSchema>;

export function toRestNewsEvent(event: tradingv1.NewsEvent): RestNewsEvent {
  return { id: event.id, title: event.title, time: isoTime(event.time), currencies: [...event.currencies], created_at: isoTime(event.createdAt) };
}

export const restNewsEventDeletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).strict();

const money = z.number();

export const restOrderPreviewSchema = z
  .object({
    allowed: z.boolean().describe('true when no pre-order rule refuses the order (would_breach alone does not refuse)'),
    rejections: z
      .array(
        z
          .object({
            rule: z.enum(PRE_ORDER_RULES).describe('the rule, as order.rejected names it'),
            message: z.string().describe('what placing the order would answer (order_rejected) for this rule'),
          })
          .strict(),
      )
      .describe('every pre-order rule that refuses the order now, in the order they are weighed: placing it would answer the first'),
    margin_required: money.describe("the order's margin at the phase's leverage, in the account currency"),
    free_margin_after: money.describe('equity minus the margin in use and the order\'s (negative: insufficient_margin)'),
    worst_case: z
      .object({
        loss_at_stop: money.describe('money lost if it fills and is stopped out, from the fill price (ask or bid now for a market order, its price for a pending one) to the stop (>= 0)'),
        daily_headroom_after: money.describe('equity after that loss minus the daily loss limit (negative: past it)'),
        total_headroom_after: money.describe('equity after that loss minus the total loss limit (negative: past it)'),
        would_breach: z.boolean().describe('whether the rules would breach the account there (with daily_loss_action lock the daily loss locks instead)'),
      })
      .strict()
      .nullable()
      .describe('null without a stop loss'),
  })
  .strict();

export type RestOrderPreview = z.output<typeof restOrderPreviewSchema>;

export function toRestOrderPreview(p: tradingv1.PreviewOrderResponse): RestOrderPreview {
  const w = p.worstCase;
  return {
    allowed: p.allowed,
    rejections: p.rejections.map((r) => ({ rule: r.rule as RestOrderPreview['rejections'][number]['rule'], message: r.message })),
    margin_required: p.marginRequired,
    free_margin_after: p.freeMarginAfter,
    worst_case: w ? { loss_at_stop: w.lossAtStop, daily_headroom_after: w.dailyHeadroomAfter, total_headroom_after: w.totalHeadroomAfter, would_breach: w.wouldBreach } : null,
  };
}
