import type { AuditEntry } from '../../api/types';

const ACTOR_KINDS: Record<AuditEntry['actor']['type'], string> = { api_key: 'API key', user: 'User', operator: 'Operator' };

/** Who made a change, as a person reads it: "jane@firm.test (User)", "pfx_live_abc… (API key)". */
export function actorText(actor: AuditEntry['actor']): string {
  return `${actor.label} (${ACTOR_KINDS[actor.type] ?? actor.type})`;
}

const valueText = (value: unknown): string => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/** What changed, field by field: "status: active → archived"; nothing rendered from data is HTML. */
export function Changes({ entry }: { entry: AuditEntry }) {
  const fields = Object.entries(entry.changes);
  if (fields.length === 0) return <span className="muted">—</span>;
  return (
    <ul className="changes">
      {fields.map(([field, [before, after]]) => (
        <li key={field}>
          <span className="change-field">{field}</span>: {valueText(before)} → {valueText(after)}
        </li>
      ))}
    </ul>
  );
}
