import type { Migration } from '@propdesk/kit';

/** Organizations and credits, panel users and sessions, login failures, API keys, idempotency records. */
export const authSchema: Migration = {
  name: '0001-auth',
  async up({ sql }) {
    await sql(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        plan_status text NOT NULL CHECK (plan_status IN ('paid', 'unpaid')),
        credits bigint NOT NULL DEFAULT 0 CHECK (credits >= 0),
        credits_low_threshold bigint NOT NULL DEFAULT 0 CHECK (credits_low_threshold >= 0),
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE credit_reservations (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations (id),
        count bigint NOT NULL CHECK (count > 0),
        status text NOT NULL CHECK (status IN ('reserved', 'confirmed', 'cancelled')),
        -- what the reservation answered, so that a repeated call answers the same
        remaining_after bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id),
        email text NOT NULL,
        email_normalized text NOT NULL UNIQUE,
        password_hash text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX users_org ON users (organization_id);

      CREATE TABLE sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        token_sha256 text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX sessions_expires ON sessions (expires_at);

      -- one row per failed (or in-flight) login attempt; shared by every auth replica
      CREATE TABLE login_attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        email_normalized text NOT NULL,
        client_ip text NULL,
        attempted_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX login_attempts_email ON login_attempts (email_normalized, attempted_at);
      CREATE INDEX login_attempts_ip ON login_attempts (client_ip, attempted_at) WHERE client_ip IS NOT NULL;
      CREATE INDEX login_attempts_at ON login_attempts (attempted_at);

      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        -- keyset position of the list: creation order without timestamp precision issues
        list_seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations (id),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        prefix text NOT NULL,
        token_sha256 text NOT NULL,
        scopes text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NULL,
        revoked_at timestamptz NULL
      );
      CREATE UNIQUE INDEX api_keys_token_sha256 ON api_keys (token_sha256);
      CREATE INDEX api_keys_org_seq ON api_keys (organization_id, list_seq);

      CREATE TABLE idempotency_records (
        api_key_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        request_fingerprint text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
        response_status integer NULL,
        response_body bytea NULL,
        locked_until timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (api_key_id, idempotency_key)
      );
      CREATE INDEX idempotency_records_created ON idempotency_records (created_at);
    `);
  },
};
