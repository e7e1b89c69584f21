import type { tradingv1 } from '@propdesk/proto';
import type { NewsEvent } from '../data/news-events';
import type { OrderPreview } from '../use-cases/preview-order';

/** SPEC 15's answers in their proto form (rules.proto). */
export function toProtoNewsEvent(event: NewsEvent): tradingv1.NewsEvent {
  return { id: event.id, title: event.title, time: event.time, currencies: event.currencies, createdAt: event.createdAt };
}

export function toProtoPreview(preview: OrderPreview): tradingv1.PreviewOrderResponse {
  const w = preview.worstCase;
  return {
    allowed: preview.allowed,
    rejections: preview.rejections,
    marginRequired: preview.marginRequired,
    freeMarginAfter: preview.freeMarginAfter,
    worstCase: w
      ? { lossAtStop: w.loss_at_stop, dailyHeadroomAfter: w.daily_headroom_after, totalHeadroomAfter: w.total_headroom_after, wouldBreach: w.would_breach }
      : undefined,
  };
}
