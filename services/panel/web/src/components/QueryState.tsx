import type { ReactNode } from 'react';
import { ApiError } from '../api/panel-api';

/** What a failed request says to a person: the API's message, never a stack or raw HTML. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message.charAt(0).toUpperCase() + error.message.slice(1);
  return 'Something went wrong. Try again.';
}

export function ErrorMessage({ error, children }: { error: unknown; children?: ReactNode }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {children}
      {errorText(error)}
    </p>
  );
}

/** The loading and error states of one query, then its content. */
export function QueryState({ isPending, error, label, children }: { isPending: boolean; error: unknown; label: string; children: ReactNode }) {
  if (error) return <ErrorMessage error={error}>{`${label} could not be loaded: `}</ErrorMessage>;
  if (isPending) {
    return (
      <p className="muted" role="status">
        Loading {label.toLowerCase()}…
      </p>
    );
  }
  return <>{children}</>;
}
