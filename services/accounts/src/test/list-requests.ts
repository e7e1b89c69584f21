import { Mode } from '@propdesk/kit';
import { accountsv1 } from '@propdesk/proto';

/** A live-mode JSON-view ListAccountsRequest of the organization: the gateway's default, `req` on top. */
export function listRequest(organizationId: string, req: Partial<accountsv1.ListAccountsRequest> = {}): accountsv1.ListAccountsRequest {
  return {
    organizationId,
    mode: Mode.MODE_LIVE,
    pageSize: 0,
    pageToken: '',
    status: accountsv1.AccountStatus.ACCOUNT_STATUS_UNSPECIFIED,
    jsonView: true,
    ...req,
  };
}
