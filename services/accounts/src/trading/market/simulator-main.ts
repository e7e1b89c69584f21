import type { ClientWritableStream } from '@grpc/grpc-js';
import { createLogger, createServiceClient, envInt, loadConfig, logLevel, onShutdownSignals, serviceAddresses, serviceAddressSchema, type Logger } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';
import { RandomWalkMarket } from './simulator';

export const simulatorConfigSchema = serviceAddressSchema.extend({
  LOG_LEVEL: logLevel,
  /** Milliseconds between two rounds of quotes (one per instrument). */
  SIMULATED_QUOTE_INTERVAL_MS: envInt(400, 50, 60_000),
});

export interface RunningFeed {
  stop(): Promise<void>;
}

/**
 * The simulated market-data feed: streams a random-walk quote for every instrument to the
 * accounts service over StreamQuotes, reconnecting after a second when the stream breaks.
 */
export function startSimulatedFeed(env: NodeJS.ProcessEnv, options: { logger?: Logger } = {}): RunningFeed {
  const config = loadConfig(simulatorConfigSchema, env, false);
  const logger = options.logger ?? createLogger('market-feed', { level: config.LOG_LEVEL });
  const address = serviceAddresses(config).accounts;
  const client = createServiceClient(accountsv1.AccountsServiceClient, accountsv1.AccountsServiceService, address);
  const market = new RandomWalkMarket();
  let stream: ClientWritableStream<accountsv1.StreamQuotesRequest> | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const open = (): void => {
    if (stopped) return;
    const current = client.raw.streamQuotes((err, response) => {
      if (stream === current) stream = undefined;
      if (err && !stopped) {
        logger.warn({ code: err.code, msg: err.details }, 'quote stream ended; reconnecting');
        retry = setTimeout(open, 1000);
      } else if (response) {
        logger.info({ accepted: response.accepted, rejected: response.rejected }, 'quote stream closed');
      }
    });
    stream = current;
  };

  const timer = setInterval(() => {
    if (!stream) return;
    for (const quote of market.step()) stream.write({ quote });
  }, config.SIMULATED_QUOTE_INTERVAL_MS);
  open();
  logger.info({ address, intervalMs: config.SIMULATED_QUOTE_INTERVAL_MS }, 'simulated market feed started');

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
