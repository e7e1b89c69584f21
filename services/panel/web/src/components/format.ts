/** Display formats, one place: money with two decimals and its currency, times in UTC and 24-hour time. */

const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 5 });
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC', hourCycle: 'h23' });
const dateTimeSeconds = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC', hourCycle: 'h23' });

export const formatMoney = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : money.format(value));
/** An amount with its currency: "100,000.00 USD" (every amount the panel shows says which money it is). */
export const formatAmount = (value: number | null | undefined, currency: string): string => (value === null || value === undefined ? '—' : `${money.format(value)} ${currency}`);
export const formatNumber = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : plain.format(value));
export const formatTime = (iso: string | null | undefined): string => (iso ? `${dateTime.format(new Date(iso))} UTC` : '—');
/** To the second: when it matters which of two changes came first (the audit log). */
export const formatTimeSeconds = (iso: string | null | undefined): string => (iso ? `${dateTimeSeconds.format(new Date(iso))} UTC` : '—');
export const formatPct = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : `${plain.format(value)}%`);
