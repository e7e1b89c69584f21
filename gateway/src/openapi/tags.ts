/**
 * The document's tags, each declared once with its description: a route's `tag` is one of these
 * names (the type says so), so no operation can carry a tag the document does not declare.
 */
export const API_TAGS = {
  Accounts: 'Provisioning, assignment, credentials',
  Lifecycle: 'Resets and payouts of an account in its program (phases, attempts, funded payouts)',
  Payouts: "The organization's payouts and their approval: approve, reject, mark paid",
  Operations: 'Operator controls: halts, reinstatement, balance adjustments, KYC',
  Programs: 'Evaluation programs: phases and their terms, versioned',
  Trading: 'Orders, positions, deals, flags, analytics, equity, the report',
  Executor: 'The trading terminal: an executor session trades its one account',
  Traders: 'The holders of accounts',
  Events: 'The event feed',
  Webhooks: 'Signed outgoing events',
  NewsEvents: "The organization's news calendar: what a program phase's news blackout refuses orders around",
  TestClocks: 'Test mode: clocks, a time and a price universe that test accounts live in and that advances on request',
  Audit: 'Who changed what, and when: the audit log and each account\'s timeline',
  Meta: 'This document, health, key revocation and roll',
} as const;

export type ApiTag = keyof typeof API_TAGS;

export const TAGS = (Object.keys(API_TAGS) as ApiTag[]).map((name) => ({ name, description: API_TAGS[name] }));
