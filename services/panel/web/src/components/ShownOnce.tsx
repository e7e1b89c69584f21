import { useState } from 'react';

/**
 * A secret the API shows only once (an API key's token, a webhook's signing secret): shown as text
 * with a copy button, and gone for good once dismissed.
 */
export function ShownOnce({ title, value, note, onDone }: { title: string; value: string; note: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section className="shown-once" aria-label={title}>
      <h3>{title}</h3>
      <p>{note}</p>
      <div className="shown-once-row">
        <code>{value}</code>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopied(true), () => setCopied(false));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
