import { pruneFailures } from '../data/login-failures';
import type { AccountsDeps } from '../deps';
import { recoverProvisioning } from './recover-provisioning';

/**
 * The service's periodic housekeeping: provisioning recovery (at start and then every
 * PROVISIONING_RECOVERY_INTERVAL_MS) and pruning of expired login-failure counters.
 * Passes never overlap; stop() waits for the one in progress.
 */
export function startBackgroundJobs(deps: AccountsDeps): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const pass = () => {
    if (stopped || running) return;
    running = (async () => {
      try {
        await recoverProvisioning(deps);
        await pruneFailures(deps.sequelize, deps.config.EXECUTOR_LOGIN_WINDOW_SECONDS);
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message }, 'background pass failed');
      } finally {
        running = null;
      }
    })();
  };
  pass();
  const timer = setInterval(pass, deps.config.PROVISIONING_RECOVERY_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}
