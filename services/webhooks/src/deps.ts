import type { CursorCodec, Logger, SecretBox, Sequelize } from '@propdesk/kit';
import type { DeliveriesRepository } from './data/deliveries-repository';
import type { EndpointsRepository } from './data/endpoints-repository';

/** What the use cases need; wired in main.ts, built the same way in tests. */
export interface Deps {
  db: Sequelize;
  endpoints: EndpointsRepository;
  deliveries: DeliveriesRepository;
  secrets: SecretBox;
  cursors: CursorCodec;
  logger: Logger;
  allowPrivateNetworks: boolean;
  /** WEBHOOK_EGRESS_PORTS: the ports deliveries may reach; null = any. */
  egressPorts: ReadonlySet<number> | null;
  retryScheduleSeconds: readonly number[];
  /** The time decisions are made at (recover's window); the wall clock outside tests. */
  clock: () => Date;
}
