import { bigintText, execute, selectRows, type Sequelize, type Transaction } from '@propdesk/kit';

export type ReservationStatus = 'reserved' | 'confirmed' | 'cancelled';

export interface ReservationRecord {
  id: string;
  organizationId: string;
  count: string;
  status: ReservationStatus;
  remainingAfter: string;
}

interface ReservationRow {
  id: string;
  organization_id: string;
  count: string;
  status: ReservationStatus;
  remaining_after: string;
}

const COLUMNS = 'id, organization_id, count, status, remaining_after';

function toRecord(row: ReservationRow): ReservationRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    count: bigintText(row.count),
    status: row.status,
    remainingAfter: bigintText(row.remaining_after),
  };
}

export function createCreditReservationsRepository(sequelize: Sequelize) {
  return {
    /**
     * Claims the reservation id. A concurrent insert of the same id waits on the primary key
     * until this transaction ends, so only one caller ever debits for one id.
     */
    async claim(input: { id: string; organizationId: string; count: string }, transaction: Transaction): Promise<boolean> {
      const rows = await selectRows<{ id: string }>(
        sequelize,
        `INSERT INTO credit_reservations (id, organization_id, count, status, remaining_after)
         VALUES ($id, $organizationId, CAST($count AS bigint), 'reserved', 0)
         ON CONFLICT (id) DO NOTHING RETURNING id`,
        input,
        transaction,
      );
      return rows.length === 1;
    },

    async setRemaining(id: string, remaining: string, transaction: Transaction): Promise<void> {
      await execute(sequelize, `UPDATE credit_reservations SET remaining_after = CAST($remaining AS bigint) WHERE id = $id`, { id, remaining }, transaction);
    },

    async findById(id: string, transaction?: Transaction, forUpdate = false): Promise<ReservationRecord | undefined> {
      const [row] = await selectRows<ReservationRow>(
        sequelize,
        `SELECT ${COLUMNS} FROM credit_reservations WHERE id = $id${forUpdate ? ' FOR UPDATE' : ''}`,
        { id },
        transaction,
      );
      return row ? toRecord(row) : undefined;
    },

    async setStatus(id: string, status: ReservationStatus, transaction?: Transaction): Promise<void> {
      await execute(sequelize, `UPDATE credit_reservations SET status = $status, updated_at = now() WHERE id = $id`, { id, status }, transaction);
    },

    /** reserved -> confirmed; confirmed stays confirmed. Returns the row after the change, if any. */
    async confirm(id: string): Promise<ReservationRecord | undefined> {
      const [row] = await selectRows<ReservationRow>(
        sequelize,
        `UPDATE credit_reservations SET status = 'confirmed', updated_at = now()
          WHERE id = $id AND status IN ('reserved', 'confirmed') RETURNING ${COLUMNS}`,
        { id },
      );
      return row ? toRecord(row) : undefined;
    },
  };
}

export type CreditReservationsRepository = ReturnType<typeof createCreditReservationsRepository>;
