import { bigintText, selectRows, type Sequelize, type Transaction } from '@propdesk/kit';
import type { PlanStatus } from '../domain/organization';

export interface OrganizationRecord {
  id: string;
  name: string;
  planStatus: PlanStatus;
  credits: string;
  creditsLowThreshold: string;
  createdAt: Date;
}

interface OrganizationRow {
  id: string;
  name: string;
  plan_status: PlanStatus;
  credits: string;
  credits_low_threshold: string;
  created_at: Date;
}

const COLUMNS = 'id, name, plan_status, credits, credits_low_threshold, created_at';

function toRecord(row: OrganizationRow): OrganizationRecord {
  return {
    id: row.id,
    name: row.name,
    planStatus: row.plan_status,
    credits: bigintText(row.credits),
    creditsLowThreshold: bigintText(row.credits_low_threshold),
    createdAt: row.created_at,
  };
}

/** Callers pass only well-formed uuids (see domain/ids). */
export function createOrganizationsRepository(sequelize: Sequelize) {
  return {
    async insert(input: { name: string; planStatus: PlanStatus; credits: string }, transaction?: Transaction): Promise<OrganizationRecord> {
      const [row] = await selectRows<OrganizationRow>(
        sequelize,
        `INSERT INTO organizations (name, plan_status, credits) VALUES ($name, $planStatus, $credits) RETURNING ${COLUMNS}`,
        input,
        transaction,
      );
      return toRecord(row);
    },

    async findById(id: string, transaction?: Transaction): Promise<OrganizationRecord | undefined> {
      const [row] = await selectRows<OrganizationRow>(sequelize, `SELECT ${COLUMNS} FROM organizations WHERE id = $id`, { id }, transaction);
      return row ? toRecord(row) : undefined;
    },

    /** The organization as it is before a change in `transaction`, its row locked until the change commits. */
    async lockById(id: string, transaction: Transaction): Promise<OrganizationRecord | undefined> {
      const [row] = await selectRows<OrganizationRow>(sequelize, `SELECT ${COLUMNS} FROM organizations WHERE id = $id FOR UPDATE`, { id }, transaction);
      return row ? toRecord(row) : undefined;
    },

    async setPlan(id: string, planStatus: PlanStatus, transaction?: Transaction): Promise<OrganizationRecord | undefined> {
      const [row] = await selectRows<OrganizationRow>(
        sequelize,
        `UPDATE organizations SET plan_status = $planStatus WHERE id = $id RETURNING ${COLUMNS}`,
        { id, planStatus },
        transaction,
      );
      return row ? toRecord(row) : undefined;
    },

    async addCredits(id: string, credits: string, transaction?: Transaction): Promise<OrganizationRecord | undefined> {
      const [row] = await selectRows<OrganizationRow>(
        sequelize,
        `UPDATE organizations SET credits = credits + CAST($credits AS bigint) WHERE id = $id RETURNING ${COLUMNS}`,
        { id, credits },
        transaction,
      );
      return row ? toRecord(row) : undefined;
    },

    async setCreditsLowThreshold(id: string, threshold: string, transaction?: Transaction): Promise<OrganizationRecord | undefined> {
      const [row] = await selectRows<OrganizationRow>(
        sequelize,
        `UPDATE organizations SET credits_low_threshold = CAST($threshold AS bigint) WHERE id = $id RETURNING ${COLUMNS}`,
        { id, threshold },
        transaction,
      );
      return row ? toRecord(row) : undefined;
    },

    /** The conditional debit: never below zero, whatever runs concurrently. */
    async debit(id: string, count: string, transaction: Transaction): Promise<{ credits: string; creditsLowThreshold: string } | undefined> {
      const [row] = await selectRows<{ credits: string; credits_low_threshold: string }>(
        sequelize,
        `UPDATE organizations SET credits = credits - CAST($count AS bigint)
          WHERE id = $id AND credits >= CAST($count AS bigint)
          RETURNING credits, credits_low_threshold`,
        { id, count },
        transaction,
      );
      return row ? { credits: bigintText(row.credits), creditsLowThreshold: bigintText(row.credits_low_threshold) } : undefined;
    },

    async credit(id: string, count: string, transaction: Transaction): Promise<string> {
      const [row] = await selectRows<{ credits: string }>(
        sequelize,
        `UPDATE organizations SET credits = credits + CAST($count AS bigint) WHERE id = $id RETURNING credits`,
        { id, count },
        transaction,
      );
      return bigintText(row?.credits);
    },
  };
}

export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;
