import type { CursorCodec, Logger, Sequelize, SecretBox, ServiceClient } from '@propdesk/kit';
import type { authv1 } from '@propdesk/proto';
import type { AccountsConfig } from './config';
import type { EventsNotifier } from './data/events-notifier';
import type { PromiseClient } from './grpc/typed';

/** What the use cases and handlers of the accounts service are wired with (see main.ts). */
export interface AccountsDeps {
  config: AccountsConfig;
  logger: Logger;
  sequelize: Sequelize;
  cursors: CursorCodec;
  secretBox: SecretBox;
  auth: ServiceClient<authv1.AuthServiceClient>;
  /** The same client's unary calls, typed (see grpc/typed.ts). */
  authApi: PromiseClient<authv1.AuthServiceClient>;
  /** Wakes StreamEvents readers when the outbox gets a commit (LISTEN on a dedicated connection). */
  eventsNotifier: EventsNotifier;
  /**
   * Registers a step run by stop() after the gRPC server has drained and before the database
   * closes (timers, feeds, background loops of any part of the service).
   */
  onStop(step: () => Promise<void> | void): void;
}
