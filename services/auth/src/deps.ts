import type { CursorCodec, Logger, Sequelize } from '@propdesk/kit';
import type { AuthConfig } from './config';
import type { ApiKeysRepository } from './data/api-keys';
import type { CreditReservationsRepository } from './data/credit-reservations';
import type { KeyUsageRecorder } from './data/key-usage';
import type { LoginAttemptsRepository } from './data/login-attempts';
import type { OrganizationsRepository } from './data/organizations';
import type { SessionsRepository } from './data/sessions';
import type { UsersRepository } from './data/users';
import type { InvalidationHub } from './invalidation/hub';
import type { InvalidationRelay } from './invalidation/relay';

/** What the use cases and handlers of the auth service are wired with (see main.ts). */
export interface AuthDeps {
  config: AuthConfig;
  logger: Logger;
  sequelize: Sequelize;
  cursors: CursorCodec;
  organizations: OrganizationsRepository;
  reservations: CreditReservationsRepository;
  users: UsersRepository;
  sessions: SessionsRepository;
  loginAttempts: LoginAttemptsRepository;
  apiKeys: ApiKeysRepository;
  keyUsage: KeyUsageRecorder;
  hub: InvalidationHub;
  relay: InvalidationRelay;
  /** A hash of a random password, verified against for unknown emails so timing does not tell. */
  dummyPasswordHash: string;
}
