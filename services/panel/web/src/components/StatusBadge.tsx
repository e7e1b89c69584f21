/** A status as a word (never colour alone), tinted by its kind. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.replace(/[^a-z]/g, '')}`}>{status}</span>;
}
