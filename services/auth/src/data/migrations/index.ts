import type { Migration } from '@propdesk/kit';
import { authSchema } from './0001-auth';

/** Applied in this order; append, never edit an applied one. */
export const migrations: Migration[] = [authSchema];
