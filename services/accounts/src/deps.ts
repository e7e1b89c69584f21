import type { CursorCodec, Logger, Sequelize, SecretBox, ServiceClient } from '@propdesk/kit';
import type { authv1 } from '@propdesk/proto';
import type { AccountsConfig } from './config';

/** What the use cases and handlers of the accounts service are wired with (see main.ts). */
export interface AccountsDeps {
  config: AccountsConfig;
  logger: Logger;
  sequelize: Sequelize;
  cursors: CursorCodec;
  secretBox: SecretBox;
  auth: ServiceClient<authv1.AuthServiceClient>;
}
