import { execute, selectRows, type Sequelize } from '@propdesk/kit';

export interface IdempotencyRecord {
  requestFingerprint: string;
  state: 'in_progress' | 'completed';
  responseStatus: number | null;
  responseBody: Buffer | null;
  lockExpired: boolean;
}

interface Key {
  apiKeyId: string;
  idempotencyKey: string;
}

/** Records older than this are treated as absent and purged. */
const RETENTION = "interval '24 hours'";
const LOCK = "interval '60 seconds'";

export function createIdempotencyRepository(sequelize: Sequelize) {
  return {
    /** Inserts an in-progress record; false when one exists (an expired one is cleared first). */
    async tryInsert(key: Key, requestFingerprint: string): Promise<boolean> {
      await execute(
        sequelize,
        `DELETE FROM idempotency_records
          WHERE api_key_id = $apiKeyId AND idempotency_key = $idempotencyKey AND created_at <= now() - ${RETENTION}`,
        { ...key },
      );
      const rows = await selectRows<{ api_key_id: string }>(
        sequelize,
        `INSERT INTO idempotency_records (api_key_id, idempotency_key, request_fingerprint, state, locked_until)
         VALUES ($apiKeyId, $idempotencyKey, $requestFingerprint, 'in_progress', now() + ${LOCK})
         ON CONFLICT (api_key_id, idempotency_key) DO NOTHING RETURNING api_key_id`,
        { ...key, requestFingerprint },
      );
      return rows.length === 1;
    },

    async find(key: Key): Promise<IdempotencyRecord | undefined> {
      const [row] = await selectRows<{
        request_fingerprint: string;
        state: 'in_progress' | 'completed';
        response_status: number | null;
        response_body: Buffer | null;
        lock_expired: boolean;
      }>(
        sequelize,
        `SELECT request_fingerprint, state, response_status, response_body, (locked_until IS NULL OR locked_until <= now()) AS lock_expired
           FROM idempotency_records
          WHERE api_key_id = $apiKeyId AND idempotency_key = $idempotencyKey AND created_at > now() - ${RETENTION}`,
        { ...key },
      );
      return row
        ? {
            requestFingerprint: row.request_fingerprint,
            state: row.state,
            responseStatus: row.response_status,
            responseBody: row.response_body,
            lockExpired: row.lock_expired,
          }
        : undefined;
    },

    /** Takes over an in-progress record whose holder died; only one of several racers wins. */
    async takeOver(key: Key): Promise<boolean> {
      const rows = await selectRows<{ api_key_id: string }>(
        sequelize,
        `UPDATE idempotency_records SET locked_until = now() + ${LOCK}
          WHERE api_key_id = $apiKeyId AND idempotency_key = $idempotencyKey
            AND state = 'in_progress' AND locked_until <= now() RETURNING api_key_id`,
        { ...key },
      );
      return rows.length === 1;
    },

    async complete(key: Key, responseStatus: number, responseBody: Buffer): Promise<boolean> {
      const rows = await selectRows<{ api_key_id: string }>(
        sequelize,
        `UPDATE idempotency_records
            SET state = 'completed', response_status = $responseStatus, response_body = $responseBody, locked_until = NULL
          WHERE api_key_id = $apiKeyId AND idempotency_key = $idempotencyKey RETURNING api_key_id`,
        { ...key, responseStatus, responseBody },
      );
      return rows.length === 1;
    },

    async release(key: Key): Promise<void> {
      await execute(
        sequelize,
        `DELETE FROM idempotency_records WHERE api_key_id = $apiKeyId AND idempotency_key = $idempotencyKey AND state = 'in_progress'`,
        { ...key },
      );
    },

    async purgeExpired(): Promise<void> {
      await execute(sequelize, `DELETE FROM idempotency_records WHERE created_at <= now() - ${RETENTION}`);
    },
  };
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;
