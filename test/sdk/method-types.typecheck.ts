/**
 * Compile-time checks of the SDK's method types (tsc -b fails when they break): path parameters
 * first, in order, then one object of query and body fields, answers typed from the document.
 */
import { PropDesk, type Account, type Paginator, type WebhookEvent } from '@propdesk/sdk';

export async function methodTypes(pd: PropDesk, event: WebhookEvent): Promise<void> {
  const account: Account = await pd.getAccount(1000001);
  const number: number = account.number;
  const accounts: Paginator<Account> = pd.listAccounts({ status: 'active', limit: 2 });
  for await (const a of accounts) void a.trader_id;
  const claimed = await pd.claimAccount({ name: 'Jane', email: 'jane@example.com' }, { idempotencyKey: 'order-1' });
  void claimed.trader.email;
  await pd.closePosition(number, 'position id');
  await pd.createPayout(number);
  await pd.resetAccount(number);
  const page = await pd.listEvents({ account: number, after_sequence: 3 }).firstPage();
  void page.next_cursor;
  // @ts-expect-error a required body
  await pd.claimAccount();
  // @ts-expect-error a field the body does not have
  await pd.claimAccount({ name: 'x', email: 'y', nickname: 'z' });
  // @ts-expect-error the path parameter is a number
  await pd.getAccount('1000001');
  // @ts-expect-error a status the filter does not know
  pd.listAccounts({ status: 'frozen' });
  if (event.type === 'account.breached') {
    const limit: number | null = event.data.limit;
    void limit;
  }
}
