import type { Migration } from '@propdesk/kit';

/** Trading engine schema (positions, deals, quotes, equity history, flags). */
export const tradingMigrations: Migration[] = [];
