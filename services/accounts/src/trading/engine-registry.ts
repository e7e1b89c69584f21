import type { Logger, Sequelize } from '@propdesk/kit';
import type { AccountsConfig } from '../config';
import { TradingEngine } from './engine';

export { TradingEngine };

const engines = new WeakMap<Sequelize, TradingEngine>();

/**
 * One engine per service instance (keyed by its pool), whose stop() runs among the service's
 * stop steps, after the gRPC drain and before the pool closes.
 */
export function engineFor(deps: {
  sequelize: Sequelize;
  logger: Logger;
  config: Pick<AccountsConfig, 'TRADING_DAY_ROLLOVER_HOUR_UTC'>;
  onStop?: (step: () => Promise<void> | void) => void;
}): TradingEngine {
  let engine = engines.get(deps.sequelize);
  if (!engine) {
    engine = new TradingEngine({ sequelize: deps.sequelize, logger: deps.logger, rolloverHourUtc: deps.config.TRADING_DAY_ROLLOVER_HOUR_UTC });
    engines.set(deps.sequelize, engine);
    const started = engine;
    deps.onStop?.(() => started.stop());
  }
  return engine;
}
