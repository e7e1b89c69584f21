import type { Migration } from '@propdesk/kit';

/**
 * Gap-proof events (SPEC 17): every event about an account (its data.account is the account's
 * number) has its place in that account's events, `sequence`, 1 for the first, without gaps or
 * repeats. The account keeps the last number it gave (`event_sequence`); an event records its
 * account and its number, unique together, which is also the index a receiver's
 * `?account=&after_sequence=` reads. The events written before get their numbers here, per
 * account in position order (the order their transactions committed in: each held the account's
 * row lock), and each account's counter continues from its last.
 */
export const eventSequence: Migration = {
  name: '0009-event-sequence',
  async up({ sql }) {
    await sql(`
      ALTER TABLE accounts ADD COLUMN event_sequence bigint NOT NULL DEFAULT 0;
      ALTER TABLE events ADD COLUMN account_number bigint, ADD COLUMN sequence bigint;

      WITH about AS (
        SELECT e.position, a.number
          FROM events e
          JOIN accounts a ON a.organization_id = e.organization_id AND a.livemode = e.livemode
               AND a.number = CASE WHEN jsonb_typeof(e.data -> 'account') = 'number' AND (e.data ->> 'account') ~ '^[1-9][0-9]{0,17}$'
                                   THEN (e.data ->> 'account')::bigint END
      ), numbered AS (
        SELECT position, number, row_number() OVER (PARTITION BY number ORDER BY position) AS sequence FROM about
      )
      UPDATE events e SET account_number = n.number, sequence = n.sequence FROM numbered n WHERE e.position = n.position;

      UPDATE accounts a SET event_sequence = s.last
        FROM (SELECT account_number, max(sequence) AS last FROM events WHERE account_number IS NOT NULL GROUP BY account_number) s
       WHERE a.number = s.account_number;

      CREATE UNIQUE INDEX events_account_sequence ON events (account_number, sequence) WHERE account_number IS NOT NULL;
    `);
  },
};
