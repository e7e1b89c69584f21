/** Display formats, one place: money with two decimals, times in the viewer's locale with UTC as the source. */

const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 5 });
const dateTime = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export const formatMoney = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : money.format(value));
export const formatNumber = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : plain.format(value));
export const formatTime = (iso: string | null | undefined): string => (iso ? `${dateTime.format(new Date(iso))} UTC` : '—');
export const formatPct = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : `${plain.format(value)}%`);
