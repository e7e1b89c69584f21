// First: tracing (when configured) must hook the libraries below before they load.
import './telemetry';
import type { ClientWritableStream } from '@grpc/grpc-js';
import { createLogger, createServiceClient, envInt, loadConfig, logLevel, onShutdownSignals, serviceAddresses, serviceAddressSchema, type Logger } from '@propdesk/kit';
import { tradingv1 } from '@propdesk/proto';
import { RandomWalkMarket } from './random-walk';

export const feedConfigSchema = serviceAddressSchema.extend({
  LOG_LEVEL: logLevel,
  /** Milliseconds between two rounds of quotes (one per instrument). */
  SIMULATED_QUOTE_INTERVAL_MS: envInt(400, 50, 60_000),
});

export interface RunningFeed {
  stop(): Promise<void>;
}

const RETRY_MS = 1000;

/**
 * The simulated market-data feed: asks TradingService (served by the accounts process) which
 * instruments it trades, then streams a random-walk quote for each of them over StreamQuotes,
 * reconnecting after a second whenever the service is away or the stream breaks.
 */
export function startSimulatedFeed(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): RunningFeed {
  const config = loadConfig(feedConfigSchema, env, false);
  const logger = options.logger ?? createLogger('market-feed', { level: config.LOG_LEVEL });
  const addresses = serviceAddresses(config);
  const client = createServiceClient(tradingv1.TradingServiceClient, tradingv1.TradingServiceService, addresses.accounts, undefined, addresses.tls);
  let market: RandomWalkMarket | undefined;
  let stream: ClientWritableStream<tradingv1.StreamQuotesRequest> | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const later = (): void => {
    if (!stopped) retry = setTimeout(open, RETRY_MS);
  };

  const open = (): void => {
    if (stopped) return;
    if (!market) {
      client.call.listInstruments({}).then(
        ({ instruments }) => {
          market = new RandomWalkMarket(instruments);
          logger.info({ symbols: market.symbols }, 'quoting instruments');
          open();
        },
        (err: unknown) => {
          logger.warn({ msg: (err as Error).message }, 'instruments unavailable; retrying');
          later();
        },
      );
      return;
    }
    const current = client.raw.streamQuotes((err, response) => {
      if (stream === current) stream = undefined;
      if (err && !stopped) {
        logger.warn({ code: err.code, msg: err.details }, 'quote stream ended; reconnecting');
        later();
      } else if (response) {
        logger.info({ accepted: response.accepted, rejected: response.rejected }, 'quote stream closed');
      }
    });
    stream = current;
  };

  const timer = setInterval(() => {
    if (!stream || !market) return;
    for (const quote of market.step()) stream.write({ quote });
  }, config.SIMULATED_QUOTE_INTERVAL_MS);
  open();
  logger.info({ address: addresses.accounts, intervalMs: config.SIMULATED_QUOTE_INTERVAL_MS }, 'simulated market feed started');

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (retry) clearTimeout(retry);
      const s = stream;
      stream = undefined;
      s?.end();
      await new Promise((r) => setTimeout(r, 100));
      client.close();
    },
  };
}

if (require.main === module) {
  const logger = createLogger('market-feed');
  try {
    const feed = startSimulatedFeed(process.env, { logger });
    onShutdownSignals(logger, [() => feed.stop()]);
  } catch (err) {
    console.error(err);
    process.exit(1);
  }
}
