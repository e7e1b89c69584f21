import type { CursorCodec, Logger, PromiseClient, Sequelize, SecretBox, Transaction } from '@propdesk/kit';
import type { authv1 } from '@propdesk/proto';
import type { AccountsConfig } from './config';
import type { EventsNotifier } from './data/events-notifier';
import type { Account } from './domain/account';
import type { TestClockMarket } from './use-cases/test-clocks';

/** What the use cases and handlers of the accounts core are wired with (see main.ts). */
export interface AccountsDeps {
  config: AccountsConfig;
  logger: Logger;
  sequelize: Sequelize;
  cursors: CursorCodec;
  secretBox: SecretBox;
  /** The auth service's unary calls (credit reservations); main.ts owns and closes the client. */
  authApi: PromiseClient<authv1.AuthServiceClient>;
  /** Wakes StreamEvents readers when the outbox gets a commit (LISTEN on a dedicated connection). */
  eventsNotifier: EventsNotifier;
  /** The wall clock (validation of a new test clock's time). */
  clock: { now(): number };
  /** The trading module's side of test clocks (main.ts sets it once the trading module is built). */
  testClockMarket?: TestClockMarket;
  /** The trading module's time rules (SPEC 15), told inside the transaction that starts a phase (main.ts sets it). */
  phaseStarts?: PhaseStarts;
}

/** What the core tells the trading module when accounts begin a phase (created, or the next phase's on a pass). */
export interface PhaseStarts {
  started(tx: Transaction, accounts: readonly Account[]): Promise<void>;
}
