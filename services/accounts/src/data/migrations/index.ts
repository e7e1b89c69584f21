import type { Migration } from '@propdesk/kit';
import { coreSchema } from './0001-core';
import { provisioningAndLogins } from './0002-provisioning-and-logins';
import { tradingMigrations } from './trading';

/**
 * Applied in this order. Core migrations are numbered 0xxx, trading ones 1xxx (see ./trading),
 * so the two lists can grow independently.
 */
export const migrations: Migration[] = [coreSchema, provisioningAndLogins, ...tradingMigrations];
