import { AppError } from '@propdesk/kit';
import { readAccount, writeAccountMoney } from '../data/account-state';
import { cancelPending, findPosition, livePositionsOfAccount, type Position } from '../data/positions';
import { exitPrice } from '../domain/pnl';
import { accountNotFound, requireActive } from './account-guards';
import { closePositionInTx, equityFromPositions, recordEquityPoint, requireQuote, type TradingContext } from './context';

export interface CloseRequest {
  accountNumber: number;
  positionId: string;
  /** Set for API calls: another organization's account is not_found. */
  organizationId?: string;
  reason: 'manual' | 'stop_loss' | 'take_profit';
  /** The stop-loss / take-profit level; a manual close uses the current bid (buy) or ask (sell). */
  price?: number;
}

/**
 * Closes an open position (or cancels a resting order) under the account row lock: the deal
 * moves the balance. For triggered exits a position that is no longer open is left alone and
 * null returned (another replica closed it); an API close of a finished position is a conflict.
 */
export async function closePosition(ctx: TradingContext, req: CloseRequest): Promise<Position | null> {
  const now = ctx.now();
  return ctx.sequelize.transaction(async (tx) => {
    const account = await readAccount(ctx.sequelize, req.accountNumber, { org: req.organizationId, tx, lock: true });
    if (!account) {
      if (req.organizationId) throw accountNotFound();
      return null;
    }
    const position = await findPosition(ctx.sequelize, req.accountNumber, req.positionId, tx);
    const manual = req.reason === 'manual';
    if (!position) {
      if (manual) throw new AppError('not_found', 'position not found');
      return null;
    }
    if (manual) requireActive(account);
    else if (account.status !== 'active') return null;

    if (position.status === 'pending' && manual) {
      const [cancelled] = await cancelPending(ctx.sequelize, tx, req.accountNumber, 'manual', position.id);
      return cancelled ?? null;
    }
    if (position.status !== 'open') {
      if (manual) throw new AppError('conflict', `position ${position.id} is already ${position.status}`);
      return null;
    }
    const price = req.price ?? exitPrice(position.side, requireQuote(ctx, position.symbol));
    const result = await closePositionInTx(ctx, tx, account, position, price, req.reason, now);
    if (!result) return null;
    const remaining = (await livePositionsOfAccount(ctx.sequelize, req.accountNumber, tx)).filter((p) => p.id !== position.id);
    const equity = equityFromPositions(ctx, result.balance, remaining);
    await writeAccountMoney(ctx.sequelize, tx, req.accountNumber, { balance: result.balance, equity, peakEquity: equity });
    await recordEquityPoint(ctx, tx, req.accountNumber, now, equity, result.balance);
    return result.position;
  });
}
